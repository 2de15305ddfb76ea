// ReadPath's runs (engine/file_run.h): the bytes a read takes from the file itself, passthrough
// runs and pieces of the page-cache kind, are read with one vectored read per run of the file
// that the read's pieces continue, into the caller's scattered buffers, every byte checked; a
// run that comes back short is an error naming the file, never wrong bytes.
#include <gtest/gtest.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <span>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/context.h"
#include "io/aio_backend.h"
#include "io/backend_wrapper.h"
#include "test_util.h"

namespace pfio {
namespace {

constexpr uint64_t kSeed = 11;
constexpr uint64_t kKiB = 1 << 10, kMiB = 1 << 20;

// Counts the direct reads that reach the real backend and the buffers they fill.
class CountingDirect : public BackendWrapper {
 public:
  explicit CountingDirect(std::unique_ptr<Backend> inner) : BackendWrapper(std::move(inner)) {}
  const char *name() const override { return "counting"; }
  Status ReadDirectV(const FileHandle &file, std::span<const iovec> iov, uint64_t offset,
                     uint64_t *nread) override {
    ++calls;
    buffers += iov.size();
    return BackendWrapper::ReadDirectV(file, iov, offset, nread);
  }
  std::atomic<uint64_t> calls{0}, buffers{0};
};

struct Fixture {
  explicit Fixture(uint64_t size, const std::string &buffer = "engine") {
    path = dir.MakeFile("runs", size, kSeed);
    std::unique_ptr<Backend> aio;
    EXPECT_TRUE(AioBackend::Create(32, true, &aio).ok());
    auto counting_backend = std::make_unique<CountingDirect>(std::move(aio));
    counting = counting_backend.get();
    Config c;
    c.budget = 8 * kMiB;
    c.max_request = 64 * kKiB;
    c.infill_max = 0;
    c.timeout_ms = 20000;
    c.buffer = buffer == "cache" ? PFIO_BUFFER_CACHE : PFIO_BUFFER_ENGINE;
    EXPECT_TRUE(Context::Create(c, std::move(counting_backend), nullptr, &ctx).ok());
    EXPECT_TRUE(ctx->OpenFile(path, &file).ok());
  }
  test::ScratchDir dir;
  std::string path;
  CountingDirect *counting = nullptr;
  std::unique_ptr<Context> ctx;
  int32_t file = -1;
};

// `count` pieces of `each` bytes from `offset` on, in order, each into its own buffer with a
// gap of a page between buffers (so that no two continue each other in memory).
struct Scattered {
  Scattered(uint64_t offset, size_t count, uint64_t each) : memory(count * (each + 4 * kKiB)) {
    for (size_t i = 0; i < count; ++i)
      pieces.push_back({memory.data() + i * (each + 4 * kKiB), offset + i * each, each});
  }
  bool AllHoldThePattern() const {
    for (const pfio_read_piece &p : pieces)
      if (!test::HoldsPattern(static_cast<const char *>(p.buf), p.offset, p.length, kSeed))
        return false;
    return true;
  }
  std::vector<char> memory;
  std::vector<pfio_read_piece> pieces;
};

TEST(ReadRuns, APassthroughExtentReadInPiecesIsOneVectoredRead) {
  Fixture f(4 * kMiB);
  const pfio_extent range{f.file, 0, 1 * kMiB, 2 * kMiB};
  const pfio_extent dense[] = {{f.file, 0, 1 * kMiB, 1 * kMiB}, {f.file, 0, 2 * kMiB, 1 * kMiB}};
  ASSERT_TRUE(f.ctx->PlanReadahead(&range, 1).ok());
  ASSERT_TRUE(f.ctx->PlanAppend(dense, 2).ok());
  Scattered read(dense[0].offset, 16, 64 * kKiB);
  uint64_t got = 0;
  Status s = f.ctx->ReadV(f.file, read.pieces.data(), read.pieces.size(), &got);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(got, dense[0].length);
  EXPECT_TRUE(read.AllHoldThePattern());
  // The run's first byte alone (the run starts a stream on the description: the kernel's
  // readahead then takes it as sequential from its first page), then one vectored read (was a
  // read per piece).
  EXPECT_EQ(f.counting->calls.load(), 2u);
  EXPECT_EQ(f.counting->buffers.load(), 17u);
  // The next run continues that one on the description: no first byte of its own.
  Scattered next(dense[1].offset, 1, dense[1].length);
  s = f.ctx->ReadV(f.file, next.pieces.data(), next.pieces.size(), &got);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(next.AllHoldThePattern());
  EXPECT_EQ(f.counting->calls.load(), 3u);
  EXPECT_EQ(f.ctx->Stats().bytes_passthrough, 2 * kMiB);
}

TEST(ReadRuns, PiecesOfThePageCacheKindAreReadTogetherIntoScatteredBuffers) {
  Fixture f(4 * kMiB, "cache");
  // Two extents out of order (so that neither is a sequential run left to readahead), each
  // planned as several pieces (max_request) and read in pieces that cross theirs.
  const std::vector<pfio_extent> plan = {{f.file, 0, 2 * kMiB, 512 * kKiB},
                                         {f.file, 0, 256 * kKiB, 512 * kKiB}};
  ASSERT_TRUE(f.ctx->PlanAppend(plan.data(), plan.size()).ok());
  for (const pfio_extent &e : plan) {
    Scattered read(e.offset, 10, e.length / 10 + 1);
    read.pieces.back().length = e.length - 9 * (e.length / 10 + 1);
    uint64_t got = 0;
    Status s = f.ctx->ReadV(f.file, read.pieces.data(), read.pieces.size(), &got);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(got, e.length);
    EXPECT_TRUE(read.AllHoldThePattern());
  }
  EXPECT_EQ(f.ctx->Stats().hits, 20u);  // every piece served by the plan, none a miss
  EXPECT_EQ(f.ctx->Stats().misses, 0u);
}

TEST(ReadRuns, ARunCutShortByATruncateIsAnErrorNamingTheFile) {
  Fixture f(4 * kMiB);
  const pfio_extent dense{f.file, 0, 2 * kMiB, 2 * kMiB};
  ASSERT_TRUE(f.ctx->PlanReadahead(&dense, 1).ok());
  ASSERT_TRUE(f.ctx->PlanAppend(&dense, 1).ok());
  ASSERT_EQ(truncate(f.path.c_str(), 3 * kMiB), 0);
  Scattered read(dense.offset, 8, dense.length / 8);
  uint64_t got = 0;
  Status s = f.ctx->ReadV(f.file, read.pieces.data(), read.pieces.size(), &got);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(f.path), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("shorter than when opened"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace pfio
