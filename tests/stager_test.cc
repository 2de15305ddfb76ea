// Stager: what is staged after a read is issued, the 64 KiB floor, the device model's veto, and
// staging switched off after a failure.
#include "sched/stager.h"

#include <gtest/gtest.h>

#include <list>
#include <memory>

namespace pfio {
namespace {

class NoGainDevice : public DeviceModel {
 public:
  Status StageCanGain(uint64_t, uint32_t) const override {
    return Status::State("the bus is saturated");
  }
};

struct Queue {
  std::unique_ptr<PendingRead> Add(uint32_t target, uint64_t offset, uint64_t length) {
    auto pr = std::make_unique<PendingRead>();
    pr->target = target;
    pr->req.offset = offset;
    pr->req.length = length;
    pr->queue_pos = list.insert(list.end(), pr.get());
    return pr;
  }
  std::list<PendingRead *> list;
};

TEST(Stager, StagesTheTargetsNextBlocksUpToTargetStages) {
  Stager st(PFIO_STAGE_POKE, PFIO_STAGE_NONE, 2);
  st.Configure(2);
  Queue q;
  auto a = q.Add(0, 0, 128 << 10), b = q.Add(1, 0, 128 << 10), c = q.Add(0, 1 << 20, 128 << 10),
       d = q.Add(0, 2 << 20, 128 << 10), e = q.Add(0, 3 << 20, 128 << 10);
  std::vector<StageCall> calls;
  st.OnIssue(a.get(), q.list, &calls);
  ASSERT_EQ(calls.size(), 2u);  // c and d, not b (other target), not e (limit 2)
  EXPECT_EQ(calls[0].offset, 1u << 20);
  EXPECT_EQ(calls[1].offset, 2u << 20);
  EXPECT_EQ(calls[0].kind, PFIO_STAGE_POKE);
  EXPECT_TRUE(c->staged);
  EXPECT_EQ(st.staged(0), 2u);
  EXPECT_EQ(st.stages(), 2u);
  q.list.pop_front();
  calls.clear();
  st.OnIssue(c.get(), q.list, &calls);  // c's stage is spent; e may be staged now
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].offset, 3u << 20);
  EXPECT_EQ(st.staged(0), 2u);
  st.OnDropped(d.get());
  EXPECT_EQ(st.staged(0), 1u);
}

TEST(Stager, SmallReadsAreNeverStagedAndCounted) {
  Stager st(PFIO_STAGE_PAGECACHE, PFIO_STAGE_NONE, 1);
  st.Configure(1);
  Queue q;
  auto a = q.Add(0, 0, 64 << 10), b = q.Add(0, 1 << 20, 32 << 10);
  std::vector<StageCall> calls;
  st.OnIssue(a.get(), q.list, &calls);
  EXPECT_TRUE(calls.empty());
  EXPECT_EQ(st.stages_small(), 1u);
  EXPECT_FALSE(b->req.buffered);
}

TEST(Stager, ModeNoteAndTheDevicesVeto) {
  Stager none(PFIO_STAGE_NONE, PFIO_STAGE_DEVICE, 1);
  EXPECT_EQ(none.mode(), PFIO_STAGE_NONE);
  EXPECT_EQ(none.note(), "off: stage = none");
  Stager zero(PFIO_STAGE_POKE, PFIO_STAGE_NONE, 0);
  EXPECT_EQ(zero.mode(), PFIO_STAGE_NONE);
  EXPECT_EQ(zero.note(), "off: target_stages = 0");
  Stager autom(PFIO_STAGE_AUTO, PFIO_STAGE_DEVICE, 1);
  EXPECT_EQ(autom.mode(), PFIO_STAGE_DEVICE);
  autom.Resolve(256 << 10, 7, NoGainDevice());
  EXPECT_TRUE(autom.resolved());
  EXPECT_EQ(autom.mode(), PFIO_STAGE_NONE);
  EXPECT_EQ(autom.note(), "off: the bus is saturated");
  Stager small(PFIO_STAGE_POKE, PFIO_STAGE_NONE, 1);
  small.Resolve(16 << 10, 1, DeviceModel());
  EXPECT_EQ(small.mode(), PFIO_STAGE_POKE);
  EXPECT_NE(small.note().find("64 KiB and more only"), std::string::npos) << small.note();
}

TEST(Stager, AFailedStageSwitchesStagingOffAndSaysWhy) {
  Stager st(PFIO_STAGE_POKE, PFIO_STAGE_NONE, 1);
  st.Configure(1);
  st.Failed(Status::Io("poke of /f at 4096: Input/output error"));
  EXPECT_EQ(st.mode(), PFIO_STAGE_NONE);
  EXPECT_EQ(st.note(), "off after an error: poke of /f at 4096: Input/output error");
  Queue q;
  auto a = q.Add(0, 0, 1 << 20), b = q.Add(0, 1 << 20, 1 << 20);
  std::vector<StageCall> calls;
  st.OnIssue(a.get(), q.list, &calls);
  EXPECT_TRUE(calls.empty());
}

}  // namespace
}  // namespace pfio
