#include "collective/call_schedule.h"

#include <algorithm>
#include <unordered_map>

namespace pfio::collective {

CallSchedule::CallSchedule(const std::vector<FileRanges> &plans, const Aggregation &aggregation,
                           uint64_t round_bytes, bool own_units, uint64_t own_extent)
    : round_bytes_(round_bytes ? round_bytes : 1),
      ranks_(static_cast<int>(plans.size())),
      shares_(aggregation.aggregators().size()),
      starts_(aggregation.aggregators().size()),
      totals_(aggregation.aggregators().size(), 0) {
  // Who asks for each stripe unit: one rank, or kShared.
  constexpr int kShared = -1;
  std::unordered_map<uint64_t, int> asked_by;
  std::vector<int> aggregator_index(static_cast<size_t>(ranks_), -1);
  for (size_t a = 0; a < aggregation.aggregators().size(); ++a)
    if (aggregation.aggregators()[a] < ranks_)
      aggregator_index[static_cast<size_t>(aggregation.aggregators()[a])] = static_cast<int>(a);
  // A rank's extents are mostly in file order, many to a unit (btio: 10,000 rows of 800 bytes
  // in 64 units per rank and call), so the unit just seen is not looked up again.
  constexpr uint64_t kNone = UINT64_MAX;
  if (own_units && aggregation.aggregators().size() > 1) {
    for (int rank = 0; rank < ranks_; ++rank) {
      uint64_t seen = kNone;
      for (const FileRange &e : plans[static_cast<size_t>(rank)]) {
        if (e.length == 0) continue;
        for (uint64_t u = e.offset / aggregation.unit(); u <= (e.end() - 1) / aggregation.unit();
             ++u) {
          if (u == seen) continue;
          seen = u;
          auto [it, fresh] = asked_by.emplace(u, rank);
          if (!fresh && it->second != rank) it->second = kShared;
        }
      }
    }
  }
  uint64_t last_unit = kNone;  // reader_of's answer depends on the unit only
  size_t last_reader = 0;
  auto reader_of = [&](uint64_t offset) -> size_t {
    const uint64_t unit = offset / aggregation.unit();
    if (unit == last_unit) return last_reader;
    auto it = asked_by.find(unit);
    size_t reader = aggregation.AggregatorOf(offset);
    if (it != asked_by.end() && it->second != kShared &&
        aggregator_index[static_cast<size_t>(it->second)] >= 0)
      reader = static_cast<size_t>(aggregator_index[static_cast<size_t>(it->second)]);
    last_unit = unit;
    last_reader = reader;
    return reader;
  };
  const bool own_extents = own_units && own_extent > 0 && aggregation.aggregators().size() > 1;
  for (int rank = 0; rank < ranks_; ++rank) {
    uint64_t stream = 0;
    const int mine = aggregator_index[static_cast<size_t>(rank)];
    for (const FileRange &e : plans[static_cast<size_t>(rank)]) {
      uint64_t offset = e.offset, left = e.length;
      const bool own = own_extents && mine >= 0 && e.length >= own_extent;
      while (left > 0) {
        const uint64_t cut = std::min(left, aggregation.UnitEnd(offset) - offset);
        const size_t a = own ? static_cast<size_t>(mine) : reader_of(offset);
        std::vector<Share> &list = shares_[a];
        if (!list.empty() && list.back().rank == rank && list.back().range.end() == offset &&
            list.back().stream + list.back().range.length == stream) {
          list.back().range.length += cut;  // contiguous in the file and in the stream
        } else {
          starts_[a].push_back(totals_[a]);
          list.push_back({{offset, cut}, rank, stream});
        }
        totals_[a] += cut;
        offset += cut;
        stream += cut;
        left -= cut;
      }
    }
  }
  for (uint64_t total : totals_)
    rounds_ =
        std::max<size_t>(rounds_, static_cast<size_t>((total + round_bytes_ - 1) / round_bytes_));
}

std::vector<Share> CallSchedule::RoundShares(size_t a, size_t k, std::vector<uint64_t> *send_counts,
                                             int only_rank) const {
  send_counts->assign(static_cast<size_t>(ranks_), 0);
  std::vector<Share> out;
  const uint64_t begin = k * round_bytes_, end = begin + round_bytes_;
  const std::vector<uint64_t> &starts = starts_[a];
  // The last share starting at or before `begin`.
  auto it = std::upper_bound(starts.begin(), starts.end(), begin);
  size_t i = it == starts.begin() ? 0 : static_cast<size_t>(it - starts.begin()) - 1;
  for (; i < starts.size() && starts[i] < end; ++i) {
    const Share &s = shares_[a][i];
    const uint64_t lo = std::max(begin, starts[i]);
    const uint64_t hi = std::min(end, starts[i] + s.range.length);
    if (lo >= hi) continue;
    const uint64_t skip = lo - starts[i];
    if (only_rank < 0 || s.rank == only_rank)
      out.push_back({{s.range.offset + skip, hi - lo}, s.rank, s.stream + skip});
    (*send_counts)[static_cast<size_t>(s.rank)] += hi - lo;
  }
  return out;
}

}  // namespace pfio::collective
