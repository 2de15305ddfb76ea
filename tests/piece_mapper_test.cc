// PieceMapper: new byte ranges -> pieces that never straddle a stripe nor exceed max_request,
// with the target, bus and target offset of each, and the file's end respected.
#include "partition/piece_mapper.h"

#include <gtest/gtest.h>

#include "layout/striped_layout.h"
#include "reorder_buffer_fixture.h"
namespace pfio {
namespace {

class PieceMapperTest : public ::testing::Test {
 protected:
  void SetUp() override { buffer_ = test::MakeReorderBuffer(); }
  std::vector<Piece *> Map(const std::map<uint64_t, uint64_t> &ranges, const Layout *layout,
                           uint64_t max_request, uint64_t file_size) {
    std::vector<Piece *> fresh;
    MapPieces(
        {{0, std::vector<std::pair<uint64_t, uint64_t>>(ranges.begin(), ranges.end())}}, layout,
        max_request, [=](int32_t) { return file_size; }, buffer_.get(), &fresh);
    return fresh;
  }
  std::unique_ptr<ReorderBuffer> buffer_;
};

TEST_F(PieceMapperTest, OneTargetSplitsOnlyAtMaxRequestAndShortensTheLastPieceAtEof) {
  // [0, 300K) in a file of 290K + 100 bytes, 128K at most per piece.
  auto pieces = Map({{0, 300 * 1024}}, nullptr, 128 * 1024, 290 * 1024 + 100);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0]->offset, 0u);
  EXPECT_EQ(pieces[0]->length, 128u * 1024);
  EXPECT_EQ(pieces[1]->offset, 128u * 1024);
  EXPECT_EQ(pieces[2]->length, 44u * 1024);
  EXPECT_EQ(pieces[2]->expected, 34u * 1024 + 100);  // what the file has
  for (Piece *p : pieces) {
    EXPECT_EQ(p->target, 0u);
    EXPECT_EQ(p->target_offset, p->offset);
  }
}

TEST_F(PieceMapperTest, StripedPiecesNeverStraddleAStripeAndKnowTheirTarget) {
  std::unique_ptr<StripedLayout> layout;
  ASSERT_TRUE(StripedLayout::Parse("stripe=64K,targets=4,buses=2", &layout).ok());
  // [32K, 200K): 32K on target 0, 64K on 1, 64K on 2, 8K on 3.
  auto pieces = Map({{32 * 1024, 200 * 1024}}, layout.get(), 1 << 20, 1 << 30);
  ASSERT_EQ(pieces.size(), 4u);
  const uint32_t targets[] = {0, 1, 2, 3};
  const uint64_t lengths[] = {32 * 1024, 64 * 1024, 64 * 1024, 8 * 1024};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(pieces[i]->target, targets[i]) << i;
    EXPECT_EQ(pieces[i]->length, lengths[i]) << i;
    EXPECT_EQ(pieces[i]->offset / (64 * 1024), (pieces[i]->end() - 1) / (64 * 1024)) << i;
  }
  EXPECT_EQ(pieces[0]->target_offset, 32u * 1024);  // first stripe row, 32K in
  EXPECT_EQ(pieces[1]->target_offset, 0u);
  EXPECT_NE(pieces[0]->bus, pieces[1]->bus);
}

}  // namespace
}  // namespace pfio
