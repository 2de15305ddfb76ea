// MemoryGovernor: the budget check with bookkeeping, the wait for free memory, AIMD rounds and
// cuts from the signals, and Belady's victim with do no harm.
#include "memory/memory_governor.h"

#include <gtest/gtest.h>

#include "scripted_signals.h"

namespace pfio {
namespace {

constexpr uint64_t kMiB = 1 << 20;

TEST(MemoryGovernor, FitsCountsWhatIsHeldAndTheWaitEndsWhenMemoryIsFree) {
  MemoryGovernor g(100 * kMiB, 4 * kMiB, true,
                   std::make_unique<test::ScriptedSignals>(std::set<int>{}));
  EXPECT_EQ(g.budget(), AimdController::Cap(100 * kMiB));
  EXPECT_TRUE(g.Fits(g.budget() - kMiB, kMiB));
  EXPECT_FALSE(g.Fits(g.budget() - kMiB, kMiB + 1));
  EXPECT_EQ(MemoryGovernor::Metadata(10, 3),
            10 * MemoryGovernor::kEntryMeta + 3 * MemoryGovernor::kPieceMeta);
  EXPECT_FALSE(g.WaitOver(0));  // nothing awaited
  g.Wait(2 * kMiB);
  EXPECT_FALSE(g.WaitOver(g.budget() - kMiB));
  EXPECT_TRUE(g.WaitOver(g.budget() - 2 * kMiB));
  EXPECT_FALSE(g.WaitOver(0));  // over once
}

TEST(MemoryGovernor, SignalsCutOncePerRoundAndACleanRoundGrows) {
  MemoryGovernor g(100 * kMiB, 4 * kMiB, true,
                   std::make_unique<test::ScriptedSignals>(std::set<int>{1, 2}));
  const uint64_t cap = g.budget();
  EXPECT_FALSE(g.Sample());  // sample 0: quiet
  EXPECT_TRUE(g.Sample());   // sample 1: pressure: halve
  EXPECT_EQ(g.budget(), PageAlignDown(cap / 2));
  EXPECT_FALSE(g.Sample());  // sample 2: pressure again in the same round: no second cut
  EXPECT_EQ(g.cuts(), 1u);
  g.Consumed(g.budget());  // the round ends (it saw contention: no growth)
  const uint64_t after_cut = g.budget();
  g.Consumed(g.budget());  // a clean round: +10 % of the cap
  EXPECT_GT(g.budget(), after_cut);
  EXPECT_FALSE(g.history().empty());
}

TEST(MemoryGovernor, SampleIfDueSamplesAtMostEveryTenMilliseconds) {
  MemoryGovernor g(100 * kMiB, 4 * kMiB, true,
                   std::make_unique<test::ScriptedSignals>(std::set<int>{0, 1}));
  EXPECT_TRUE(g.SampleIfDue(1.0));
  EXPECT_FALSE(g.SampleIfDue(1.005));  // not due: the signal's second pressure is not read yet
  g.Consumed(g.budget());              // new round
  EXPECT_TRUE(g.SampleIfDue(1.02));
}

TEST(MemoryGovernor, AGovernorStartedFromASampleSamplesAgainOnlyAfterAPeriod) {
  double now = 50.0;
  MemorySample first;
  first.total = 2000 * kMiB;
  first.headroom = 1000 * kMiB;
  MemoryGovernor g(
      100 * kMiB, 4 * kMiB, true, std::make_unique<test::ScriptedSignals>(std::set<int>{}), nullptr,
      /*share_node=*/true, [&now] { return now; }, &first);
  bool sampled = true;
  g.SampleIfDue(now + MemoryGovernor::kSampleEvery / 2, 0, 0, UINT64_MAX, &sampled);
  EXPECT_FALSE(sampled) << "a new context's first read sampled again";
  g.SampleIfDue(now + 2 * MemoryGovernor::kSampleEvery, 0, 0, UINT64_MAX, &sampled);
  EXPECT_TRUE(sampled);
}

// `p` read and landed: its pages taken, its read issued and back.
void Land(ReorderBuffer &buffer, Piece *p) {
  ASSERT_TRUE(buffer.Allocate(p));
  buffer.Issued(p);
  buffer.Landed(p, true, 0);
}

TEST(MemoryGovernor, VictimIsTheFurthestLandedPieceOnlyIfNeededLater) {
  std::unique_ptr<BufferPool> pool;
  ASSERT_TRUE(BufferPool::Create(16 * kMiB, &pool).ok());
  ReorderBuffer buffer(std::move(pool));
  buffer.TrackResident();
  EXPECT_EQ(MemoryGovernor::Victim(buffer, 0, false), nullptr);
  Piece *near = buffer.Create(0, 0, 4096, 4096);
  Piece *far = buffer.Create(0, 4096, 4096, 4096);
  buffer.Ref(near, 5);
  buffer.Ref(far, 50);
  for (Piece *p : {near, far}) ASSERT_NO_FATAL_FAILURE(Land(buffer, p));
  EXPECT_EQ(MemoryGovernor::Victim(buffer, 10, false), far);
  EXPECT_EQ(MemoryGovernor::Victim(buffer, 60, false), nullptr);  // do no harm
  buffer.Served(far);  // read from: no longer a candidate
  EXPECT_EQ(MemoryGovernor::Victim(buffer, 1, false), near);
}

TEST(MemoryGovernor, APieceReadFromThatALaterEntryNeedsIsAVictimOnlyWhenAsked) {
  std::unique_ptr<BufferPool> pool;
  ASSERT_TRUE(BufferPool::Create(16 * kMiB, &pool).ok());
  ReorderBuffer buffer(std::move(pool));
  buffer.TrackResident();
  Piece *shared = buffer.Create(0, 0, 8192, 8192);   // two blocks, needed by entries 5 and 40
  Piece *once = buffer.Create(0, 8192, 4096, 4096);  // needed by entry 5 alone
  buffer.Ref(shared, 5);
  buffer.Ref(shared, 40);
  buffer.Ref(once, 5);
  for (Piece *p : {shared, once}) ASSERT_NO_FATAL_FAILURE(Land(buffer, p));
  buffer.Served(shared);  // entry 5 reads both
  buffer.Served(once);
  EXPECT_EQ(MemoryGovernor::Victim(buffer, 6, false), nullptr);  // nothing unread is left
  EXPECT_EQ(MemoryGovernor::Victim(buffer, 6, true), shared);    // entry 40 reads it again
  buffer.Unref(once);  // entry 5 done: `once` is freed; `shared` waits for entry 40
  buffer.Unref(shared);
  EXPECT_EQ(MemoryGovernor::Victim(buffer, 6, true), shared);
  buffer.Served(shared);  // entry 40 reads it: no later entry needs it
  EXPECT_EQ(MemoryGovernor::Victim(buffer, 41, true), nullptr);
}

TEST(MemoryGovernor, CandidatesAreListedOnlyOnceTrackingStartsAfterACut) {
  std::unique_ptr<BufferPool> pool;
  ASSERT_TRUE(BufferPool::Create(16 * kMiB, &pool).ok());
  ReorderBuffer buffer(std::move(pool));
  Piece *p = buffer.Create(0, 0, 4096, 4096);
  buffer.Ref(p, 7);
  ASSERT_NO_FATAL_FAILURE(Land(buffer, p));
  EXPECT_EQ(MemoryGovernor::Victim(buffer, 0, false), nullptr);  // no pressure yet: nothing listed
  buffer.TrackResident();  // the first cut: landed pieces listed
  EXPECT_EQ(MemoryGovernor::Victim(buffer, 0, false), p);
}

}  // namespace
}  // namespace pfio
