#include "collective/aggregation.h"

#include <limits>
#include <utility>

namespace pfio::collective {

Status Aggregation::Check(uint64_t unit, uint32_t targets, const std::vector<int> &aggregators,
                          int ranks) {
  if (unit == 0) return Status::Invalid("stripe unit 0 (expected >= 1 byte)");
  if (targets == 0) return Status::Invalid("0 storage targets (expected >= 1)");
  if (aggregators.empty()) return Status::Invalid("no aggregator ranks (expected >= 1)");
  for (int r : aggregators)
    if (r < 0 || r >= ranks)
      return Status::Invalid("aggregator rank " + std::to_string(r) + " (expected 0.." +
                             std::to_string(ranks - 1) + ")");
  return Status::Ok();
}

Aggregation::Aggregation(uint64_t unit, uint32_t targets, std::vector<int> aggregators)
    : unit_(unit), targets_(targets), aggregators_(std::move(aggregators)) {}

uint64_t Aggregation::UnitEnd(uint64_t offset) const {
  // With one aggregator every byte is its own: no cut at all.
  if (aggregators_.size() == 1) return std::numeric_limits<uint64_t>::max();
  const uint64_t end = (offset / unit_ + 1) * unit_;
  return end < offset ? std::numeric_limits<uint64_t>::max() : end;
}

std::vector<int> ChooseAggregators(int ranks, int count) {
  if (count <= 0 || count > ranks) count = ranks;
  std::vector<int> out;
  out.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i)
    out.push_back(static_cast<int>(static_cast<int64_t>(i) * ranks / count));
  return out;
}

}  // namespace pfio::collective
