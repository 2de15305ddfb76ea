// StrideRun: single-extent reads at a constant stride are predicted after two repeats, a break
// drops and scores the prediction by its hit rate in bytes, misses in a row switch prediction off
// for a doubling number of reads (on again when the pattern returns), and a near shift continues
// the run at a new phase.
#include "predict/stride_run.h"

#include <gtest/gtest.h>

namespace pfio::predict {
namespace {

// Plans what the run wants, as a front end does; returns the extents' offsets.
std::vector<int64_t> PlanAhead(StrideRun *run, uint64_t offset, uint64_t length, uint32_t ramp,
                               uint64_t cap = 4096) {
  std::vector<int64_t> out;
  int64_t next = run->Next(offset);
  for (uint64_t n = run->Want(length, ramp, cap); n > 0; --n) {
    out.push_back(next);
    next += run->stride();
  }
  run->Planned(out.size(), next);
  return out;
}

// A run that switches prediction off at its first miss, for off_first reads: three reads 10
// bytes apart, a plan, and a read at `miss_at` that breaks it.
StrideRun SwitchedOffAtFirstMiss(uint64_t off_first, uint64_t miss_at) {
  StrideOptions o;
  o.misses_off = 1;
  o.off_first = off_first;
  StrideRun run(o);
  for (uint64_t i = 0; i < 3; ++i) run.Observe(i * 10, 10);
  PlanAhead(&run, 20, 10, 1);
  run.Observe(miss_at, 10);
  return run;
}

TEST(StrideRun, ARunIsPredictedAfterTwoRepeatsWithTheWholeLookAheadAtOnce) {
  StrideRun run;  // the ROMIO driver's: 64 MiB ahead, 8 to 4096 extents, no ramp
  EXPECT_FALSE(run.Observe(0, 4096).running);
  EXPECT_FALSE(run.Observe(65536, 4096).running) << "one step is not a run yet";
  StrideEvent e = run.Observe(131072, 4096);
  ASSERT_TRUE(e.running);
  EXPECT_EQ(run.stride(), 65536);
  std::vector<int64_t> plan = PlanAhead(&run, 131072, 4096, 0);
  ASSERT_EQ(plan.size(), 4096u) << "64 MiB / 4 KiB is 16384, capped at 4096";
  EXPECT_EQ(plan.front(), 196608);
  EXPECT_EQ(plan.back(), 131072 + 4096 * 65536);
  // Reads as predicted are hits and consume the look-ahead; nothing more is planned until half
  // of it is read.
  for (int i = 1; i <= 2048; ++i) {
    e = run.Observe(131072 + i * 65536, 4096);
    EXPECT_TRUE(e.hit);
    ASSERT_TRUE(e.running);
    if (i < 2048) {
      EXPECT_EQ(run.Want(4096, 0, 4096), 0u) << i;
    }
  }
  EXPECT_EQ(run.planned_ahead(), 2048u);
  EXPECT_EQ(run.Want(4096, 0, 4096), 2048u);
  EXPECT_EQ(run.Next(0), 131072 + 4097 * 65536) << "after the last planned extent";
}

TEST(StrideRun, LargeReadsPlanByBytesAndRampedRunsGrowWithTheirRepeats) {
  StrideRun run;
  run.Observe(0, 16 << 20);
  run.Observe(16 << 20, 16 << 20);
  ASSERT_TRUE(run.Observe(32 << 20, 16 << 20).running);
  EXPECT_EQ(run.Want(16 << 20, 0, 4096), 8u) << "64 MiB / 16 MiB = 4, at least 8";
  StrideRun ramped;  // the HDF5 driver's: twice the repeats for pfio, within [8, cap]
  for (uint64_t i = 0; i < 20; ++i) ramped.Observe(i * 8192, 8192);
  EXPECT_EQ(ramped.repeats(), 19u);
  EXPECT_EQ(ramped.Want(8192, 2, 4096), 38u);
  EXPECT_EQ(ramped.Want(8192, 1, 256), 19u);
  EXPECT_EQ(ramped.Want(8192, 1, 4), 8u) << "never below min_extents";
}

TEST(StrideRun, ABreakDropsThePredictionAndStartsOver) {
  StrideRun run;
  for (uint64_t i = 0; i < 3; ++i) run.Observe(i * 1000, 100);
  PlanAhead(&run, 2000, 100, 0);
  ASSERT_TRUE(run.planning());
  StrideEvent e = run.Observe(50, 100);  // backwards, off the stride
  EXPECT_TRUE(e.dropped);
  EXPECT_FALSE(e.running);
  EXPECT_FALSE(run.planning());
  EXPECT_EQ(run.planned_ahead(), 0u);
  EXPECT_FALSE(run.Observe(1050, 200).running) << "another length: no step";
  EXPECT_EQ(run.repeats(), 0u);
  EXPECT_FALSE(run.Observe(1050, 200).dropped) << "nothing was planned";
  EXPECT_EQ(run.stride(), 0);
  EXPECT_FALSE(run.Observe(1050, 200).running) << "a stride of 0 is no run";
}

TEST(StrideRun, MissesInARowSwitchPredictionOffForADoublingNumberOfReads) {
  StrideOptions o;
  o.misses_off = 3;
  o.off_first = 4;
  o.off_longest = 8;
  StrideRun run(o);
  uint64_t at = 0;
  // A run of three reads, planned, then broken at once: a miss (nothing of it was read).
  auto miss = [&] {
    at += 1 << 20;
    for (uint64_t i = 0; i < 3; ++i) run.Observe(at + i * 100, 10);
    PlanAhead(&run, at + 200, 10, 0);
    at += 1 << 20;
    return run.Observe(at, 10);
  };
  EXPECT_FALSE(miss().switched_off);
  EXPECT_FALSE(miss().switched_off);
  StrideEvent e = miss();
  EXPECT_TRUE(e.dropped);
  EXPECT_TRUE(e.switched_off);
  EXPECT_TRUE(e.off);
  int off = 1;
  uint64_t i = 1;
  for (; i < 10 && run.Observe(at + i * 100, 10).off; ++i) ++off;
  EXPECT_EQ(off, 4) << "off_first reads, the breaking one included";
  EXPECT_TRUE(run.Observe(at + (i + 1) * 100, 10).running) << "on again, the run kept counting";
  // The next three misses switch off for twice as long; then at most off_longest.
  for (int k = 0; k < 2; ++k) {
    miss();
    miss();
    e = miss();
    ASSERT_TRUE(e.switched_off);
    int n = 1;
    for (uint64_t i = 1; i < 40 && run.Observe(at + i * 100, 10).off; ++i) ++n;
    EXPECT_EQ(n, 8) << "round " << k;
  }
  // A prediction read far enough that the recent runs read more than they dropped is no miss,
  // and resets the count: the two misses before it dropped one plan and a half (halved at each
  // drop), this run reads 7/8 of its plan.
  for (int k = 0; k < 2; ++k) miss();
  at += 1 << 20;
  for (uint64_t i = 0; i < 3; ++i) run.Observe(at + i * 100, 10);
  std::vector<int64_t> plan = PlanAhead(&run, at + 200, 10, 0);
  for (size_t i = 0; i < plan.size() * 7 / 8; ++i) EXPECT_TRUE(run.Observe(plan[i], 10).hit);
  e = run.Observe(at + (1 << 30), 10);
  EXPECT_TRUE(e.dropped);
  EXPECT_FALSE(e.switched_off);
  EXPECT_FALSE(miss().switched_off) << "the count started over";
}

// The hit rate is in bytes: short runs that read 3 of every 8 extents planned (more than a
// quarter: no miss by a count of extents read) drop more than they read, and switch prediction
// off; the counts of bytes planned, read and dropped add up.
TEST(StrideRun, RunsThatDropMoreBytesThanTheyReadSwitchPredictionOff) {
  StrideOptions o;
  o.misses_off = 3;
  StrideRun run(o);
  uint64_t at = 0, planned = 0;
  StrideEvent e;
  int runs = 0;
  for (; runs < 10 && !e.switched_off; ++runs) {
    at += 1 << 20;
    for (uint64_t i = 0; i < 3; ++i) run.Observe(at + i * 4096, 48);
    std::vector<int64_t> plan = PlanAhead(&run, at + 2 * 4096, 48, 1);
    ASSERT_EQ(plan.size(), 8u);
    planned += plan.size() * 48;
    for (size_t i = 0; i < 3; ++i) ASSERT_TRUE(run.Observe(plan[i], 48).hit);
    e = run.Observe(at + (1 << 19), 48);
    EXPECT_TRUE(e.dropped);
  }
  EXPECT_TRUE(e.switched_off);
  EXPECT_EQ(runs, 3) << "three misses in a row";
  const StrideRun::Bytes b = run.bytes();
  EXPECT_EQ(b.planned, planned);
  EXPECT_EQ(b.hit, 3u * 3 * 48);
  EXPECT_EQ(b.dropped, 3u * 5 * 48);
  EXPECT_EQ(b.planned, b.hit + b.dropped + run.planned_ahead() * 48);
}

// Switched off for a long while (off_first), prediction is on again as soon as a run goes on for
// a first plan's worth of reads past its start: the pattern returned.
TEST(StrideRun, PredictionIsOnAgainWhenARunGoesOnForAFirstPlansWorthOfReads) {
  StrideRun run = SwitchedOffAtFirstMiss(1000, 1 << 20);
  ASSERT_TRUE(run.off());
  uint64_t i = 1;
  for (; i < 50 && run.Observe((1 << 20) + i * 100, 10).off; ++i) {
  }
  EXPECT_EQ(i, 2 + StrideOptions().min_extents)
      << "on at the read that makes the run min_extents + 2 long";
  EXPECT_FALSE(run.off());
  // The doubling was forgotten: the next switch-off is off_first long again.
  PlanAhead(&run, (1 << 20) + i * 100, 10, 1);
  ASSERT_TRUE(run.Observe(1 << 22, 10).switched_off);
  int n = 1;
  for (uint64_t k = 1; k < 1100 && run.Observe((1 << 22) + k * k * 7919, 10).off; ++k) ++n;
  EXPECT_EQ(n, 1000) << "reads at no stride keep it off";
}

TEST(StrideRun, ANearShiftContinuesTheRunAtANewPhaseWhenAllowed) {
  StrideOptions o;
  o.near_shift = 64 << 10;
  StrideRun run(o);
  const uint64_t stride = 1 << 20;
  for (uint64_t i = 0; i < 3; ++i) run.Observe(i * stride, 8192);
  std::vector<int64_t> plan = PlanAhead(&run, 2 * stride, 8192, 1);
  ASSERT_EQ(plan.size(), 8u);
  const int64_t next = run.Next(0);
  StrideEvent e = run.Observe(3 * stride + 4096, 8192, /*allow_near_shift=*/true);
  EXPECT_TRUE(e.shifted);
  EXPECT_TRUE(e.hit);
  EXPECT_EQ(e.phase_shift, 4096);
  EXPECT_TRUE(e.running);
  EXPECT_EQ(run.Next(0), next + 4096) << "the planned extents moved with the run";
  EXPECT_EQ(run.stride(), static_cast<int64_t>(stride));
  e = run.Observe(4 * stride + 4096, 8192, true);
  EXPECT_TRUE(e.hit);
  EXPECT_FALSE(e.shifted);
  // Not allowed (a prediction in pfio's plan), or farther than near_shift: a break.
  EXPECT_TRUE(run.Observe(5 * stride + 8192, 8192, false).dropped);
  for (uint64_t i = 6; i < 9; ++i) run.Observe(i * stride, 8192, true);
  PlanAhead(&run, 8 * stride, 8192, 1);
  e = run.Observe(9 * stride + (128 << 10), 8192, true);
  EXPECT_FALSE(e.shifted);
  EXPECT_TRUE(e.dropped);
  EXPECT_EQ(run.stride(), static_cast<int64_t>(stride + (128 << 10)));
}

TEST(StrideRun, OffsetsAtTheEndsOfSixtyFourBitsPredictNothingPastThem) {
  StrideOptions o;
  o.near_shift = 64 << 10;
  StrideRun run(o);
  const uint64_t top = static_cast<uint64_t>(INT64_MAX) - 4096;
  for (uint64_t i = 0; i < 3; ++i) run.Observe(top - (2 - i) * 1000, 10, true);
  ASSERT_TRUE(run.Observe(top + 1000, 10, true).running);
  EXPECT_EQ(run.Next(top + 1000), static_cast<int64_t>(top) + 2000);
  EXPECT_LT(run.Next(static_cast<uint64_t>(INT64_MAX)), 0) << "one stride past 2^63 - 1";
  EXPECT_LT(run.Next(UINT64_MAX), 0);
  // Jumps between the ends: no overflow, no near shift, a plain break.
  StrideEvent e = run.Observe(0, 10, true);
  EXPECT_FALSE(e.shifted);
  EXPECT_FALSE(e.running);
  e = run.Observe(UINT64_MAX - 10, 10, true);
  EXPECT_FALSE(e.shifted);
  e = run.Observe(5, 10, true);
  EXPECT_FALSE(e.shifted);
}

// Expected(): the read a run expects next, a stride past the last one, planned or not; -1
// before two repeats and while prediction is off.
TEST(StrideRun, TheExpectedReadIsAStridePastTheLastWhileARunIsOn) {
  StrideRun run;
  run.Observe(1000, 10);
  run.Observe(1100, 10);
  EXPECT_EQ(run.Expected(), -1) << "one repeat";
  run.Observe(1200, 10);
  EXPECT_EQ(run.Expected(), 1300);
  PlanAhead(&run, 1200, 10, 1);
  EXPECT_EQ(run.Expected(), 1300) << "the first extent still planned";
  run.Observe(1300, 10);
  EXPECT_EQ(run.Expected(), 1400);
  EXPECT_EQ(SwitchedOffAtFirstMiss(100, 5000).Expected(), -1) << "prediction off";
}

TEST(StrideRun, ResetForgetsTheRunButKeepsTheSwitchOffsDoubling) {
  StrideRun run = SwitchedOffAtFirstMiss(2, 5000);
  ASSERT_TRUE(run.off());
  run.Reset();
  EXPECT_FALSE(run.off());
  EXPECT_FALSE(run.planning());
  EXPECT_EQ(run.repeats(), 0u);
  for (uint64_t i = 0; i < 3; ++i) run.Observe(i * 10, 10);
  PlanAhead(&run, 20, 10, 0);
  StrideEvent e = run.Observe(9000, 10);
  ASSERT_TRUE(e.switched_off);
  int n = 1;
  for (uint64_t i = 1; i < 20 && run.Observe(9000 + i * 7, 10).off; ++i) ++n;
  EXPECT_EQ(n, 4) << "twice off_first: the doubling survived the reset";
}

}  // namespace
}  // namespace pfio::predict
