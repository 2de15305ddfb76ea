#include "sched/issue_policy.h"

#include <algorithm>
#include <cmath>

namespace pfio {

void RecentSamples::Add(double v) {
  if (count_ == ring_.size()) {
    sum_ -= ring_[next_];
  } else {
    ++count_;
  }
  ring_[next_] = v;
  sum_ += v;
  next_ = (next_ + 1) % ring_.size();
  if (next_ == 0) {  // re-add from scratch once per lap: no drift from subtractions
    sum_ = 0;
    for (size_t i = 0; i < count_; ++i) sum_ += ring_[i];
  }
}

IssuePolicy::IssuePolicy(pfio_policy policy, uint32_t horizon, uint32_t forestall_factor,
                         uint32_t targets)
    : policy_(policy),
      horizon_(horizon),
      factor_(forestall_factor),
      service_(std::max<uint32_t>(1, targets)) {}

const char *IssuePolicy::Name(pfio_policy policy) {
  switch (policy) {
    case PFIO_POLICY_AGGRESSIVE:
      return "aggressive";
    case PFIO_POLICY_FIXED_HORIZON:
      return "fixed-horizon";
    case PFIO_POLICY_FORESTALL:
      return "forestall";
  }
  return "?";
}

void IssuePolicy::OnServiced(uint32_t target, double seconds) {
  service_[std::min<size_t>(target, service_.size() - 1)].Add(std::max(0.0, seconds));
}

void IssuePolicy::OnConsumed(double compute_seconds) {
  gaps_.Add(std::max(0.0, compute_seconds));
}

bool IssuePolicy::Known(uint32_t target) const {
  return service_[std::min<size_t>(target, service_.size() - 1)].count() >= kWarmup &&
         gaps_.count() >= kWarmup;
}

double IssuePolicy::F(uint32_t target) const {
  if (!Known(target)) return 0;
  const RecentSamples &s = service_[std::min<size_t>(target, service_.size() - 1)];
  // No compute at all between reads: every fetch is late, so F is as large as it gets.
  if (gaps_.sum() <= 0) return 1e12;
  return s.sum() / gaps_.sum();
}

double IssuePolicy::FPrime(uint32_t target) const {
  const RecentSamples &s = service_[std::min<size_t>(target, service_.size() - 1)];
  const double factor = factor_ ? factor_ : (s.mean() < 0.005 ? 1 : 4);
  return factor * F(target);
}

uint64_t IssuePolicy::Horizon() const {
  if (horizon_) return horizon_;
  double f = 0;
  for (uint32_t t = 0; t < service_.size(); ++t) f = std::max(f, F(t));
  return static_cast<uint64_t>(std::max(1.0, std::min(1e15, std::ceil(f))));
}

bool IssuePolicy::MayIssue(uint32_t target, uint64_t distance, uint32_t ahead) const {
  if (policy_ == PFIO_POLICY_AGGRESSIVE) return true;
  if (!Known(target)) return true;
  if (distance <= Horizon()) return true;
  if (policy_ == PFIO_POLICY_FIXED_HORIZON) return false;
  return (static_cast<double>(ahead) + 1) * FPrime(target) >= static_cast<double>(distance);
}

}  // namespace pfio
