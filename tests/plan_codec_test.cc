// PlanCodec: every plan shape survives the wire exactly, regular shapes cost a few bytes, and
// malformed messages are refused by name.
#include "collective/plan_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace pfio::collective {
namespace {

FileRanges RoundTrip(const FileRanges &plan) {
  std::vector<uint8_t> wire = EncodePlan(plan);
  FileRanges back;
  EXPECT_TRUE(DecodePlan(wire.data(), wire.size(), 1u << 30, &back).ok());
  return back;
}

TEST(PlanCodec, EmptyPlanIsOneByte) {
  EXPECT_EQ(EncodePlan({}).size(), 1u);
  EXPECT_TRUE(RoundTrip({}).empty());
}

TEST(PlanCodec, InterleavedBlocksCollapseToOneRecord) {
  // ior-hard: rank 1 of 4, 100 blocks of 47008 bytes.
  FileRanges plan;
  for (uint64_t i = 0; i < 100; ++i) plan.push_back({(4 * i + 1) * 47008, 47008});
  std::vector<uint8_t> wire = EncodePlan(plan);
  EXPECT_LE(wire.size(), 12u) << "100 strided extents";
  EXPECT_EQ(RoundTrip(plan), plan);
}

TEST(PlanCodec, RandomPermutationCostsAFewBytesPerExtent) {
  const uint64_t blocks = 22000, block = 47008;
  std::vector<uint64_t> order(blocks);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
  FileRanges plan;
  for (size_t i = 0; i < 400; ++i) plan.push_back({order[i] * block, block});
  std::vector<uint8_t> wire = EncodePlan(plan);
  EXPECT_LE(wire.size(), 400u * 8) << "bytes per extent: " << wire.size() / 400.0;
  EXPECT_EQ(RoundTrip(plan), plan);
}

TEST(PlanCodec, KeepsOrderRepeatsOverlapsAndBackwardStrides) {
  FileRanges plan = {{100, 10}, {100, 10}, {105, 10},           {90, 10},  {80, 10},       {70, 10},
                     {0, 0},    {7, 1},    {UINT64_MAX - 5, 5}, {3, 4096}, {1ull << 60, 1}};
  EXPECT_EQ(RoundTrip(plan), plan);
}

TEST(PlanCodec, RandomPlansRoundTrip) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    FileRanges plan;
    const int n = static_cast<int>(rng() % 300);
    uint64_t at = rng() % (1ull << 40);
    for (int i = 0; i < n; ++i) {
      if (rng() % 4 == 0) at = rng() % (1ull << 40);
      const uint64_t len = (rng() % 3 == 0) ? 4096 : rng() % 100000;
      plan.push_back({at, len});
      at += len + (rng() % 2 ? 0 : rng() % 5000);
    }
    ASSERT_EQ(RoundTrip(plan), plan) << "trial " << trial;
  }
}

TEST(PlanCodec, RefusesTruncatedTrailingAndOversizedMessages) {
  FileRanges plan = {{0, 10}, {20, 10}, {40, 10}, {1000, 3}};
  std::vector<uint8_t> wire = EncodePlan(plan);
  FileRanges out = {{1, 1}};
  for (size_t cut = 0; cut < wire.size(); ++cut) {
    const std::string why = DecodePlan(wire.data(), cut, 1000, &out).message();
    EXPECT_NE(why.find("truncated"), std::string::npos) << "cut at " << cut << ": " << why;
  }
  std::vector<uint8_t> longer = wire;
  longer.push_back(0);
  EXPECT_NE(DecodePlan(longer.data(), longer.size(), 1000, &out).message().find("1 bytes after"),
            std::string::npos);
  EXPECT_NE(DecodePlan(wire.data(), wire.size(), 3, &out).message().find("more than 3 extents"),
            std::string::npos);
  const uint8_t zero_count[] = {1, 0, 0, 5};
  EXPECT_NE(DecodePlan(zero_count, sizeof zero_count, 1000, &out).message().find("count 0"),
            std::string::npos);
  EXPECT_EQ(out, (FileRanges{{1, 1}})) << "nothing appended on error";
}

TEST(PlanCodec, RefusesExtentsPastTwoToTheSixtyFour) {
  const FileRanges plan = {{UINT64_MAX - 5, 5}};
  std::vector<uint8_t> wire = EncodePlan(plan);
  wire[wire.size() - 1] = 9;  // length 9 from 2^64 - 6
  FileRanges out;
  EXPECT_NE(DecodePlan(wire.data(), wire.size(), 10, &out).message().find("past 2^64"),
            std::string::npos);
}

}  // namespace
}  // namespace pfio::collective
