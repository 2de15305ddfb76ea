// BufferKind: each kind's answer in each step, through the interface the engine asks (the
// engine's walks through both kinds are engine_read_test.cc's and page_cache_kind_test.cc's).
#include "engine/buffer_kind.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "reorder_buffer_fixture.h"

namespace pfio {
namespace {

// Records what a kind's Serve asked of the read in progress.
class RecordingReader : public BufferKind::Reader {
 public:
  Status ReadFromFile(char *, uint64_t pos, uint64_t n, bool waits) override {
    from_file.push_back({pos, n});
    waited_in_kernel = waits;
    return Status::Ok();
  }
  Status WaitLanded(Piece *p) override {
    ++waits;
    p->state = land_as;
    return Status::Ok();
  }
  Status ReadAgain(const Piece &, uint64_t lo, uint64_t hi, char *) override {
    again.push_back({lo, hi - lo});
    return Status::Ok();
  }
  void Served(Piece *p) override { served.push_back(p); }

  Piece::State land_as = Piece::State::kReady;
  std::vector<std::pair<uint64_t, uint64_t>> from_file, again;
  bool waited_in_kernel = false;
  int waits = 0;
  std::vector<Piece *> served;
};

class BufferKindTest : public ::testing::Test {
 protected:
  void SetUp() override {
    buffer_ = test::MakeReorderBuffer(1 << 20);
    engine_.path = "/data/engine-file";
    cache_.path = "/data/cache-file";
    cache_.buffer = PFIO_BUFFER_CACHE;
  }
  const BufferKind &reorder() const { return BufferKindOf(engine_); }
  const BufferKind &page_cache() const { return BufferKindOf(cache_); }

  FileHandle engine_, cache_;
  std::unique_ptr<ReorderBuffer> buffer_;
  RequestShape shape_;
};

TEST_F(BufferKindTest, TheHandlesKindIsTheFilesAndEachIsOneInstance) {
  EXPECT_EQ(reorder().id(), PFIO_BUFFER_ENGINE);
  EXPECT_EQ(page_cache().id(), PFIO_BUFFER_CACHE);
  FileHandle other;
  other.buffer = PFIO_BUFFER_CACHE;
  EXPECT_EQ(&BufferKindOf(other), &page_cache());
  EXPECT_NE(&reorder(), &page_cache());
}

TEST_F(BufferKindTest, OnlyThePageCacheKindBoundsWhatAWindowHoldsUnconsumed) {
  EXPECT_EQ(reorder().UnreadCap(1ull << 30), UINT64_MAX);
  EXPECT_EQ(page_cache().UnreadCap(1ull << 30), PageCacheKind::kBatch);  // the batch cap
  EXPECT_EQ(page_cache().UnreadCap(8 << 20), 4u << 20);                  // or half the room
  EXPECT_EQ(page_cache().UnreadCap(0), kPage);                           // never nothing
}

TEST_F(BufferKindTest, ThePageCacheKindJoinsRangesIntoAdviceSpansAndTheReorderBufferDoesNot) {
  shape_.infill_max = 8192;
  shape_.cache_max_request = 4 << 20;
  const BufferKind::Ranges ranges = {{0, 32 << 10}, {64 << 10, 96 << 10}};  // a 32 KiB gap
  auto none = [](uint64_t, uint64_t) { return false; };
  uint64_t gaps = 0;
  EXPECT_EQ(reorder().PieceRanges(ranges, engine_, shape_, none, &gaps), ranges);
  EXPECT_EQ(gaps, 0u);
  const auto spans = page_cache().PieceRanges(ranges, cache_, shape_, none, &gaps);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0], std::make_pair(uint64_t{0}, uint64_t{96} << 10));
  EXPECT_EQ(gaps, 32u << 10);
  EXPECT_FALSE(reorder().by_range());
  EXPECT_TRUE(page_cache().by_range());
  EXPECT_EQ(reorder().MaxPiece(shape_), shape_.max_request);
  EXPECT_EQ(page_cache().MaxPiece(shape_), 4u << 20);
  // Requests: the reorder buffer joins over its infill and reads into pages; the page cache's
  // spans are joined already, touching pieces only, and the request is advice.
  const RequestJoin read = reorder().Join(shape_, engine_),
                    advice = page_cache().Join(shape_, cache_);
  EXPECT_EQ(read.gap, 8192u);
  EXPECT_FALSE(read.advice);
  EXPECT_EQ(advice.gap, 0u);
  EXPECT_EQ(advice.span, 4u << 20);
  EXPECT_TRUE(advice.advice);
}

TEST_F(BufferKindTest, TheReorderBufferTakesPagesAndThePageCacheACharge) {
  Piece *paged = buffer_->Create(0, 0, 64 << 10, 64 << 10);
  Piece *charged = buffer_->Create(1, 0, 64 << 10, 64 << 10, {}, /*by_range=*/true);
  ASSERT_TRUE(reorder().Take(buffer_.get(), paged, false));
  ASSERT_TRUE(page_cache().Take(buffer_.get(), charged, false));
  EXPECT_EQ(paged->pages.size(), (64u << 10) / kPage);
  EXPECT_FALSE(paged->cached);
  EXPECT_TRUE(charged->pages.empty());
  EXPECT_TRUE(charged->cached);
  EXPECT_EQ(buffer_->in_use(), 2 * (64u << 10));  // both count against the one capacity
  // Past the capacity neither takes memory, unless the application waits for the charge.
  Piece *big = buffer_->Create(0, 1 << 20, 1 << 20, 1 << 20);
  EXPECT_FALSE(reorder().Take(buffer_.get(), big, true));
  Piece *over = buffer_->Create(1, 1 << 20, 1 << 20, 1 << 20, {}, /*by_range=*/true);
  EXPECT_FALSE(page_cache().Take(buffer_.get(), over, false));
  EXPECT_TRUE(page_cache().Take(buffer_.get(), over, true));
  for (Piece *p : {paged, charged, big, over}) buffer_->Dropped(p);
}

TEST_F(BufferKindTest, TheReorderBufferServesFromItsPagesAfterTheReadLands) {
  std::vector<char> discard(8192);
  shape_.discard = discard.data();
  Piece *p = buffer_->Create(0, 0, 8192, 8192);
  ASSERT_TRUE(reorder().Take(buffer_.get(), p, false));
  PendingRead read;
  read.req.offset = 0;
  read.req.length = 8192;
  read.pieces = {p};
  reorder().Prepare(&read, shape_);
  ASSERT_EQ(read.req.iov.size(), 1u);  // a fresh pool's two pages follow each other: one vector
  EXPECT_EQ(read.req.iov[0].iov_base, p->pages[0]);
  std::memcpy(p->pages[0], "landed!", 8);
  RecordingReader reader;
  char got[8] = {};
  ASSERT_TRUE(reorder().Serve(&reader, p, 0, 8, got).ok());
  EXPECT_EQ(reader.waits, 1);
  EXPECT_STREQ(got, "landed!");
  EXPECT_TRUE(reader.from_file.empty());
  ASSERT_EQ(reader.served.size(), 1u);
  // A read that failed: the bytes are read again, and the piece is not counted as served.
  RecordingReader failed;
  failed.land_as = Piece::State::kFailed;
  ASSERT_TRUE(reorder().Serve(&failed, p, 4096, 4608, got).ok());
  ASSERT_EQ(failed.again.size(), 1u);
  EXPECT_EQ(failed.again[0], std::make_pair(uint64_t{4096}, uint64_t{512}));
  EXPECT_TRUE(failed.served.empty());
  buffer_->Dropped(p);
}

TEST_F(BufferKindTest, ThePageCacheServesFromTheFileWithoutWaitingForItsAdvice) {
  Piece *p = buffer_->Create(1, 0, 8192, 8192, {}, /*by_range=*/true);
  ASSERT_TRUE(page_cache().Take(buffer_.get(), p, false));
  PendingRead read;
  read.pieces = {p};
  page_cache().Prepare(&read, shape_);
  EXPECT_TRUE(read.req.iov.empty());  // advice has no vectors
  RecordingReader reader;
  char got[8];
  ASSERT_TRUE(page_cache().Serve(&reader, p, 100, 108, got).ok());
  EXPECT_EQ(reader.waits, 0);
  ASSERT_EQ(reader.from_file.size(), 1u);
  EXPECT_EQ(reader.from_file[0], std::make_pair(uint64_t{100}, uint64_t{8}));
  EXPECT_TRUE(reader.waited_in_kernel);  // its advice has not landed: the kernel may wait
  EXPECT_EQ(reader.served.size(), 1u);
  buffer_->Dropped(p);
}

TEST_F(BufferKindTest, OnlyThePageCacheKindLetsTheFrontEndReadItself) {
  EXPECT_TRUE(page_cache().AcceptCallerReads(3, cache_).ok());
  const Status s = reorder().AcceptCallerReads(3, engine_);
  EXPECT_EQ(s.code(), PFIO_EINVAL);
  EXPECT_NE(s.message().find("file 3 (/data/engine-file)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("buffer = cache"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace pfio
