#include <gtest/gtest.h>

#include "memory/aimd_controller.h"

namespace pfio {

constexpr uint64_t kMiB = 1 << 20;

TEST(Aimd, StartsAtNinetyPercentOfTheLimit) {
  AimdController c(1000 * kMiB, 4 * kMiB, true);
  EXPECT_EQ(c.cap(), 900 * kMiB);
  EXPECT_EQ(c.budget(), c.cap());
}

TEST(Aimd, HalvesOncePerRoundAndGrowsTenPercentAfterCleanRounds) {
  AimdController c(1000 * kMiB, 4 * kMiB, true);
  EXPECT_TRUE(c.OnContention("test"));
  EXPECT_EQ(c.budget(), 450 * kMiB);
  EXPECT_FALSE(c.OnContention("again, same round"));
  EXPECT_EQ(c.budget(), 450 * kMiB);
  c.OnRoundEnd(false);  // the round with contention: no increase
  EXPECT_EQ(c.budget(), 450 * kMiB);
  c.OnRoundEnd(true);
  EXPECT_EQ(c.budget(), 540 * kMiB);
  for (int i = 0; i < 10; ++i) c.OnRoundEnd(true);
  EXPECT_EQ(c.budget(), c.cap());  // never above the cap
  EXPECT_EQ(c.cuts(), 1u);
  EXPECT_GE(c.history().size(), 3u);
}

TEST(Aimd, NeverBelowTheFloor) {
  AimdController c(100 * kMiB, 16 * kMiB, true);
  for (int i = 0; i < 20; ++i) {
    c.OnContention("pressure");
    c.OnRoundEnd(false);
  }
  EXPECT_EQ(c.budget(), 16 * kMiB);
}

TEST(Aimd, DisabledKeepsTheBudgetFixed) {
  AimdController c(100 * kMiB, 4 * kMiB, false);
  EXPECT_FALSE(c.OnContention("pressure"));
  c.OnRoundEnd(true);
  EXPECT_EQ(c.budget(), 90 * kMiB);
}

}  // namespace pfio
