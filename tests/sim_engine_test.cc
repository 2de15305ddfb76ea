// The real engine on the sim backend (virtual time, deterministic): every byte verifies, rounds
// form, staging (LoadIntoDiskBuffer) gains on large blocks and switches itself off where it
// cannot, the issue policies behave as Kimbrel describes, and a budget cut evicts by Belady.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "scripted_signals.h"
#include "sim/engine_workload.h"

namespace pfio {
namespace {

constexpr uint64_t kKiB = 1024;

// These tests are about the engine's mechanisms, so they run on disks whose constants do not
// move when the fit to Barve's tables (research/scripts/fit_barve.py) is redone: the published disk
// on its nominal bus (20 MB/s; Wren 5 MB/s), a 0.05 ms command and the host's 0.25 ms (Wren 0.5 ms)
// for a LoadIntoDiskBuffer. (On the fitted Cheetah, 16.7 MB/s, four disks of 128 KiB blocks nearly
// fill the bus and staging gains 4 %; research/simulations.md has that table.)
EngineWorkload Workload(uint32_t disks, uint64_t block, uint32_t reads, pfio_stage stage,
                        const char *params = "cheetah") {
  EngineWorkload w = DefaultEngineWorkload();
  EXPECT_TRUE(LookupBusDisk(params, &w.sim.disk).ok());
  const std::string nominal = std::string(params) == "wren"
                                  ? "bus_rate=5,cmd_bus_ms=0.05,stage_host_ms=0.5,avg_seek_ms=15"
                                  : "bus_rate=20,cmd_bus_ms=0.05,stage_host_ms=0.25";
  EXPECT_TRUE(OverrideBusDisk(nominal, &w.sim.disk).ok());
  w.sim.disks = disks;
  w.sim.stripe = block;
  w.block = block;
  w.reads = reads;
  w.config.stage = stage;
  return w;
}

EngineWorkloadResult Simulate(EngineWorkload w) {
  EngineWorkloadResult r;
  Status s = RunEngineWorkload(w, &r);
  EXPECT_TRUE(s.ok()) << s.message();
  return r;
}

TEST(SimEngine, EveryByteVerifiesRoundsFormAndDisksShareTheWork) {
  const EngineWorkloadResult r = Simulate(Workload(4, 128 * kKiB, 600, PFIO_STAGE_NONE));
  EXPECT_EQ(r.bytes_verified, 600 * 128 * kKiB);
  EXPECT_EQ(r.stats.misses, 0u);
  EXPECT_EQ(r.stats.hits, 600u);
  EXPECT_STREQ(r.stats.backend, "sim");
  EXPECT_GE(r.round_fraction, 0.88);
  const auto [lo, hi] =
      std::minmax_element(r.sim.reads_per_disk.begin(), r.sim.reads_per_disk.end());
  EXPECT_GT(*lo, 0u);
  EXPECT_LE(*hi - *lo, *hi / 4) << "reads per disk are uneven";
}

TEST(SimEngine, IsDeterministic) {
  const EngineWorkloadResult a = Simulate(Workload(3, 64 * kKiB, 300, PFIO_STAGE_DEVICE));
  const EngineWorkloadResult b = Simulate(Workload(3, 64 * kKiB, 300, PFIO_STAGE_DEVICE));
  EXPECT_EQ(a.elapsed_s, b.elapsed_s);
  EXPECT_EQ(a.sim.completion_disks, b.sim.completion_disks);
}

TEST(SimEngine, PrefetchingBeatsTheApplicationsOwnReads) {
  EngineWorkload direct = Workload(4, 64 * kKiB, 600, PFIO_STAGE_NONE);
  direct.prefetch = false;
  const double alone = Simulate(std::move(direct)).elapsed_s;
  const double pfio = Simulate(Workload(4, 64 * kKiB, 600, PFIO_STAGE_NONE)).elapsed_s;
  EXPECT_LT(pfio, 0.6 * alone) << "pfio " << pfio << " s, direct " << alone << " s";
}

TEST(SimEngine, StagingGainsOnLargeBlocksWithThreeAndFourDisks) {
  for (uint32_t disks : {3u, 4u}) {
    const EngineWorkloadResult none = Simulate(Workload(disks, 128 * kKiB, 1000, PFIO_STAGE_NONE));
    const EngineWorkloadResult staged =
        Simulate(Workload(disks, 128 * kKiB, 1000, PFIO_STAGE_DEVICE));
    EXPECT_LT(staged.elapsed_s, 0.95 * none.elapsed_s) << disks << " disks";
    EXPECT_GT(staged.stats.stages, 500u);
    // Staged blocks are read from the drive cache, not from the platter again.
    EXPECT_GE(staged.sim.from_cache, staged.stats.stages * 9 / 10);
    EXPECT_EQ(staged.bytes_verified, 1000 * 128 * kKiB);
  }
}

TEST(SimEngine, StagingIsOffBelow64KiBAndTheStatsSaySo) {
  const EngineWorkloadResult r = Simulate(Workload(4, 32 * kKiB, 400, PFIO_STAGE_AUTO));
  EXPECT_STREQ(r.stats.stage_mode, "device");
  EXPECT_EQ(r.stats.stages, 0u);
  EXPECT_GT(r.stats.stages_small, 0u);
  EXPECT_NE(std::string(r.stats.stage_note).find("64 KiB"), std::string::npos)
      << r.stats.stage_note;
  EXPECT_EQ(r.sim.from_cache, 0u);
}

TEST(SimEngine, StagingIsOffWhenTheModelSeesNoBusTimeToGain) {
  // Seven Wren disks move 256 KiB blocks at 4.7 of the bus's 5 MB/s already (eqs. 3/4).
  const EngineWorkloadResult r = Simulate(Workload(7, 256 * kKiB, 100, PFIO_STAGE_AUTO, "wren"));
  EXPECT_STREQ(r.stats.stage_mode, "none");
  EXPECT_EQ(r.stats.stages, 0u);
  EXPECT_NE(std::string(r.stats.stage_note).find("model"), std::string::npos) << r.stats.stage_note;
}

TEST(SimEngine, FixedHorizonHoldsReadsBackAndStallsMoreWhenIoBound) {
  EngineWorkload fh = Workload(4, 64 * kKiB, 600, PFIO_STAGE_NONE);
  fh.config.policy = PFIO_POLICY_FIXED_HORIZON;
  fh.config.horizon = 2;
  const EngineWorkloadResult h = Simulate(std::move(fh));
  const EngineWorkloadResult a = Simulate(Workload(4, 64 * kKiB, 600, PFIO_STAGE_NONE));
  EXPECT_STREQ(h.stats.policy, "fixed-horizon");
  EXPECT_GT(h.stats.policy_holds, 0u);
  EXPECT_EQ(a.stats.policy_holds, 0u);
  EXPECT_GT(h.stats.stall_seconds, a.stats.stall_seconds);
  EXPECT_EQ(h.bytes_verified, a.bytes_verified);
}

TEST(SimEngine, ForestallIsNeverFarFromTheBetterOfTheOtherTwo) {
  for (double compute_ms : {0.0, 4.0, 20.0}) {
    double best = 1e300, forestall = 0;
    for (pfio_policy p :
         {PFIO_POLICY_AGGRESSIVE, PFIO_POLICY_FIXED_HORIZON, PFIO_POLICY_FORESTALL}) {
      EngineWorkload w = Workload(4, 64 * kKiB, 500, PFIO_STAGE_NONE);
      w.compute_s = compute_ms / 1000;
      w.config.policy = p;
      const double t = Simulate(std::move(w)).elapsed_s;
      if (p == PFIO_POLICY_FORESTALL) {
        forestall = t;
      } else {
        best = std::min(best, t);
      }
    }
    EXPECT_LE(forestall, 1.05 * best) << compute_ms << " ms of compute per read";
  }
}

using test::ScriptedSignals;

TEST(SimEngine, ABudgetCutEvictsTheFurthestPiecesAndLosesNothing) {
  // Compute-bound (20 ms per read), so the disks fill the budget ahead of the reads; the 9th
  // memory sample reports pressure while a window is being issued and the budget halves.
  EngineWorkload w = Workload(4, 64 * kKiB, 1500, PFIO_STAGE_NONE);
  w.config.budget = 32ull << 20;
  w.config.aimd = 1;
  w.compute_s = 0.02;
  w.signals = std::make_unique<ScriptedSignals>(std::set<int>{8});
  const EngineWorkloadResult r = Simulate(std::move(w));
  EXPECT_GE(r.stats.budget_cuts, 1u);
  EXPECT_GT(r.stats.evictions, 0u);
  EXPECT_EQ(r.stats.bytes_evicted % (4 * kKiB), 0u);
  EXPECT_EQ(r.bytes_verified, 1500 * 64 * kKiB);
  EXPECT_EQ(r.stats.misses, 0u);
}

TEST(SimEngine, BadBackendSettingsAreNamed) {
  EngineWorkload w = Workload(4, 64 * kKiB, 10, PFIO_STAGE_NONE);
  w.sim.buses = 5;
  EngineWorkloadResult r;
  Status s = RunEngineWorkload(w, &r);
  EXPECT_EQ(s.code(), PFIO_EINVAL);
  EXPECT_NE(s.message().find("buses = 5"), std::string::npos) << s.message();
  EngineWorkload v = Workload(4, 64 * kKiB, 10, PFIO_STAGE_LADVISE);
  s = RunEngineWorkload(v, &r);
  EXPECT_EQ(s.code(), PFIO_EINVAL);
  EXPECT_NE(s.message().find("ladvise"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace pfio

namespace pfio {
namespace {

TEST(SimEngine, ASecondBusCarriesMoreWhenOneBusIsTheLimit) {
  // Eight Cheetah disks at 128 KiB saturate one 20 MB/s bus; on two buses (disk i on bus i % 2)
  // each bus carries four.
  const EngineWorkloadResult one = Simulate(Workload(8, 128 * kKiB, 800, PFIO_STAGE_NONE));
  EngineWorkload w = Workload(8, 128 * kKiB, 800, PFIO_STAGE_NONE);
  w.sim.buses = 2;
  const EngineWorkloadResult two = Simulate(std::move(w));
  EXPECT_GT(one.mb_s, 15);
  EXPECT_GT(two.mb_s, 1.3 * one.mb_s) << "one bus " << one.mb_s << " MB/s, two " << two.mb_s;
  EXPECT_EQ(two.bytes_verified, 800 * 128 * kKiB);
}

}  // namespace
}  // namespace pfio
