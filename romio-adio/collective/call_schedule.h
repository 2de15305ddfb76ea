// CallSchedule: who reads which bytes of one collective call for whom, and in which round.
//
// Contract. Built from every rank's extents (in each rank's view order) and the aggregation,
// identically on every rank, so no further negotiation is needed. A rank's request is a byte
// stream (its extents' bytes in order); a Share is a run of file bytes one aggregator reads for
// one rank, with its position in that rank's stream. Each aggregator's shares are sorted by
// (rank, stream position): that is its send order. Round k of an aggregator is the bytes
// [k * round_bytes, (k + 1) * round_bytes) of its send order (shares cut at the edges), so no
// aggregator holds more than round_bytes of other ranks' data at once; rounds() is the most
// any aggregator needs. Overlapping requests of several ranks are read once per rank.
// A stripe unit only one rank asks for in the call is read by that rank itself when it is an
// aggregator (`own_units`): contiguous per-rank requests (restarts, large subarrays) then move
// no bytes between ranks; units several ranks share go to the unit's aggregator. With
// `own_extent` > 0 (and own_units), an extent of at least own_extent bytes is also read by its
// own rank when that rank is an aggregator, wherever it lies: large interleaved blocks (IO500's
// ior-hard) are then read where they are wanted, through the page cache's readahead, instead of
// being read by the units' aggregators and shipped (one copy of the bytes instead of three).
#pragma once

#include <cstdint>
#include <vector>

#include "collective/aggregation.h"
#include "collective/file_range.h"

namespace pfio::collective {

struct Share {
  FileRange range;
  int rank = 0;         // who receives the bytes
  uint64_t stream = 0;  // position of range.offset's byte in that rank's request
};

class CallSchedule {
 public:
  CallSchedule(const std::vector<FileRanges> &plans, const Aggregation &aggregation,
               uint64_t round_bytes, bool own_units = true, uint64_t own_extent = 0);

  size_t rounds() const { return rounds_; }
  // Every share aggregator `a` (an index into aggregation.aggregators()) reads, in send order.
  const std::vector<Share> &SharesOf(size_t a) const { return shares_[a]; }
  uint64_t BytesOf(size_t a) const { return totals_[a]; }
  // Aggregator a's shares of round k, cut to the round, in send order; send_counts[r] = bytes
  // for rank r (sized to the number of ranks). With `only_rank` >= 0, the counts are still every
  // rank's but only the shares for that rank are returned (what a rank receives from a).
  std::vector<Share> RoundShares(size_t a, size_t k, std::vector<uint64_t> *send_counts,
                                 int only_rank = -1) const;

 private:
  uint64_t round_bytes_;
  int ranks_;
  size_t rounds_ = 0;
  std::vector<std::vector<Share>> shares_;
  std::vector<std::vector<uint64_t>> starts_;  // send-order position of each share
  std::vector<uint64_t> totals_;
};

}  // namespace pfio::collective
