// IssuePolicy: when a queued prefetch read may go to its target (Kimbrel et al. §2.3-2.4, §5),
// the engine's one scheduler for timing; the order of reads is C-LOOK per target in rounds
// (partition/rounds), and Belady eviction with do no harm is the engine's (it owns the memory).
//
//   aggressive     always (memory and the target's in-flight limit permitting);
//   fixed-horizon  only when the read's first use is within H plan entries of the cursor;
//   forestall      when (ahead + 1) * F' >= distance, or within H, where `ahead` counts the
//                  target's reads in flight and queued before this one, F = (sum of the target's
//                  last 100 service times) / (sum of the last 100 consumption gaps) and
//                  F' = F when its mean service time is under 5 ms, else 4F (or a fixed factor).
// H is the configured horizon, or else ceil(max F over targets), at least 1. Until a target
// has 8 service times and 8 gaps are known, every policy issues (there is no F to go by).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/modes.h"

namespace pfio {

// The last `n` samples and their sum.
class RecentSamples {
 public:
  explicit RecentSamples(size_t n = 100) : ring_(n) {}
  void Add(double v);
  size_t count() const { return count_; }
  double sum() const { return sum_; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0; }

 private:
  std::vector<double> ring_;
  size_t next_ = 0, count_ = 0;
  double sum_ = 0;
};

class IssuePolicy {
 public:
  static constexpr size_t kWarmup = 8;

  IssuePolicy(pfio_policy policy, uint32_t horizon, uint32_t forestall_factor, uint32_t targets);

  void OnServiced(uint32_t target, double seconds);
  void OnConsumed(double compute_seconds);
  // Whether consumption gaps change any decision (every policy but aggressive).
  bool TimesConsumption() const { return policy_ != PFIO_POLICY_AGGRESSIVE; }

  // distance: plan entries from the cursor to the read's first use (0: needed now);
  // ahead: the target's reads in flight or queued before this one.
  bool MayIssue(uint32_t target, uint64_t distance, uint32_t ahead) const;

  double F(uint32_t target) const;       // service / compute ratio; 0 while unknown
  double FPrime(uint32_t target) const;  // the overestimate used by forestall
  uint64_t Horizon() const;
  static const char *Name(pfio_policy policy);

 private:
  bool Known(uint32_t target) const;

  pfio_policy policy_;
  uint32_t horizon_;
  uint32_t factor_;
  std::vector<RecentSamples> service_;
  RecentSamples gaps_;
};

}  // namespace pfio
