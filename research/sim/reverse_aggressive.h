// Reverse aggressive (Kimbrel §2.5, §2.7; Kimbrel & Karlin FOCS '96), the offline yardstick of
// the unit model. It is never used by the engine: it needs the whole reference sequence and a
// fixed fetch time.
//
// The schedule is built on the reversed sequence: whenever a disk is free, the cached block on
// that disk needed furthest ahead (in reverse) is evicted for the first missing block, provided it
// is needed after that block (do no harm). The disk kept busy is the evicted block's disk,
// because a reverse eviction is a forward fetch. Turned around, each reverse fetch is a forward
// eviction, released once the block's last use before it is refetched has passed, and each
// reverse eviction is a forward fetch, needed at the block's next forward use. Fetches are sorted
// by need and evictions by release, and the i-th fetch is paired with the i-th eviction (§2.7).
//
// Boundaries: the reverse pass starts with an empty cache (loading a block into a free slot costs
// nothing: forward, it is an eviction at the end). Blocks it ends with that the forward cache does
// not start with are fetched first, forward, into free slots or in place of initial blocks that
// the reverse pass does not end with (those are not needed before their own forward fetch).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/unit_model.h"

namespace pfio {

struct ForwardPair {
  static constexpr uint32_t kAnyBlock = UINT32_MAX;

  uint32_t fetch = 0;    // block to fetch
  uint64_t need = 0;     // index of the forward reference this fetch serves
  uint32_t evict = 0;    // block to evict for it; kAnyBlock: a free slot or an initial block
  uint64_t release = 0;  // the pair may be issued once the cursor has reached this index
};

struct ReversePlan {
  std::vector<ForwardPair> pairs;  // in order of need
  uint64_t reverse_fetches = 0;    // fetches with an eviction in the reverse pass
};

ReversePlan BuildReverseAggressive(const UnitInstance &in);

}  // namespace pfio
