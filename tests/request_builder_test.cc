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
  // The reorder buffer's join for file_, and the page-cache kind's.
  JoinFor read_join_ = [this](int32_t) { return ReadJoin(shape_, file_); };
  JoinFor advice_join_ = [this](int32_t) { return AdviceJoin(shape_); };
  std::vector<char> discard_;
  RequestShape shape_;
  std::vector<std::unique_ptr<PendingRead>> reqs_;
};

TEST_F(RequestBuilderTest, SortsAscendingAndFillsSmallGaps) {
  shape_.infill_max = 32 * 1024;
  // Given out of order; 8 KiB gap (filled), then a 64 KiB gap (not filled).
  reqs_ = BuildRequests({P(3 * 4096 + 8192, 4096), P(0, 4096), P(4096, 8192),
                         P(3 * 4096 + 8192 + 4096 + 65536, 4096)},
                        handles_, read_join_);
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

// infill_max = auto gives files on remote storage a wider infill (infill_remote): there a request
// costs what 70-200 KiB of data does. A 64 KiB gap: two reads of a local file, one of a remote.
TEST_F(RequestBuilderTest, RemoteFilesJoinTheirOwnInfill) {
  shape_.infill_max = 8 * 1024;
  shape_.infill_remote = 128 * 1024;
  reqs_ = BuildRequests({P(0, 4096), P(4096 + 65536, 4096)}, handles_, read_join_);
  EXPECT_EQ(reqs_.size(), 2u) << "a local file joins 8 KiB gaps only";
  for (auto &r : reqs_) {
    for (Piece *p : r->pieces) buffer_->Dropped(p);
  }
  file_.remote = true;
  reqs_ = BuildRequests({P(0, 4096), P(4096 + 65536, 4096)}, handles_, read_join_);
  ASSERT_EQ(reqs_.size(), 1u) << "a remote file joins up to 128 KiB";
  EXPECT_EQ(reqs_[0]->gap_bytes, 65536u);
  EXPECT_EQ(reqs_[0]->req.length, 2 * 4096u + 65536);
  EXPECT_EQ(InfillFor(shape_, file_), 128 * 1024u);
  file_.remote = false;
  EXPECT_EQ(InfillFor(shape_, file_), 8 * 1024u);
}

TEST_F(RequestBuilderTest, NoInfillMergesOnlyAdjacentPieces) {
  shape_.infill_max = 0;
  reqs_ = BuildRequests({P(0, 4096), P(4096, 4096), P(12288, 4096)}, handles_, read_join_);
  ASSERT_EQ(reqs_.size(), 2u);
  EXPECT_EQ(reqs_[0]->req.length, 8192u);
  EXPECT_EQ(reqs_[0]->gap_bytes, 0u);
}

TEST_F(RequestBuilderTest, VectorsFollowThePagesOfEachPiece) {
  shape_.infill_max = 0;
  Piece *a = P(0, 8192);
  Piece *b = P(8192, 4096);
  reqs_ = BuildRequests({b, a}, handles_, read_join_);
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
  reqs_ = BuildRequests(pieces, handles_, read_join_);
  ASSERT_EQ(reqs_.size(), 4u);
  for (const auto &r : reqs_) EXPECT_LE(r->req.length, 64u * 1024);
}

}  // namespace pfio

namespace pfio {

// A page-cache file's new ranges join into spans over gaps up to kCacheJoinGapLocal
// (kCacheJoinGapRemote on remote storage), each span up to cache_max_request, counting the gaps
// joined; the spans are the pieces, and requests join those only where they touch. The engine
// kind's pieces join over infill_max only.
TEST_F(RequestBuilderTest, PageCacheSpansJoinWideGapsAndCountThem) {
  shape_.infill_max = 8192;
  shape_.max_request = 256 * 1024;
  shape_.cache_max_request = 1 << 20;
  auto tiles = [](uint64_t row) {  // 32 KiB of every `row` bytes, 16 tiles
    std::vector<std::pair<uint64_t, uint64_t>> v;
    for (uint64_t i = 0; i < 16; ++i) v.emplace_back(i * row, i * row + 32 * 1024);
    return v;
  };
  auto none = [](uint64_t, uint64_t) { return false; };
  struct Case {
    bool remote;
    uint64_t row;
    size_t per_span;  // tiles in the first span
  };
  // 88 KiB rows leave 56 KiB gaps (joined on either kind of storage: 1 MiB holds 12 tiles and
  // 11 gaps); 120 KiB rows leave 88 KiB (joined on remote storage only: 9 tiles and 8 gaps).
  for (const Case &c : {Case{false, 88 << 10, 12}, Case{true, 88 << 10, 12},
                        Case{false, 120 << 10, 1}, Case{true, 120 << 10, 9}}) {
    file_.remote = c.remote;
    SCOPED_TRACE(::testing::Message() << "remote " << c.remote << " row " << c.row);
    uint64_t gaps = 0;
    const auto spans = AdviceSpans(tiles(c.row), shape_, file_, none, &gaps);
    const uint64_t gap = c.row - 32 * 1024, n = c.per_span;
    ASSERT_EQ(spans.size(), (16 + n - 1) / n);
    EXPECT_EQ(spans[0].first, 0u);
    EXPECT_EQ(spans[0].second, (n - 1) * c.row + 32 * 1024);
    EXPECT_LE(spans[0].second - spans[0].first, shape_.cache_max_request);
    EXPECT_EQ(gaps, (16 - spans.size()) * gap);  // every join is one gap
  }
  // Requests: the engine kind joins its tiles over infill_max only (56 KiB gaps: none); the
  // page-cache kind's spans go one request each unless they touch.
  for (const JoinFor *join : {&read_join_, &advice_join_}) {
    const char *kind = join == &read_join_ ? "reorder buffer" : "page cache";
    file_.remote = false;
    TearDown();
    std::vector<Piece *> pieces;
    for (uint64_t i = 0; i < 8; ++i) pieces.push_back(P(i * (88 << 10), 32 * 1024));
    pieces.push_back(P(7 * (88 << 10) + 32 * 1024, 4096));  // touches the last tile
    reqs_ = BuildRequests(pieces, handles_, *join);
    ASSERT_EQ(reqs_.size(), 8u) << "kind " << kind;
    EXPECT_EQ(reqs_.back()->pieces.size(), 2u);
    EXPECT_EQ(reqs_.back()->gap_bytes, 0u);
    EXPECT_EQ(reqs_.back()->piece_bytes, 32 * 1024u + 4096);
  }
}

// With cache_release, pages the plan read leave the page cache; a gap's pages nobody reads
// would stay, so page-cache spans join no gap then, only ranges that touch (which Window's
// merged ranges never leave apart).
TEST_F(RequestBuilderTest, WithCacheReleasePageCacheSpansJoinNoGap) {
  shape_.infill_max = 8192;
  shape_.cache_max_request = 1 << 20;
  shape_.cache_release = true;
  for (bool remote : {false, true}) {
    file_.remote = remote;
    SCOPED_TRACE(remote ? "remote" : "local");
    uint64_t gaps = 0;
    const auto spans = AdviceSpans(
        {{0, 64 << 10}, {68 << 10, 72 << 10}}, shape_, file_,
        [](uint64_t, uint64_t) { return false; }, &gaps);
    ASSERT_EQ(spans.size(), 2u);
    EXPECT_EQ(spans[1].first, 68u << 10);
    EXPECT_EQ(gaps, 0u);
  }
}

// A gap that an existing piece holds is not joined over (pieces never overlap), and a range
// longer than cache_max_request stays one span (the piece mapper cuts it).
TEST_F(RequestBuilderTest, PageCacheSpansStopAtHeldGapsAndKeepLongRanges) {
  shape_.max_request = 64 << 10;
  shape_.cache_max_request = 1 << 20;
  std::vector<std::pair<uint64_t, uint64_t>> asked;
  auto held = [&](uint64_t begin, uint64_t end) {
    asked.emplace_back(begin, end);
    return begin == (40u << 10);  // the second gap holds a piece
  };
  uint64_t gaps = 0;
  const auto spans =
      AdviceSpans({{0, 32 << 10}, {36 << 10, 40 << 10}, {48 << 10, 52 << 10}, {56 << 10, 3 << 20}},
                  shape_, file_, held, &gaps);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0], std::make_pair(uint64_t{0}, uint64_t{40} << 10));
  EXPECT_EQ(spans[1], std::make_pair(uint64_t{48} << 10, uint64_t{52} << 10));
  EXPECT_EQ(spans[2], std::make_pair(uint64_t{56} << 10, uint64_t{3} << 20));  // too long to join
  EXPECT_EQ(gaps, 4u << 10);
  ASSERT_EQ(asked.size(), 2u);  // the third gap was not asked: the join would pass the span
  EXPECT_EQ(asked[1], std::make_pair(uint64_t{40} << 10, uint64_t{48} << 10));
}

}  // namespace pfio
