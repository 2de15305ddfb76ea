// Kimbrel's theoretical model: the Fig. 1 instance and the policies' trends on synth.
#include "sim/unit_model.h"

#include <gtest/gtest.h>

#include <random>

#include "sim/reverse_aggressive.h"

namespace pfio {

TEST(UnitModel, Figure1AggressiveAndFixedHorizonTakeSevenOptimalSix) {
  const UnitInstance in = Figure1Instance();
  ASSERT_TRUE(CheckUnitInstance(in).ok());
  EXPECT_EQ(SimulateUnit(in, UnitPolicy::kAggressive).elapsed, 7u);
  EXPECT_EQ(SimulateUnit(in, UnitPolicy::kFixedHorizon).elapsed, 7u);
  uint64_t fetches = 0;
  EXPECT_EQ(OptimalElapsed(in, &fetches), 6u);
  EXPECT_EQ(fetches, 3u);  // C (evicting d), d again, E
  const UnitResult demand = SimulateUnit(in, UnitPolicy::kDemand);
  EXPECT_GE(demand.elapsed, 7u);
  EXPECT_EQ(demand.elapsed, 6 + demand.stall);
}

TEST(UnitModel, ElapsedIsReferencesPlusStall) {
  for (auto p : {UnitPolicy::kDemand, UnitPolicy::kFixedHorizon, UnitPolicy::kAggressive,
                 UnitPolicy::kForestall, UnitPolicy::kReverseAggressive}) {
    const UnitInstance in = SynthInstance(2, 3, 200, 64, 5);
    const UnitResult r = SimulateUnit(in, p);
    EXPECT_EQ(r.elapsed, in.refs.size() * in.ref_time + r.stall + r.fetches * in.issue_time);
    EXPECT_LE(r.utilisation, 1.0);
    EXPECT_GE(r.fetches, 200u);  // every block is fetched at least once
  }
}

TEST(UnitModel, PrefetchingBeatsDemandAndMoreDisksHelp) {
  const UnitInstance one = SynthInstance(1, 5, 400, 128, 16),
                     four = SynthInstance(4, 5, 400, 128, 16);
  for (auto p : {UnitPolicy::kFixedHorizon, UnitPolicy::kAggressive, UnitPolicy::kForestall}) {
    EXPECT_LT(SimulateUnit(four, p).elapsed, SimulateUnit(four, UnitPolicy::kDemand).elapsed);
    EXPECT_LE(SimulateUnit(four, p).elapsed, SimulateUnit(one, p).elapsed);
  }
}

TEST(UnitModel, BadInstancesAndPoliciesAreNamed) {
  UnitInstance in = Figure1Instance();
  in.disk_of[2] = 5;
  Status s = CheckUnitInstance(in);
  EXPECT_NE(s.message().find("disk 5"), std::string::npos) << s.message();
  UnitPolicy p;
  s = ParseUnitPolicy("lru", &p);
  EXPECT_NE(s.message().find("policy = \"lru\""), std::string::npos) << s.message();
  ASSERT_TRUE(ParseUnitPolicy("reverse-aggressive", &p).ok());
  EXPECT_EQ(p, UnitPolicy::kReverseAggressive);
}

// Fig. 1 worked by hand. Reverse (F E d C b A, empty cache): F E d C load free; at cursor 1 disk 0
// gives up F (next reverse use: never) for b (needed at 4); at cursor 3 it gives up E for A. The
// pass ends holding {d, C, b, A}; the forward cache starts {A, b, d, F}, so C is fetched first in
// place of F. Forward: fetch C (needed at 2) at once, fetch E (4) once A is used (release 1),
// fetch F (5) once b is used (release 2): 7 units, one more than the optimum.
TEST(UnitModel, ReverseAggressiveFigure1Plan) {
  enum { A, b, C, d, E, F };
  const UnitInstance in = Figure1Instance();
  const ReversePlan plan = BuildReverseAggressive(in);
  ASSERT_EQ(plan.pairs.size(), 3u);
  EXPECT_EQ(plan.reverse_fetches, 2u);
  const uint32_t fetch[] = {C, E, F}, evict[] = {ForwardPair::kAnyBlock, A, b};
  const uint64_t need[] = {2, 4, 5}, release[] = {0, 1, 2};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(plan.pairs[i].fetch, fetch[i]) << i;
    EXPECT_EQ(plan.pairs[i].need, need[i]) << i;
    EXPECT_EQ(plan.pairs[i].evict, evict[i]) << i;
    EXPECT_EQ(plan.pairs[i].release, release[i]) << i;
  }
  const UnitResult r = SimulateUnit(in, UnitPolicy::kReverseAggressive);
  EXPECT_EQ(r.elapsed, 7u);
  EXPECT_EQ(r.fetches, 3u);
}

// Kimbrel & Karlin's Theorem 2, checked against the exhaustive optimum on small random instances:
// OPT <= reverse aggressive <= (1 + F d / K) OPT, and never worse than demand fetching.
TEST(UnitModel, ReverseAggressiveWithinTheBoundOfTheOptimum) {
  std::mt19937 rng(7);
  uint32_t better_than_demand = 0;
  for (int trial = 0; trial < 40; ++trial) {
    UnitInstance in;
    in.cache = 3 + rng() % 2;
    in.fetch_time = 2 + rng() % 2;
    in.disks = 2;
    in.disk_of.resize(5 + rng() % 2);
    for (auto &disk : in.disk_of) disk = rng() % in.disks;
    for (int i = 0; i < 9; ++i) in.refs.push_back(rng() % in.disk_of.size());
    ASSERT_TRUE(CheckUnitInstance(in).ok());
    const uint64_t opt = OptimalElapsed(in);
    const UnitResult ra = SimulateUnit(in, UnitPolicy::kReverseAggressive);
    const UnitResult demand = SimulateUnit(in, UnitPolicy::kDemand);
    EXPECT_GE(ra.elapsed, opt) << "trial " << trial;
    EXPECT_LE(ra.elapsed * in.cache, opt * (in.cache + in.fetch_time * in.disks))
        << "trial " << trial;
    EXPECT_LE(ra.elapsed, demand.elapsed) << "trial " << trial;
    if (ra.elapsed < demand.elapsed) ++better_than_demand;
  }
  EXPECT_GE(better_than_demand, 20u);
}

}  // namespace pfio

namespace pfio {

// Kimbrel §4.2/§5 in the unit model: aggressive wins with few disks, fixed horizon with many, and
// forestall stays within a few percent of the better of the two everywhere.
TEST(UnitModel, SynthTrendsAcrossDiskCounts) {
  for (uint32_t disks : {1u, 2u, 16u}) {
    const UnitInstance in = SynthInstance(disks, 10);
    const uint64_t fh = SimulateUnit(in, UnitPolicy::kFixedHorizon).elapsed;
    const uint64_t agg = SimulateUnit(in, UnitPolicy::kAggressive).elapsed;
    const uint64_t fs = SimulateUnit(in, UnitPolicy::kForestall).elapsed;
    if (disks <= 2) {
      EXPECT_LT(agg, fh) << disks << " disks";
    }
    if (disks >= 16) {
      EXPECT_LT(fh, agg) << disks << " disks";
    }
    EXPECT_LE(fs, std::min(fh, agg) * 103 / 100) << disks << " disks";
  }
}

// Kimbrel §4.1: synth's compute times are Poisson arrivals with a 1 ms (2-unit) mean. The draws
// are whole units that add up to the exponential draws' sum, vary, and are what elapsed counts.
TEST(UnitModel, SynthPoissonComputeKeepsTheMeanAndVaries) {
  const UnitInstance in = SynthInstance(2, 10, 2000, 1280, 8, /*poisson_seed=*/1);
  ASSERT_TRUE(CheckUnitInstance(in).ok());
  ASSERT_EQ(in.ref_times.size(), in.refs.size());
  uint64_t total = 0, zeros = 0, long_ones = 0;
  for (uint32_t u : in.ref_times) {
    total += u;
    zeros += u == 0;
    long_ones += u >= 6;
  }
  EXPECT_NEAR(static_cast<double>(total) / in.refs.size(), 2.0, 0.05);
  EXPECT_GT(zeros, in.refs.size() / 5);        // P(draw < 1 unit) = 0.39 before carrying
  EXPECT_GT(long_ones, in.refs.size() / 100);  // P(draw >= 6 units) = 0.05
  for (auto p : {UnitPolicy::kFixedHorizon, UnitPolicy::kAggressive}) {
    const UnitResult r = SimulateUnit(in, p);
    EXPECT_EQ(r.elapsed, total + r.stall + r.fetches * in.issue_time);
  }
  EXPECT_EQ(SynthInstance(2, 10, 2000, 1280, 8, 1).ref_times, in.ref_times);  // seeded
  UnitInstance bad = in;
  bad.ref_times.pop_back();
  EXPECT_NE(CheckUnitInstance(bad).message().find("compute times for"), std::string::npos);
}

// Reverse aggressive as a yardstick (§4.3-4.4: tuned F, "never much better than the best of the
// other algorithms", and one of fixed horizon or aggressive is always close to it).
TEST(UnitModel, SynthReverseAggressiveTracksTheBetterPolicy) {
  for (uint32_t disks : {1u, 4u, 16u}) {
    const UnitInstance in = SynthInstance(disks, 10);
    const uint64_t fh = SimulateUnit(in, UnitPolicy::kFixedHorizon).elapsed;
    const uint64_t agg = SimulateUnit(in, UnitPolicy::kAggressive).elapsed;
    const uint64_t demand = SimulateUnit(in, UnitPolicy::kDemand).elapsed;
    uint32_t f = 0;
    const UnitResult ra = SimulateReverseAggressiveTuned(in, &f);
    EXPECT_LE(ra.elapsed, std::min(fh, agg) * 102 / 100) << disks << " disks, F = " << f;
    EXPECT_GE(ra.elapsed, std::min(fh, agg) * 90 / 100) << disks << " disks, F = " << f;
    EXPECT_LT(ra.elapsed, demand) << disks << " disks";
  }
}

}  // namespace pfio
