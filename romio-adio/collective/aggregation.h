// Aggregation: which rank reads each byte of the file in a collective read.
//
// Contract. The file is cut into stripe units of `unit` bytes dealt round-robin to `targets`
// storage targets (the layout's striping, or emulated targets when the file has none); target t
// is read by aggregators[t % aggregators.size()]. The assignment depends only on the file
// offset, so it is the same for every call: an aggregator can read a later call's bytes before
// that call is made. ChooseAggregators spreads `count` aggregators evenly over the ranks
// (ROMIO's cb_nodes); 0 or more than the ranks means every rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace pfio::collective {

class Aggregation {
 public:
  // OK, or PFIO_EINVAL and what is wrong (unit 0, no targets, no aggregators, a rank outside
  // [0, ranks)).
  static Status Check(uint64_t unit, uint32_t targets, const std::vector<int> &aggregators,
                      int ranks);
  Aggregation(uint64_t unit, uint32_t targets, std::vector<int> aggregators);

  uint64_t unit() const { return unit_; }
  uint32_t targets() const { return targets_; }
  const std::vector<int> &aggregators() const { return aggregators_; }

  uint32_t TargetOf(uint64_t offset) const {
    return static_cast<uint32_t>((offset / unit_) % targets_);
  }
  // Index into aggregators() of the rank that reads `offset`.
  size_t AggregatorOf(uint64_t offset) const { return TargetOf(offset) % aggregators_.size(); }
  // First offset after `offset` that may belong to another aggregator.
  uint64_t UnitEnd(uint64_t offset) const;

 private:
  uint64_t unit_;
  uint32_t targets_;
  std::vector<int> aggregators_;
};

std::vector<int> ChooseAggregators(int ranks, int count);

}  // namespace pfio::collective
