#include "memory/memory_governor.h"

#include <algorithm>

#include "common/status.h"

namespace pfio {

MemoryGovernor::MemoryGovernor(uint64_t limit, uint64_t floor, bool aimd,
                               std::unique_ptr<MemorySignals> signals,
                               std::unique_ptr<NodeShare> node, bool share_node,
                               AimdController::Clock clock, const MemorySample *first)
    : aimd_(limit, floor, aimd, std::move(clock)),
      signals_(std::move(signals)),
      gate_(aimd),
      node_(node ? std::move(node) : std::make_unique<AloneOnNode>()),
      share_node_(share_node) {
  if (!share_node_) return;
  // An auto budget starts at its share of what the node can give the processes present.
  const MemorySample s = first != nullptr ? *first : signals_->Sample();
  headroom_ = s.headroom;
  last_sample_ = aimd_.Now();  // a first read within kSampleEvery needs no sample of its own
  const NodeView v = node_->Update(aimd_.budget(), 0, 0, false);
  if (v.processes > 1 && headroom_ != UINT64_MAX) {
    fair_share_ = (headroom_ + v.held_by_all) / v.processes;
    aimd_.ClampTo(fair_share_, Format("start at the fair share %s of %u pfio processes",
                                      Bytes(fair_share_).c_str(), v.processes));
  }
}

bool MemoryGovernor::Sample(uint64_t held, uint64_t landing, uint64_t resident) {
  MemorySample s = signals_->Sample();
  headroom_ = s.headroom;
  if (resident == UINT64_MAX) {
    resident = s.process_resident > 0 ? s.process_resident : held > landing ? held - landing : 0;
  }
  const NodeView v = node_->Update(aimd_.budget(), held, resident, wanted_ > 0);
  // A program other than pfio taking memory fast: give some back before the reserve is reached
  // (only while adapting; the reserve and PSI still speak for themselves).
  const uint64_t taken =
      others_.Observe(aimd_.Now(), s.anon_and_shmem, s.total, v.resident_of_all, v.processes);
  if (gate_ && !s.contention && taken > 0) {
    s.contention = true;
    s.reason = Format(
        "programs other than pfio took %s of memory in %d spans of >= %.2f s (the "
        "last at %s/s)",
        Bytes(taken).c_str(), OthersTaking::kSpansInARow, OthersTaking::kSpan,
        Bytes(static_cast<uint64_t>(others_.last_rate())).c_str());
  }
  // Growth stops kGateMargin above the reserve. Headroom down to half of that was taken by
  // something the gate does not hold (another program, most often): memory goes back before
  // the reserve is reached, not after.
  if (gate_ && !s.contention && headroom_ < kGateMargin / 2) {
    s.contention = true;
    s.reason = Format(
        "%s left above the memory reserve, less than half the margin %s that "
        "growth stops at: memory is being taken",
        Bytes(headroom_).c_str(), Bytes(kGateMargin).c_str());
  }
  bool cut = false;
  if (s.contention) {
    round_contention_ = true;
    cut = aimd_.OnContention(s.reason, s.hard);
  }
  // What the node could give to prefetching (free above the reserve, plus what every pfio
  // process holds), shared by the processes on it.
  held_at_sample_ = held;
  landing_at_sample_ = landing;
  processes_ = std::max<uint64_t>(1, v.processes);
  fair_share_ = UINT64_MAX;
  peer_short_ = false;
  if (v.processes > 1 && headroom_ != UINT64_MAX) {
    const uint64_t node_can_give = headroom_ + v.held_by_all;
    fair_share_ = node_can_give / v.processes;
    // Share while a peer waits for memory, or while the budgets promise more than the node has.
    // Both with a slack of 1/kShareSlack, so that a share that drifts as memory is taken and
    // given back does not clamp the budget again by a few MiB at every sample.
    const bool oversubscribed = v.budgets_of_all > node_can_give + node_can_give / kShareSlack;
    peer_short_ = v.peer_short || oversubscribed;
    if (share_node_ && peer_short_ && aimd_.budget() > fair_share_ + fair_share_ / kShareSlack) {
      const std::string why =
          v.peer_short ? std::string("one is short")
                       : Format("their budgets add up to %s, more than the node can give (%s)",
                                Bytes(v.budgets_of_all).c_str(), Bytes(node_can_give).c_str());
      cut = aimd_.ClampTo(fair_share_,
                          Format("fair share %s of %u pfio processes, %s",
                                 Bytes(fair_share_).c_str(), v.processes, why.c_str())) ||
            cut;
    }
  }
  return cut;
}

bool MemoryGovernor::SampleIfDue(double now, uint64_t held, uint64_t landing, uint64_t resident,
                                 bool *sampled) {
  const bool due = now - last_sample_ >= kSampleEvery;
  if (sampled != nullptr) *sampled = due;
  if (!due) return false;
  last_sample_ = now;
  return Sample(held, landing, resident);
}

bool MemoryGovernor::WaitOver(uint64_t held) {
  if (wanted_ == 0 || !Fits(held, wanted_)) return false;
  wanted_ = 0;
  return true;
}

void MemoryGovernor::Consumed(uint64_t bytes) {
  round_consumed_ += bytes;
  if (round_consumed_ < aimd_.budget()) return;
  // growth stops at the fair share while a peer is short
  uint64_t room = headroom_;
  if (share_node_ && peer_short_ && fair_share_ != UINT64_MAX) {
    room = std::min(room, fair_share_ > aimd_.budget() ? fair_share_ - aimd_.budget() : 0);
  }
  aimd_.OnRoundEnd(!round_contention_, room);
  round_contention_ = false;
  round_consumed_ = 0;
}

Piece *MemoryGovernor::Victim(const ReorderBuffer &buffer, uint64_t first_use, bool held_later) {
  Piece *victim = buffer.FurthestResident();
  if (victim != nullptr && victim->first_use > first_use) return victim;  // do no harm
  return held_later ? buffer.LastHeldForLater() : nullptr;
}

}  // namespace pfio
