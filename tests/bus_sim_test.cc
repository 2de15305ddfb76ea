// Barve et al.: disks on a shared bus in the simulator against the paper's claims and its
// analytic model. Deterministic (seeded virtual time).
#include "sim/bus_sim.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/barve_model.h"

namespace pfio {
namespace {

BusDiskParams Params(const char *name) {
  BusDiskParams p;
  EXPECT_TRUE(LookupBusDisk(name, &p).ok());
  return p;
}

BusSimResult Sim(const BusDiskParams &p, uint32_t disks, uint64_t kib, uint32_t fence = 0,
                 bool pipeline = false, double measure_s = 10) {
  BusSimConfig c;
  c.measure_s = measure_s;
  c.disk = p;
  c.disks = disks;
  c.block = kib * 1024;
  c.fence = fence;
  c.pipeline = pipeline;
  return RunBusSim(c);
}

TEST(BarveModel, ClosedFormMinimumSeekMatchesTheIntegral) {
  for (const char *name : {"cheetah", "barracuda", "wren"}) {
    const BusDiskParams p = Params(name);
    for (uint32_t d : {1u, 2u, 4u, 7u, 16u}) {
      EXPECT_NEAR(ExpectedMinSeekMsClosedForm(p, d), ExpectedMinSeekMsIntegral(p, d), 1e-3)
          << name << " D=" << d;
    }
    // More disks: a shorter expected minimum.
    EXPECT_LT(ExpectedMinSeekMsClosedForm(p, 4), ExpectedMinSeekMsClosedForm(p, 2));
  }
  BusDiskParams none;
  EXPECT_EQ(LookupBusDisk("ibm0661", &none).code(), PFIO_EINVAL);
}

TEST(BusSim, RoundsFormAndServiceIsFair) {
  const BusDiskParams p = Params("cheetah");
  for (uint32_t d : {2u, 4u}) {
    for (uint64_t kib : {32u, 64u, 128u}) {
      const BusSimResult r = Sim(p, d, kib);
      EXPECT_GE(r.round_fraction, 0.88) << d << " disks, " << kib << " KiB";
      const auto [lo, hi] =
          std::minmax_element(r.requests_per_disk.begin(), r.requests_per_disk.end());
      EXPECT_LE(*hi - *lo, std::max<uint64_t>(2, *hi / 20)) << d << " disks, " << kib << " KiB";
    }
  }
}

// Barve's sliding-window metric scores 0.87-0.93 even for 4 KiB blocks, where no rounds form,
// because independent disks alternate by themselves. The excess over the same disks each on a
// bus of its own separates the cases: about 0 at 4 KiB, near 1 where the shared bus forces
// rounds (128 KiB blocks on 4 and 7 disks).
TEST(BusSim, RoundExcessIsLowWithoutBusCouplingAndHighWithIt) {
  for (const char *name : {"cheetah", "barracuda", "wren"}) {
    const BusDiskParams p = Params(name);
    for (uint32_t d : {4u, 7u}) {
      const BusSimResult small = Sim(p, d, 4);
      EXPECT_GT(small.round_fraction, 0.85) << name << " " << d << " disks: the old metric";
      EXPECT_LT(small.round_excess, 0.15) << name << " " << d << " disks, 4 KiB";
      const BusSimResult large = Sim(p, d, 128);
      EXPECT_GT(large.round_excess, 0.7) << name << " " << d << " disks, 128 KiB";
    }
  }
  BusSimConfig alone;
  alone.disk = Params("cheetah");
  alone.disks = 4;
  alone.block = 128 * 1024;
  alone.independent = true;
  EXPECT_EQ(RunBusSim(alone).round_excess,
            0.0);  // independent disks: nothing to add, by definition
}

TEST(BusSim, RoundMetricCountsViolations) {
  EXPECT_DOUBLE_EQ(RoundFraction({0, 1, 2, 0, 1, 2}, 3), 1.0);
  EXPECT_LT(RoundFraction({0, 0, 0, 0, 1, 1}, 2), 0.7);
}

TEST(BusSim, AgreesWithTheModelWithin12PercentOnCheetah) {
  const BusDiskParams p = Params("cheetah");
  for (uint32_t d = 1; d <= 7; ++d) {
    for (uint64_t kib : {16u, 32u, 64u, 96u, 128u}) {
      // 40 s of virtual time: one 10 s run varies by +-1.5 % between seeds (3 disks, 16 KiB:
      // -10.3 .. -12.9 % over seeds 1-8, mean -11.7 %), which is the margin this claim has.
      const double sim = Sim(p, d, kib, 0, false, 40).mb_s,
                   model = ModelMbPerS(p, d, kib * 1024, 0);
      EXPECT_NEAR(sim, model, 0.12 * model) << d << " disks, " << kib << " KiB";
    }
  }
}

TEST(BusSim, PipelineLosesOnSmallBlocksAndGainsOnLargeOnes) {
  const BusDiskParams p = Params("cheetah");
  for (uint32_t d : {2u, 3u, 4u}) {
    EXPECT_LT(Sim(p, d, 8, 0, true).mb_s, Sim(p, d, 8).mb_s) << d << " disks";
  }
  double gain4 = 0;
  for (uint32_t d : {3u, 4u}) {
    const double gain = Sim(p, d, 128, 0, true).mb_s / Sim(p, d, 128).mb_s - 1;
    EXPECT_GE(gain, 0.10) << d << " disks";
    if (d == 4) gain4 = gain;
  }
  const double gain7 = Sim(p, 7, 128, 0, true).mb_s / Sim(p, 7, 128).mb_s - 1;
  EXPECT_LT(gain7, gain4);  // a smaller gain as D grows
}

TEST(BusDiskOverride, SetsFieldsInTheirUnitsAndRefitsTheSeekCurve) {
  BusDiskParams p = Params("wren");
  ASSERT_TRUE(OverrideBusDisk("bus_rate=5,cmd_bus_ms=0.05,avg_seek_ms=15", &p).ok());
  EXPECT_DOUBLE_EQ(p.bus_rate, 5e6);
  EXPECT_DOUBLE_EQ(p.cmd_bus_ms, 0.05);
  // The refitted curve's mean over uniform random distances is the new average seek.
  double sum = 0;
  const int steps = 4000;
  for (int i = 0; i < steps; ++i) {
    const double x = (i + 0.5) / steps;
    sum += 2 * (1 - x) * p.SeekMs(static_cast<uint64_t>(x * p.max_cyl)) / steps;
  }
  EXPECT_NEAR(sum, 15.0, 0.1);
  const double slower = Sim(p, 4, 64).mb_s;
  ASSERT_TRUE(OverrideBusDisk("bus_rate=2", &p).ok());
  EXPECT_LT(Sim(p, 4, 64).mb_s, slower);  // the override reaches the simulation
}

TEST(BusDiskOverride, BadKeysAndValuesAreNamed) {
  BusDiskParams p = Params("cheetah");
  Status s = OverrideBusDisk("bus_speed=3", &p);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("\"bus_speed\": expected host_ms"), std::string::npos) << s.message();
  s = OverrideBusDisk("head_rate=-1", &p);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("head_rate = \"-1\": expected a number in 0.1 .. 1000"),
            std::string::npos)
      << s.message();
  s = OverrideBusDisk("bus_rate=3,host_ms", &p);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("host_ms = \"\""), std::string::npos) << s.message();
  EXPECT_DOUBLE_EQ(p.head_rate, 13.2e6);  // nothing applied when an item fails
  EXPECT_DOUBLE_EQ(p.bus_rate, 16.7e6);
}

}  // namespace
}  // namespace pfio
