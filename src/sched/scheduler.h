// Scheduler: the one place that decides which queued prefetch read goes next. It owns the queue
// of built reads (C-LOOK per target, in rounds: partition/rounds), the reads in flight per target
// and per round of each bus group, and the issue policy (sched/issue_policy). A read goes when
// fewer than queue_depth reads are in flight, its target has fewer than target_reads, its round
// is within lookahead_rounds of the oldest round in flight on its bus group, and the policy
// allows it (a read the application waits for skips the policy, never its target's limit).
// Memory is not its business: the caller's `admit` says whether the read's memory is there.
//
// Owns every PendingRead from Enqueue until it lands (Landed) or is pruned; the I/O driver and
// the backend see only its IoRequest, and InFlight finds the read again from it.
// Guarded by the context's mutex: every method is called with it held.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "common/modes.h"
#include "partition/request_builder.h"
#include "sched/issue_policy.h"

namespace pfio {

class Scheduler {
 public:
  // How far Issue looks down the queue for a read that may go (a target at its limit or a
  // policy hold must not block the others).
  static constexpr size_t kIssueScan = 256;

  struct Shape {
    pfio_policy policy = PFIO_POLICY_AGGRESSIVE;
    uint32_t horizon = 0, forestall_factor = 0;
    uint32_t targets = 1, buses = 1;
    uint32_t queue_depth = 32;
    uint32_t target_reads = 1;  // resolved (never 0)
    uint32_t lookahead = 1;     // rounds; resolved (never 0)
  };
  // Sizes the per-target and per-bus state; only while nothing is queued or in flight.
  void Configure(const Shape &shape);

  // Takes built reads (C-LOOK per target), orders them in rounds from next_round() on
  // (partition/rounds) and appends them to the queue.
  void Enqueue(std::vector<std::unique_ptr<PendingRead>> reads);
  // Takes reads of evicted pieces (read again): all in the next round, after what is queued.
  void Requeue(std::vector<std::unique_ptr<PendingRead>> reads);
  // The round the next built reads start at.
  uint64_t next_round() const { return next_round_; }

  // Removes the queued reads whose pieces nothing needs any more; `drop` sees each before it
  // is destroyed.
  void Prune(const std::function<void(PendingRead *)> &drop);

  // The application waits for `pr` (queued): it goes next on its target, behind only a read of
  // that target for which `keep_ahead` is true (one whose block is being staged).
  void MakeUrgent(PendingRead *pr, const std::function<bool(const PendingRead *)> &keep_ahead);
  // Every queued read is needed now (a batch window).
  void MakeAllUrgent();

  // Scans the queue as described above. For each read that may go, `admit(pr)` says whether its
  // memory is there: true issues it (counted in flight; `issued(pr)` is called while it is still
  // queued, so what follows it can be looked at, then it leaves the queue and its request is
  // appended to *out); false stops the scan. `cursor` is the plan index the application reads
  // next.
  void Issue(uint64_t cursor, double now, const std::function<bool(PendingRead *)> &admit,
             const std::function<void(PendingRead *)> &issued, std::vector<IoRequest *> *out);

  // The read whose request `req` is (issued, not yet landed).
  PendingRead *InFlight(const IoRequest *req) const { return owned_.at(req).get(); }
  // A read handed out by Issue completed (or failed to start): it is destroyed.
  void Landed(const PendingRead *pr, double now);
  // The application consumed a plan entry; `compute` seconds passed since the last one, not
  // counting stalls (the policy's consumption gap).
  void Consumed(double compute) { policy_->OnConsumed(compute); }
  // Whether the policy uses those gaps (aggressive does not: the caller need not read a clock).
  bool times_consumption() const { return policy_->TimesConsumption(); }

  const std::list<PendingRead *> &queue() const { return queue_; }
  bool queue_empty() const { return queue_.empty(); }
  size_t queued() const { return queue_.size(); }
  uint32_t in_flight() const { return in_flight_; }
  uint32_t targets() const { return static_cast<uint32_t>(target_in_flight_.size()); }
  // True when the last Issue held a read back on the policy (a moved cursor may free it).
  bool policy_held() const { return policy_held_; }
  uint64_t policy_holds() const { return policy_holds_; }

 private:
  void Append(const std::vector<PendingRead *> &reads);
  bool RoundAllows(const PendingRead *pr) const;

  Shape shape_;
  std::unique_ptr<IssuePolicy> policy_;
  std::unordered_map<const IoRequest *, std::unique_ptr<PendingRead>> owned_;  // queued, in flight
  std::list<PendingRead *> queue_;  // built, not yet issued
  std::vector<uint32_t> target_in_flight_;
  std::vector<uint32_t> ahead_;  // Issue's per-target count of queued reads passed (no allocation)
  std::vector<std::map<uint64_t, uint32_t>> open_rounds_;  // per bus: round -> reads in flight
  uint64_t next_round_ = 0;
  uint32_t in_flight_ = 0;
  bool policy_held_ = false;
  uint64_t policy_holds_ = 0;
};

}  // namespace pfio
