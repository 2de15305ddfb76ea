#include "partition/request_builder.h"

#include <gtest/gtest.h>

#include <memory>

#include "reorder_buffer_fixture.h"
namespace pfio {

class RequestBuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    buffer_ = test::MakeReorderBuffer();
    handles_[0] = &file_;
    discard_.resize(1 << 20);
    shape_.discard = discard_.data();
  }
  Piece *P(uint64_t off, uint64_t len) {
    Piece *p = buffer_->Create(0, off, len, len);
    EXPECT_TRUE(buffer_->Allocate(p));
    return p;
  }
  void TearDown() override {
    for (auto &r : reqs_) {
      for (Piece *p : r->pieces) buffer_->Dropped(p);
    }
  }

  FileHandle file_;
  std::unique_ptr<ReorderBuffer> buffer_;
  std::unordered_map<int32_t, const FileHandle *> handles_;
  std::vector<char> discard_;
  RequestShape shape_;
  std::vector<std::unique_ptr<PendingRead>> reqs_;
};

TEST_F(RequestBuilderTest, SortsAscendingAndFillsSmallGaps) {
  shape_.infill_max = 32 * 1024;
  // Given out of order; 8 KiB gap (filled), then a 64 KiB gap (not filled).
  reqs_ = BuildRequests({P(3 * 4096 + 8192, 4096), P(0, 4096), P(4096, 8192),
                         P(3 * 4096 + 8192 + 4096 + 65536, 4096)},
                        shape_, handles_);
  ASSERT_EQ(reqs_.size(), 2u);
  const PendingRead &a = *reqs_[0];
  EXPECT_EQ(a.req.offset, 0u);
  EXPECT_EQ(a.pieces.size(), 3u);
  EXPECT_EQ(a.gap_bytes, 8192u);  // 12288 .. 20480 is read into the discard buffer
  EXPECT_EQ(a.req.length, 3 * 4096u + 8192 + 4096);
  EXPECT_EQ(a.piece_bytes, 4 * 4096u);
  FillIov(reqs_[0].get(), shape_);
  // Pieces 0 and 1 were allocated one after the other: their pages merge into one vector.
  size_t total = 0;
  for (const auto &v : a.req.iov) total += v.iov_len;
  EXPECT_EQ(total, a.req.length);
  bool has_gap = false;
  for (const auto &v : a.req.iov) has_gap |= v.iov_base == discard_.data() && v.iov_len == 8192;
  EXPECT_TRUE(has_gap);
  EXPECT_EQ(reqs_[1]->pieces.size(), 1u);
}

TEST_F(RequestBuilderTest, NoInfillMergesOnlyAdjacentPieces) {
  shape_.infill_max = 0;
  reqs_ = BuildRequests({P(0, 4096), P(4096, 4096), P(12288, 4096)}, shape_, handles_);
  ASSERT_EQ(reqs_.size(), 2u);
  EXPECT_EQ(reqs_[0]->req.length, 8192u);
  EXPECT_EQ(reqs_[0]->gap_bytes, 0u);
}

TEST_F(RequestBuilderTest, VectorsFollowThePagesOfEachPiece) {
  shape_.infill_max = 0;
  Piece *a = P(0, 8192);
  Piece *b = P(8192, 4096);
  reqs_ = BuildRequests({b, a}, shape_, handles_);
  ASSERT_EQ(reqs_.size(), 1u);
  FillIov(reqs_[0].get(), shape_);
  uint64_t pos = 0;
  for (const auto &v : reqs_[0]->req.iov) pos += v.iov_len;
  EXPECT_EQ(pos, 12288u);
  EXPECT_EQ(reqs_[0]->req.iov[0].iov_base, a->pages[0]);
}

TEST_F(RequestBuilderTest, RequestsNeverExceedMaxRequest) {
  shape_.max_request = 64 * 1024;
  std::vector<Piece *> pieces;
  for (int i = 0; i < 64; ++i) pieces.push_back(P(i * 4096ull, 4096));
  reqs_ = BuildRequests(pieces, shape_, handles_);
  ASSERT_EQ(reqs_.size(), 4u);
  for (const auto &r : reqs_) EXPECT_LE(r->req.length, 64u * 1024);
}

}  // namespace pfio

namespace pfio {

// Files of the page-cache kind join gaps up to kCacheJoinGapLocal with their neighbours
// (kCacheJoinGapRemote on remote storage), in requests up to cache_max_request, and count them
// in the memory the read needs; the engine kind joins only infill_max.
TEST_F(RequestBuilderTest, PageCacheFilesJoinWideGapsAndChargeThem) {
  shape_.infill_max = 8192;
  shape_.max_request = 256 * 1024;
  shape_.cache_max_request = 1 << 20;
  auto tiles = [this](uint64_t row) {  // 32 KiB of every `row` bytes, 16 tiles
    std::vector<Piece *> v;
    for (uint64_t i = 0; i < 16; ++i) v.push_back(P(i * row, 32 * 1024));
    return v;
  };
  struct Case {
    pfio_buffer_kind kind;
    bool remote;
    uint64_t row;
    size_t per_request;  // tiles in the first request
  };
  // 88 KiB rows leave 56 KiB gaps (joined by either page-cache file: 1 MiB holds 12 tiles and
  // 11 gaps); 120 KiB rows leave 88 KiB (joined on remote storage only: 9 tiles and 8 gaps).
  for (const Case &c :
       {Case{PFIO_BUFFER_ENGINE, false, 88 << 10, 1}, Case{PFIO_BUFFER_ENGINE, true, 88 << 10, 1},
        Case{PFIO_BUFFER_CACHE, false, 88 << 10, 12}, Case{PFIO_BUFFER_CACHE, true, 88 << 10, 12},
        Case{PFIO_BUFFER_CACHE, false, 120 << 10, 1},
        Case{PFIO_BUFFER_CACHE, true, 120 << 10, 9}}) {
    file_.buffer = c.kind;
    file_.remote = c.remote;
    TearDown();
    reqs_ = BuildRequests(tiles(c.row), shape_, handles_);
    SCOPED_TRACE(::testing::Message()
                 << "kind " << c.kind << " remote " << c.remote << " row " << c.row);
    const uint64_t gap = c.row - 32 * 1024, n = c.per_request;
    ASSERT_EQ(reqs_.size(), (16 + n - 1) / n);
    EXPECT_EQ(reqs_[0]->pieces.size(), n);
    EXPECT_EQ(reqs_[0]->gap_bytes, (n - 1) * gap);
    EXPECT_EQ(reqs_[0]->piece_bytes, n == 1 ? 32 * 1024u : n * 32 * 1024 + (n - 1) * gap);
    EXPECT_LE(reqs_[0]->req.length, shape_.cache_max_request);
  }
}

// With cache_release, pages the plan read leave the page cache; a gap's pages nobody reads would
// stay, so page-cache files join no gap then, only pieces that touch.
TEST_F(RequestBuilderTest, WithCacheReleasePageCacheFilesJoinNoGap) {
  shape_.infill_max = 8192;
  shape_.cache_max_request = 1 << 20;
  shape_.cache_release = true;
  file_.buffer = PFIO_BUFFER_CACHE;
  for (bool remote : {false, true}) {
    file_.remote = remote;
    TearDown();
    // Two pieces that touch, then one 4 KiB past them (within infill_max).
    reqs_ = BuildRequests({P(0, 32 * 1024), P(32 * 1024, 32 * 1024), P(68 * 1024, 4096)}, shape_,
                          handles_);
    SCOPED_TRACE(remote ? "remote" : "local");
    ASSERT_EQ(reqs_.size(), 2u);
    EXPECT_EQ(reqs_[0]->pieces.size(), 2u);
    EXPECT_EQ(reqs_[0]->gap_bytes, 0u);
    EXPECT_EQ(reqs_[1]->req.offset, 68 * 1024u);
  }
}

}  // namespace pfio
