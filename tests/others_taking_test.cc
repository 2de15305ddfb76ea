// OthersTaking: growth of what programs hold that pfio's own resident memory explains is not
// contention; the same growth with pfio's memory unchanged is, once it is fast enough over two
// spans in a row; a single fast span, or one in which pfio processes came or went, is not.
#include "memory/others_taking.h"

#include <gtest/gtest.h>

namespace pfio {
namespace {

constexpr uint64_t kMiB = 1 << 20;
constexpr uint64_t kTotal = 24000 * kMiB;  // 1 % of it per second: 240 MiB/s

TEST(OthersTaking, GrowthThatPfioTookIsNotReported) {
  OthersTaking o;
  EXPECT_EQ(o.Observe(0.0, 2000 * kMiB, kTotal, 1000 * kMiB), 0u);  // opens the span
  // 500 MiB taken in each of two 0.5 s spans (1 GiB/s), all of it by pfio
  EXPECT_EQ(o.Observe(0.5, 2500 * kMiB, kTotal, 1500 * kMiB), 0u);
  EXPECT_EQ(o.Observe(1.0, 3000 * kMiB, kTotal, 2000 * kMiB), 0u);
  EXPECT_EQ(o.last_rate(), 0.0);
}

TEST(OthersTaking, GrowthThatPfioDidNotTakeIsReportedAfterTwoSpansWithItsSize) {
  OthersTaking o;
  o.Observe(0.0, 2000 * kMiB, kTotal, 1000 * kMiB);
  EXPECT_EQ(o.Observe(0.1, 2100 * kMiB, kTotal, 1000 * kMiB), 0u) << "the span is not over";
  // 170 MiB taken in 0.3 s, 20 of them by pfio: others took 150 MiB (500 MiB/s), once
  EXPECT_EQ(o.Observe(0.3, 2170 * kMiB, kTotal, 1020 * kMiB), 0u);
  EXPECT_DOUBLE_EQ(o.last_rate(), 500.0 * kMiB);
  // and again: reported, both spans
  EXPECT_EQ(o.Observe(0.6, 2320 * kMiB, kTotal, 1020 * kMiB), 300 * kMiB);
}

TEST(OthersTaking, OneFastSpanSlowGrowthOrMemoryGivenBackIsNotReported) {
  OthersTaking o;
  o.Observe(0.0, 2000 * kMiB, kTotal, 1000 * kMiB);
  // a burst of 300 MiB in 0.25 s, then 50 MiB in 0.25 s = 200 MiB/s: under 1 % of MemTotal/s
  EXPECT_EQ(o.Observe(0.25, 2300 * kMiB, kTotal, 1000 * kMiB), 0u);
  EXPECT_EQ(o.Observe(0.5, 2350 * kMiB, kTotal, 1000 * kMiB), 0u);
  EXPECT_NEAR(o.last_rate(), 200.0 * kMiB, 1.0);
  // pfio gave 400 MiB back and programs hold 300 MiB less: someone took 100 MiB in 0.25 s,
  // twice
  EXPECT_EQ(o.Observe(0.75, 2050 * kMiB, kTotal, 600 * kMiB), 0u);
  EXPECT_EQ(o.Observe(1.0, 2150 * kMiB, kTotal, 600 * kMiB), 200 * kMiB);
  // everyone gives back
  EXPECT_EQ(o.Observe(1.5, 1000 * kMiB, kTotal, 600 * kMiB), 0u);
  EXPECT_EQ(o.last_rate(), 0.0);
}

TEST(OthersTaking, ASpanInWhichPfioProcessesCameOrWentIsNotJudged) {
  OthersTaking o;
  o.Observe(0.0, 9000 * kMiB, kTotal, 6000 * kMiB, 3);
  // a peer left: its slot (3 GiB) went before its memory did
  EXPECT_EQ(o.Observe(0.3, 9000 * kMiB, kTotal, 3000 * kMiB, 2), 0u);
  EXPECT_EQ(o.Observe(0.6, 6000 * kMiB, kTotal, 3000 * kMiB, 2), 0u);
  EXPECT_EQ(o.last_rate(), 0.0) << "its memory went: nothing was taken";
}

TEST(OthersTaking, UnknownTotalIsOff) {
  OthersTaking o;
  o.Observe(0.0, 1000 * kMiB, 0, 0);
  EXPECT_EQ(o.Observe(1.0, 10000 * kMiB, 0, 0), 0u);
  EXPECT_EQ(o.Observe(2.0, 20000 * kMiB, 0, 0), 0u);
}

}  // namespace
}  // namespace pfio
