#include "sched/scheduler.h"

#include <algorithm>

#include "partition/rounds.h"

namespace pfio {

void Scheduler::Configure(const Shape &shape) {
  shape_ = shape;
  policy_ = std::make_unique<IssuePolicy>(shape.policy, shape.horizon, shape.forestall_factor,
                                          shape.targets);
  target_in_flight_.assign(shape.targets, 0);
  open_rounds_.assign(shape.buses, {});
}

void Scheduler::Enqueue(std::vector<std::unique_ptr<PendingRead>> reads) {
  std::vector<PendingRead *> order;
  order.reserve(reads.size());
  for (auto &r : reads) order.push_back(r.get());
  order = OrderInRounds(std::move(order), next_round_);
  for (auto &r : reads) owned_.emplace(&r->req, std::move(r));
  Append(order);
}

void Scheduler::Requeue(std::vector<std::unique_ptr<PendingRead>> reads) {
  std::vector<PendingRead *> order;
  for (auto &r : reads) {
    r->round = next_round_;
    order.push_back(r.get());
    owned_.emplace(&r->req, std::move(r));
  }
  Append(order);
}

void Scheduler::Append(const std::vector<PendingRead *> &reads) {
  for (PendingRead *pr : reads) {
    for (const Piece *p : pr->pieces) pr->first_use = std::min(pr->first_use, p->first_use);
    pr->queue_pos = queue_.insert(queue_.end(), pr);
    next_round_ = std::max(next_round_, pr->round + 1);
  }
}

void Scheduler::Prune(const std::function<void(PendingRead *)> &drop) {
  for (auto it = queue_.begin(); it != queue_.end();) {
    PendingRead *pr = *it;
    const bool needed = std::any_of(pr->pieces.begin(), pr->pieces.end(),
                                    [](const Piece *p) { return p->refs > 0; });
    if (needed) {
      ++it;
      continue;
    }
    it = queue_.erase(it);
    drop(pr);
    owned_.erase(&pr->req);
  }
}

void Scheduler::MakeUrgent(PendingRead *pr,
                           const std::function<bool(const PendingRead *)> &keep_ahead) {
  auto at = queue_.begin();
  size_t scanned = 0;
  for (auto it = queue_.begin(); it != queue_.end() && scanned < kIssueScan; ++it, ++scanned) {
    if (*it != pr && (*it)->target == pr->target && keep_ahead(*it)) {
      at = std::next(it);
      break;
    }
  }
  queue_.splice(at, queue_, pr->queue_pos);
  pr->urgent = true;
}

void Scheduler::MakeAllUrgent() {
  for (PendingRead *pr : queue_) pr->urgent = true;
}

bool Scheduler::RoundAllows(const PendingRead *pr) const {
  // Counted over reads in flight only: a queued read that cannot go (memory, policy) never
  // holds the others back, and with nothing in flight anything may go, so this cannot deadlock.
  if (target_in_flight_.size() <= 1) return true;  // one target: rounds are just C-LOOK order
  const auto &rounds = open_rounds_[pr->bus];
  return rounds.empty() || pr->round <= rounds.begin()->first + shape_.lookahead;
}

void Scheduler::Issue(uint64_t cursor, double now, const std::function<bool(PendingRead *)> &admit,
                      const std::function<void(PendingRead *)> &issued,
                      std::vector<IoRequest *> *out) {
  policy_held_ = false;
  ahead_.assign(target_in_flight_.size(), 0);  // queued reads of each target seen so far
  size_t scanned = 0;
  for (auto it = queue_.begin();
       it != queue_.end() && scanned < kIssueScan && in_flight_ < shape_.queue_depth; ++scanned) {
    PendingRead *pr = *it;
    uint32_t &target_in_flight = target_in_flight_[pr->target];
    // A target takes target_reads at a time, urgent or not: a read the application waits for
    // goes first on its target, not around it (a drive takes one command at a time anyway).
    if (target_in_flight >= shape_.target_reads || !RoundAllows(pr)) {
      ++ahead_[pr->target];
      ++it;
      continue;
    }
    if (!pr->urgent) {
      const uint32_t before = target_in_flight + ahead_[pr->target]++;
      const uint64_t distance = pr->first_use > cursor ? pr->first_use - cursor : 0;
      if (!policy_->MayIssue(pr->target, distance, before)) {
        ++policy_holds_;
        policy_held_ = true;
        ++it;
        continue;
      }
    }
    if (!admit(pr)) break;
    issued(pr);
    it = queue_.erase(it);
    ++in_flight_;
    ++target_in_flight;
    ++open_rounds_[pr->bus][pr->round];
    pr->issued_at = now;
    out->push_back(&pr->req);
  }
}

void Scheduler::Landed(const PendingRead *pr, double now) {
  --in_flight_;
  --target_in_flight_[pr->target];
  policy_->OnServiced(pr->target, now - pr->issued_at);
  auto &rounds = open_rounds_[pr->bus];
  auto it = rounds.find(pr->round);
  if (it != rounds.end() && --it->second == 0) rounds.erase(it);
  owned_.erase(&pr->req);
}

}  // namespace pfio
