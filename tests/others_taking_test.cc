// OthersTaking: a fall of MemAvailable that pfio's own resident pages explain is not contention;
// the same fall with pfio's pages unchanged is, once it is fast enough over a whole span.
#include "memory/others_taking.h"

#include <gtest/gtest.h>

namespace pfio {
namespace {

constexpr uint64_t kMiB = 1 << 20;
constexpr uint64_t kTotal = 24000 * kMiB;  // 1 % of it per second: 240 MiB/s

TEST(OthersTaking, AFallThatPfioTookIsNotReported) {
  OthersTaking o;
  EXPECT_EQ(o.Observe(0.0, 10000 * kMiB, kTotal, 1000 * kMiB), 0u);  // opens the span
  // 500 MiB fell in 0.5 s (1 GiB/s), all of it into pfio's pages
  EXPECT_EQ(o.Observe(0.5, 9500 * kMiB, kTotal, 1500 * kMiB), 0u);
  EXPECT_EQ(o.last_rate(), 0.0);
}

TEST(OthersTaking, AFallThatPfioDidNotTakeIsReportedWithItsSize) {
  OthersTaking o;
  o.Observe(0.0, 10000 * kMiB, kTotal, 1000 * kMiB);
  EXPECT_EQ(o.Observe(0.1, 9900 * kMiB, kTotal, 1000 * kMiB), 0u) << "the span is not over";
  // 150 MiB in 0.3 s (500 MiB/s) while pfio held the same, and pfio took 20 MiB more besides
  EXPECT_EQ(o.Observe(0.3, 9830 * kMiB, kTotal, 1020 * kMiB), 150 * kMiB);
  EXPECT_DOUBLE_EQ(o.last_rate(), 500.0 * kMiB);
}

TEST(OthersTaking, ASlowFallOrMemoryGivenBackIsNotReported) {
  OthersTaking o;
  o.Observe(0.0, 10000 * kMiB, kTotal, 1000 * kMiB);
  // 50 MiB in 0.25 s = 200 MiB/s: under 1 % of MemTotal per second
  EXPECT_EQ(o.Observe(0.25, 9950 * kMiB, kTotal, 1000 * kMiB), 0u);
  EXPECT_NEAR(o.last_rate(), 200.0 * kMiB, 1.0);
  // pfio gave 400 MiB back and MemAvailable rose by 300: someone took 100 MiB in 0.25 s
  EXPECT_EQ(o.Observe(0.5, 10250 * kMiB, kTotal, 600 * kMiB), 100 * kMiB);
  // everyone gives back
  EXPECT_EQ(o.Observe(1.0, 11000 * kMiB, kTotal, 600 * kMiB), 0u);
  EXPECT_EQ(o.last_rate(), 0.0);
}

TEST(OthersTaking, UnknownTotalIsOff) {
  OthersTaking o;
  o.Observe(0.0, 10000 * kMiB, 0, 0);
  EXPECT_EQ(o.Observe(1.0, 1000 * kMiB, 0, 0), 0u);
}

}  // namespace
}  // namespace pfio
