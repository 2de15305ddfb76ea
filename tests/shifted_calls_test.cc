// ShiftedCalls: requests that repeat shifted by a constant are predicted after `confirmations`
// copies; a break is a counted miss and clears the prediction until the pattern is seen again.
#include "predict/shifted_calls.h"

#include <gtest/gtest.h>

namespace pfio::predict {
namespace {

struct Range {
  uint64_t offset = 0, length = 0;
  bool operator==(const Range &) const = default;
};
using Calls = ShiftedCalls<Range>;

// ior-hard's segment k: 3 ranks, 4 blocks each, interleaved.
Calls::Groups Segment(uint64_t k, uint64_t block = 100) {
  Calls::Groups plans(3);
  for (uint64_t r = 0; r < 3; ++r)
    for (uint64_t i = 0; i < 4; ++i) plans[r].push_back({(k * 12 + i * 3 + r) * block, block});
  return plans;
}

TEST(ShiftedCalls, PredictsShiftedRepeatsAfterTwoCalls) {
  Calls p(1);
  EXPECT_FALSE(p.Observe(Segment(0)));
  EXPECT_FALSE(p.predicting());
  EXPECT_FALSE(p.Observe(Segment(1)));
  ASSERT_TRUE(p.predicting());
  EXPECT_EQ(p.shift(), 1200);
  EXPECT_EQ(p.Predicted(1), Segment(2));
  EXPECT_EQ(p.Predicted(5), Segment(6));
  EXPECT_TRUE(p.Observe(Segment(2)));
  EXPECT_TRUE(p.Observe(Segment(3)));
  EXPECT_EQ(p.hits(), 2u);
  EXPECT_EQ(p.misses(), 0u);
}

TEST(ShiftedCalls, ABreakIsAMissAndClearsThePrediction) {
  Calls p(1);
  for (uint64_t k = 0; k < 4; ++k) p.Observe(Segment(k));
  EXPECT_FALSE(p.Observe(Segment(9)));  // jumped: another shift
  EXPECT_EQ(p.misses(), 1u);
  ASSERT_TRUE(p.predicting()) << "the new shift is the next guess";
  EXPECT_EQ(p.Predicted(1), Segment(15));
  Calls::Groups other = Segment(10);
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

TEST(ShiftedCalls, IdenticalCallsAndBackwardShifts) {
  Calls p(1);
  p.Observe(Segment(5));
  p.Observe(Segment(5));
  EXPECT_FALSE(p.predicting()) << "a shift of 0 re-reads the same bytes: nothing to read ahead";
  p.Observe(Segment(4));
  p.Observe(Segment(3));
  ASSERT_TRUE(p.predicting());
  EXPECT_EQ(p.Predicted(3), Segment(0));
  EXPECT_TRUE(p.Predicted(4).empty()) << "before offset 0";
}

TEST(ShiftedCalls, TwoConfirmationsAsTheRomioDriverAsksAndAGroupCountChangeBreaks) {
  Calls p(2);
  p.Observe(Segment(0));
  p.Observe(Segment(1));
  EXPECT_FALSE(p.predicting()) << "one copy is not yet two";
  EXPECT_EQ(p.shift(), 0);
  EXPECT_FALSE(p.Observe(Segment(2)));
  ASSERT_TRUE(p.predicting());
  EXPECT_TRUE(p.Observe(Segment(3)));
  Calls::Groups fewer = Segment(4);
  fewer.pop_back();
  EXPECT_FALSE(p.Observe(fewer));
  EXPECT_EQ(p.misses(), 1u);
  EXPECT_FALSE(p.predicting());
  EXPECT_TRUE(p.seen());
  p.Reset();
  EXPECT_FALSE(p.seen());
  p.Observe(Segment(5));
  p.Observe(Segment(7));  // shift 2400
  p.Observe(Segment(9));
  ASSERT_TRUE(p.predicting());
  EXPECT_EQ(p.Predicted(1), Segment(11));
}

TEST(ShiftedCalls, AShiftPast64BitOffsetsPredictsNothing) {
  Calls p(1);
  const uint64_t top = UINT64_MAX / 2;
  p.Observe({{{top - 2000, 10}}});
  p.Observe({{{top - 1000, 10}}});
  ASSERT_TRUE(p.predicting());
  EXPECT_FALSE(p.Predicted(1).empty());
  EXPECT_TRUE(p.Predicted(UINT64_MAX / 4000).empty());
}

}  // namespace
}  // namespace pfio::predict
