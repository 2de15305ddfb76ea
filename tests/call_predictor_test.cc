// CallPredictor: calls that repeat shifted by a constant are predicted; a break is a counted
// miss and clears the prediction until the pattern is seen again.
#include "collective/call_predictor.h"

#include <gtest/gtest.h>

namespace pfio::collective {
namespace {

std::vector<FileRanges> Segment(uint64_t k, uint64_t block = 100) {
  std::vector<FileRanges> plans(3);
  for (uint64_t r = 0; r < 3; ++r)
    for (uint64_t i = 0; i < 4; ++i) plans[r].push_back({(k * 12 + i * 3 + r) * block, block});
  return plans;
}

TEST(CallPredictor, PredictsShiftedRepeatsAfterTwoCalls) {
  CallPredictor p;
  EXPECT_FALSE(p.Observe(Segment(0)));
  EXPECT_FALSE(p.predicting());
  EXPECT_FALSE(p.Observe(Segment(1)));
  ASSERT_TRUE(p.predicting());
  EXPECT_EQ(p.Predicted(1), Segment(2));
  EXPECT_EQ(p.Predicted(5), Segment(6));
  EXPECT_TRUE(p.Observe(Segment(2)));
  EXPECT_TRUE(p.Observe(Segment(3)));
  EXPECT_EQ(p.hits(), 2u);
  EXPECT_EQ(p.misses(), 0u);
}

TEST(CallPredictor, ABreakIsAMissAndClearsThePrediction) {
  CallPredictor p;
  for (uint64_t k = 0; k < 4; ++k) p.Observe(Segment(k));
  EXPECT_FALSE(p.Observe(Segment(9)));  // jumped: another shift
  EXPECT_EQ(p.misses(), 1u);
  ASSERT_TRUE(p.predicting()) << "the new shift is the next guess";
  EXPECT_EQ(p.Predicted(1), Segment(15));
  std::vector<FileRanges> other = Segment(10);
  other[1][2].length = 7;  // one length differs: no shift of the previous call
  EXPECT_FALSE(p.Observe(other));
  EXPECT_EQ(p.misses(), 2u);
  EXPECT_FALSE(p.predicting());
  EXPECT_TRUE(p.Predicted(1).empty());
  p.Observe(Segment(11));
  EXPECT_EQ(p.misses(), 2u) << "no prediction existed for this call";
  EXPECT_FALSE(p.predicting());
  p.Observe(Segment(12));
  EXPECT_TRUE(p.predicting());
}

TEST(CallPredictor, IdenticalCallsAndBackwardShifts) {
  CallPredictor p;
  p.Observe(Segment(5));
  p.Observe(Segment(5));
  EXPECT_FALSE(p.predicting()) << "a shift of 0 re-reads the same bytes: nothing to read ahead";
  p.Observe(Segment(4));
  p.Observe(Segment(3));
  ASSERT_TRUE(p.predicting());
  EXPECT_EQ(p.Predicted(3), Segment(0));
  EXPECT_TRUE(p.Predicted(4).empty()) << "before offset 0";
}

}  // namespace
}  // namespace pfio::collective
