// IssuePolicy: Kimbrel's issue rules on measured service and consumption times.
#include "sched/issue_policy.h"

#include <gtest/gtest.h>

namespace pfio {
namespace {

void Feed(IssuePolicy *p, uint32_t target, double service_s, double compute_s, int n = 100) {
  for (int i = 0; i < n; ++i) {
    p->OnServiced(target, service_s);
    p->OnConsumed(compute_s);
  }
}

TEST(RecentSamples, KeepsTheLastHundred) {
  RecentSamples s(100);
  for (int i = 0; i < 150; ++i) s.Add(i < 50 ? 1000 : 1);
  EXPECT_EQ(s.count(), 100u);
  EXPECT_DOUBLE_EQ(s.sum(), 100);
  EXPECT_DOUBLE_EQ(s.mean(), 1);
}

TEST(IssuePolicy, AggressiveAlwaysIssues) {
  IssuePolicy p(PFIO_POLICY_AGGRESSIVE, 0, 0, 2);
  Feed(&p, 0, 0.010, 0.001);
  EXPECT_TRUE(p.MayIssue(0, 1000000, 0));
}

// The engine reads the clock at each consumption only for a policy that uses the gaps.
TEST(IssuePolicy, OnlyAggressiveNeedsNoConsumptionGaps) {
  EXPECT_FALSE(IssuePolicy(PFIO_POLICY_AGGRESSIVE, 0, 0, 1).TimesConsumption());
  EXPECT_TRUE(IssuePolicy(PFIO_POLICY_FIXED_HORIZON, 0, 0, 1).TimesConsumption());
  EXPECT_TRUE(IssuePolicy(PFIO_POLICY_FORESTALL, 0, 0, 1).TimesConsumption());
}

TEST(IssuePolicy, EveryPolicyIssuesUntilItHasMeasurements) {
  IssuePolicy fh(PFIO_POLICY_FIXED_HORIZON, 4, 0, 1);
  EXPECT_TRUE(fh.MayIssue(0, 1000, 0));
  Feed(&fh, 0, 0.010, 0.001, static_cast<int>(IssuePolicy::kWarmup) - 1);
  EXPECT_TRUE(fh.MayIssue(0, 1000, 0));
  Feed(&fh, 0, 0.010, 0.001, 1);
  EXPECT_FALSE(fh.MayIssue(0, 1000, 0));
}

TEST(IssuePolicy, FixedHorizonIssuesWithinH) {
  IssuePolicy p(PFIO_POLICY_FIXED_HORIZON, 8, 0, 1);
  Feed(&p, 0, 0.010, 0.001);
  EXPECT_TRUE(p.MayIssue(0, 8, 0));
  EXPECT_FALSE(p.MayIssue(0, 9, 0));
}

TEST(IssuePolicy, MeasuredHorizonIsTheRatioOfServiceToCompute) {
  IssuePolicy p(PFIO_POLICY_FIXED_HORIZON, 0, 0, 2);
  Feed(&p, 0, 0.010, 0.001);  // F = 10
  Feed(&p, 1, 0.004, 0.001);  // F = 4 (the gaps are shared)
  EXPECT_NEAR(p.F(0), 10, 1e-9);
  EXPECT_NEAR(p.F(1), 4, 1e-9);
  EXPECT_EQ(p.Horizon(), 10u);
}

TEST(IssuePolicy, ForestallUsesFourFOnSlowDisksAndCountsWorkAhead) {
  // Mean service 10 ms (>= 5 ms): F' = 4F = 40; with 2 reads ahead the test is 3 * 40 >= d.
  IssuePolicy p(PFIO_POLICY_FORESTALL, 1, 0, 1);
  Feed(&p, 0, 0.010, 0.001);
  EXPECT_NEAR(p.FPrime(0), 40, 1e-9);
  EXPECT_TRUE(p.MayIssue(0, 120, 2));
  EXPECT_FALSE(p.MayIssue(0, 121, 2));
  EXPECT_TRUE(p.MayIssue(0, 40, 0));
  EXPECT_FALSE(p.MayIssue(0, 41, 0));
  EXPECT_TRUE(p.MayIssue(0, 1, 0));  // within H
}

TEST(IssuePolicy, ForestallUsesFOnFastDisksOrAFixedFactor) {
  IssuePolicy fast(PFIO_POLICY_FORESTALL, 1, 0, 1);
  Feed(&fast, 0, 0.002, 0.001);  // 2 ms < 5 ms: F' = F = 2
  EXPECT_NEAR(fast.FPrime(0), 2, 1e-9);
  IssuePolicy fixed(PFIO_POLICY_FORESTALL, 1, 8, 1);
  Feed(&fixed, 0, 0.002, 0.001);
  EXPECT_NEAR(fixed.FPrime(0), 16, 1e-9);
}

TEST(IssuePolicy, NoComputeMeansIssueEverything) {
  IssuePolicy p(PFIO_POLICY_FORESTALL, 1, 0, 1);
  Feed(&p, 0, 0.010, 0.0);
  EXPECT_TRUE(p.MayIssue(0, 1u << 30, 0));
}

}  // namespace
}  // namespace pfio
