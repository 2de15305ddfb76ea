// Scheduler: per-target limits, the queue-depth limit, rounds, the issue policy, memory
// admission stopping the scan, urgent reads, pruning and ownership until Landed.
#include "sched/scheduler.h"

#include <gtest/gtest.h>

#include <memory>

#include "reorder_buffer_fixture.h"
namespace pfio {
namespace {

class SchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override { buffer_ = test::MakeReorderBuffer(); }
  // A read of one referenced 4 KiB piece on `target`, first needed at plan index `use`. Pieces
  // of a file never overlap: each read gets its own offset.
  std::unique_ptr<PendingRead> Read(uint32_t target, uint64_t offset, uint64_t use) {
    auto pr = std::make_unique<PendingRead>();
    Piece *p = buffer_->Create(0, offset, 4096, 4096, PieceSite{target, target % 2, offset});
    buffer_->Ref(p, use);
    pr->pieces.push_back(p);
    pr->target = target;
    pr->bus = target % 2;
    pr->target_offset = offset;
    pr->req.offset = offset;
    pr->req.length = 4096;
    return pr;
  }
  void Configure(uint32_t targets, uint32_t target_reads, uint32_t queue_depth = 32,
                 pfio_policy policy = PFIO_POLICY_AGGRESSIVE, uint32_t horizon = 0) {
    Scheduler::Shape shape;
    shape.targets = targets;
    shape.buses = targets > 1 ? 2 : 1;
    shape.target_reads = target_reads;
    shape.lookahead = target_reads;
    shape.queue_depth = queue_depth;
    shape.policy = policy;
    shape.horizon = horizon;
    s_.Configure(shape);
  }
  std::vector<IoRequest *> IssueAll(uint64_t cursor = 0) {
    std::vector<IoRequest *> out;
    s_.Issue(
        cursor, 0, [](PendingRead *) { return true; }, [](PendingRead *) {}, &out);
    return out;
  }
  std::unique_ptr<ReorderBuffer> buffer_;
  Scheduler s_;
};

TEST_F(SchedulerTest, EachTargetTakesTargetReadsAtATime) {
  Configure(2, 1);
  std::vector<std::unique_ptr<PendingRead>> reads;
  for (uint64_t i = 0; i < 3; ++i) reads.push_back(Read(0, i * 4096, i));
  for (uint64_t i = 0; i < 3; ++i) reads.push_back(Read(1, (1 << 20) + i * 4096, 3 + i));
  s_.Enqueue(std::move(reads));
  auto out = IssueAll();
  ASSERT_EQ(out.size(), 2u);  // one per target
  EXPECT_NE(s_.InFlight(out[0])->target, s_.InFlight(out[1])->target);
  EXPECT_EQ(s_.in_flight(), 2u);
  EXPECT_EQ(s_.queued(), 4u);
  s_.Landed(s_.InFlight(out[0]), 1.0);
  EXPECT_EQ(IssueAll().size(), 1u);  // only the target that landed takes another
}

TEST_F(SchedulerTest, QueueDepthBoundsAllTargetsAndAdmitStopsTheScan) {
  Configure(4, 4, /*queue_depth=*/3);
  std::vector<std::unique_ptr<PendingRead>> reads;
  for (uint32_t t = 0; t < 4; ++t) reads.push_back(Read(t, uint64_t{t} << 20, t));
  s_.Enqueue(std::move(reads));
  std::vector<IoRequest *> out;
  int admitted = 0;
  s_.Issue(
      0, 0, [&](PendingRead *) { return ++admitted <= 1; }, [](PendingRead *) {}, &out);
  EXPECT_EQ(out.size(), 1u);         // memory said no for the second: the scan stopped
  EXPECT_EQ(IssueAll().size(), 2u);  // then the queue depth (3) is the limit
}

TEST_F(SchedulerTest, EnqueueOrdersInRoundsAcrossTargets) {
  Configure(2, 4);
  std::vector<std::unique_ptr<PendingRead>> reads;
  reads.push_back(Read(0, 0, 0));
  reads.push_back(Read(0, 4096, 1));
  reads.push_back(Read(1, 1 << 20, 2));
  s_.Enqueue(std::move(reads));
  std::vector<uint32_t> targets;
  for (const PendingRead *pr : s_.queue()) targets.push_back(pr->target);
  EXPECT_EQ(targets, (std::vector<uint32_t>{0, 1, 0}));
  EXPECT_EQ(s_.next_round(), 2u);
}

TEST_F(SchedulerTest, FixedHorizonHoldsReadsBeyondItUnlessUrgent) {
  Configure(1, 8, 32, PFIO_POLICY_FIXED_HORIZON, /*horizon=*/2);
  // Give the policy its warm-up samples so it decides by the horizon.
  for (size_t i = 0; i < IssuePolicy::kWarmup; ++i) s_.Consumed(0.001);
  std::vector<std::unique_ptr<PendingRead>> warm;
  for (size_t i = 0; i < IssuePolicy::kWarmup; ++i) warm.push_back(Read(0, 1 << 20 | i << 12, 0));
  s_.Enqueue(std::move(warm));
  for (IoRequest *r : IssueAll()) s_.Landed(s_.InFlight(r), 0.0);
  std::vector<std::unique_ptr<PendingRead>> reads;
  reads.push_back(Read(0, 0, 1));
  reads.push_back(Read(0, 4096, 50));
  PendingRead *far = reads[1].get();
  s_.Enqueue(std::move(reads));
  EXPECT_EQ(IssueAll().size(), 1u);
  EXPECT_TRUE(s_.policy_held());
  EXPECT_GT(s_.policy_holds(), 0u);
  s_.MakeUrgent(far, [](const PendingRead *) { return false; });
  auto out = IssueAll();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(s_.InFlight(out[0]), far);
}

TEST_F(SchedulerTest, PruneDropsReadsNothingNeeds) {
  Configure(1, 1);
  std::vector<std::unique_ptr<PendingRead>> reads;
  reads.push_back(Read(0, 0, 0));
  reads.push_back(Read(0, 4096, 1));
  Piece *unneeded = reads[1]->pieces[0];
  s_.Enqueue(std::move(reads));
  buffer_->Unref(unneeded);  // its plan entry went away
  std::vector<uint64_t> dropped;
  s_.Prune([&](PendingRead *pr) {
    dropped.push_back(pr->req.offset);
    for (Piece *p : pr->pieces) buffer_->Dropped(p);
  });
  EXPECT_EQ(dropped, (std::vector<uint64_t>{4096}));
  EXPECT_EQ(s_.queued(), 1u);
}

}  // namespace
}  // namespace pfio
