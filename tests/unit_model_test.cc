// Kimbrel's theoretical model: the Fig. 1 instance and the policies' trends on synth.
#include "sched/unit_model.h"

#include <gtest/gtest.h>

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
                 UnitPolicy::kForestall}) {
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

}  // namespace pfio
