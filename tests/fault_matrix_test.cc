// The fault matrix: {access pattern} x {window mode} x {fault}, each cell a real file read
// through the real aio backend with FaultInjectingBackend in between. Every cell asserts the
// read contract under faults:
//   - every read returns correct bytes or an error, never wrong bytes with PFIO_OK;
//   - when only prefetch reads fail (the fallback works), every read succeeds in full;
//   - no read call waits longer than timeout_ms (plus scheduling slack), so nothing hangs;
//   - the context shuts down and is destroyed, whatever is still in flight;
//   - the fault the cell names was really injected.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "engine/config.h"
#include "engine/context.h"
#include "fault_injecting_backend.h"
#include "io/aio_backend.h"
#include "test_util.h"

namespace pfio {
namespace {

using test::Fault;
using test::FaultInjectingBackend;
using test::FaultSpec;

constexpr uint64_t kSeed = 11;
constexpr uint64_t kMiB = 1 << 20;
constexpr uint64_t kFileSize = 8 * kMiB;
constexpr uint32_t kTimeoutMs = 3000;

enum class Pattern { kRandom4K, kSequential64K, kDescending64K, kLargerThanWindow };

const char *PatternName(Pattern p) {
  switch (p) {
    case Pattern::kRandom4K:
      return "random4K";
    case Pattern::kSequential64K:
      return "sequential64K";
    case Pattern::kDescending64K:
      return "descending64K";
    case Pattern::kLargerThanWindow:
      return "largerThanWindow";
  }
  return "?";
}

struct Read {
  uint64_t offset, length;
};

std::vector<Read> MakePattern(Pattern p) {
  std::vector<Read> v;
  switch (p) {
    case Pattern::kRandom4K: {
      std::mt19937_64 rng(3);
      for (int i = 0; i < 600; ++i) v.push_back({rng() % (kFileSize / 4096) * 4096, 4096});
      break;
    }
    case Pattern::kSequential64K:
      for (uint64_t off = 0; off < kFileSize; off += 65536) v.push_back({off, 65536});
      break;
    case Pattern::kDescending64K:
      for (uint64_t off = kFileSize; off > 0; off -= 65536) v.push_back({off - 65536, 65536});
      break;
    case Pattern::kLargerThanWindow:  // 3 MiB extents against a 2 MiB budget, out of order
      for (uint64_t off : {uint64_t{4 * kMiB}, uint64_t{0}, 5 * kMiB - 4096, kMiB + 512})
        v.push_back({off, 3 * kMiB});
      break;
  }
  return v;
}

struct Cell {
  Pattern pattern;
  pfio_window_mode mode;
  Fault fault;
  bool direct_too;
};

std::string CellName(const testing::TestParamInfo<Cell> &info) {
  const Cell &c = info.param;
  return std::string(PatternName(c.pattern)) + "_" +
         (c.mode == PFIO_WINDOW_BATCH ? "batch" : "pipelined") + "_" + test::FaultName(c.fault) +
         (c.direct_too ? "_directToo" : "");
}

std::vector<Cell> AllCells() {
  std::vector<Cell> cells;
  for (Pattern p : {Pattern::kRandom4K, Pattern::kSequential64K, Pattern::kDescending64K,
                    Pattern::kLargerThanWindow})
    for (pfio_window_mode m : {PFIO_WINDOW_PIPELINED, PFIO_WINDOW_BATCH}) {
      for (Fault f : {Fault::kEio, Fault::kShort, Fault::kEintr, Fault::kEagain, Fault::kEnomem,
                      Fault::kSlow, Fault::kMixed})
        cells.push_back({p, m, f, false});
      cells.push_back({p, m, Fault::kEio, true});
      cells.push_back({p, m, Fault::kShort, true});
    }
  return cells;
}

class FaultMatrix : public testing::TestWithParam<Cell> {};

TEST_P(FaultMatrix, CorrectBytesOrAnErrorNeverAHang) {
  const Cell cell = GetParam();
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("matrix", kFileSize, kSeed);

  FaultSpec spec;
  spec.fault = cell.fault;
  spec.probability = cell.direct_too ? 0.1 : 0.25;
  spec.from = kMiB;  // the first MiB never fails: faults by offset, not only by chance
  spec.direct_too = cell.direct_too;
  spec.direct_probability = 0.1;
  spec.seed = 5;
  std::unique_ptr<Backend> aio;
  ASSERT_TRUE(AioBackend::Create(32, true, &aio).ok());
  auto fb = std::make_unique<FaultInjectingBackend>(std::move(aio), spec);
  FaultInjectingBackend *faults = fb.get();

  Config c;
  c.buffer = PFIO_BUFFER_ENGINE;  // the reorder buffer's reads are what the faults hit
  c.budget = (cell.pattern == Pattern::kLargerThanWindow ? 2 : 4) * kMiB;
  c.window_mode = cell.mode;
  c.max_request = 128 * 1024;
  c.timeout_ms = kTimeoutMs;
  std::unique_ptr<Context> ctx;
  ASSERT_TRUE(Context::Create(c, std::move(fb), nullptr, &ctx).ok());
  int32_t f = -1;
  ASSERT_TRUE(ctx->OpenFile(path, &f).ok());

  const std::vector<Read> reads = MakePattern(cell.pattern);
  std::vector<pfio_extent> plan;
  for (const Read &r : reads) plan.push_back({f, 0, r.offset, r.length});
  ASSERT_TRUE(ctx->PlanAppend(plan.data(), plan.size()).ok());

  size_t failed = 0;
  std::vector<char> buf;
  for (const Read &r : reads) {
    buf.assign(r.length, 0);
    uint64_t n = 0;
    const auto t0 = std::chrono::steady_clock::now();
    Status s = ctx->Read(f, buf.data(), r.offset, r.length, &n);
    const auto waited = std::chrono::steady_clock::now() - t0;
    EXPECT_LT(waited, std::chrono::milliseconds(kTimeoutMs + 2000))
        << "read of [" << r.offset << ", +" << r.length << ") waited too long";
    ASSERT_LE(n, r.length);
    // Whatever the status, the bytes it says it delivered are the file's.
    EXPECT_TRUE(test::HoldsPattern(buf.data(), r.offset, n, kSeed));
    if (s.ok()) {
      if (!cell.direct_too) {
        EXPECT_EQ(n, r.length) << "read at " << r.offset << " came back short";
      }
    } else {
      ++failed;
      EXPECT_TRUE(s.code() == PFIO_EIO || s.code() == PFIO_ETIMEDOUT || s.code() == PFIO_ENOMEM)
          << s.message();
      EXPECT_FALSE(s.message().empty());
      EXPECT_TRUE(cell.direct_too) << "the fallback works, yet the read failed: " << s.message();
    }
  }
  // The fault was really hit: on prefetch reads wherever the pattern is prefetched, and on the
  // fallback's direct reads where the cell fails those too.
  // Sequential runs are left to the kernel's readahead and extents larger than the window are
  // read whole: neither is prefetched, so only their direct reads can fail.
  const bool prefetched =
      cell.pattern == Pattern::kRandom4K || cell.pattern == Pattern::kDescending64K;
  if (prefetched) {
    EXPECT_GT(faults->injected.load(), 0u);
  } else {
    EXPECT_EQ(faults->injected.load(), 0u);
  }
  if (cell.direct_too) {
    EXPECT_GT(faults->injected_direct.load(), 0u);
  } else {
    EXPECT_EQ(failed, 0u);
  }

  const auto t0 = std::chrono::steady_clock::now();
  Status s = ctx->Shutdown();
  EXPECT_TRUE(s.ok() || s.code() == PFIO_ETIMEDOUT) << s.message();
  ctx.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(kTimeoutMs + 2000));
}

INSTANTIATE_TEST_SUITE_P(AllCells, FaultMatrix, testing::ValuesIn(AllCells()), CellName);

}  // namespace
}  // namespace pfio
