// The theoretical model of parallel prefetching and caching (Kimbrel et al. §2.1), simulated in
// unit time: a cache of K blocks, d disks, every block on one disk; consuming a cached block
// takes 1 unit, a fetch F units, fetches to one disk run one after another. A block is evicted
// when the fetch that replaces it is issued, and neither it nor the incoming block is usable
// until the fetch completes. Elapsed time = references + stall.
//
// Policies (Kimbrel §2.3-2.4, §5), all with optimal (Belady) replacement and do-no-harm:
//   demand         fetch only a missing block at the cursor
//   fixed-horizon  fetch every missing block at most H references ahead
//   aggressive     whenever a disk is free, fetch its first missing block
//   forestall      fetch when (queued + i) * F >= d_i for the i-th missing block of a disk
//                  (within 2K references), or when a missing block is within H
//   reverse-aggressive  offline: pairs built on the reversed sequence (sim/reverse_aggressive.h)
// OptimalElapsed searches all schedules (tiny instances only) as the yardstick.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace pfio {

struct UnitInstance {
  uint32_t cache = 0;       // K
  uint32_t fetch_time = 0;  // F
  uint32_t disks = 0;       // d
  uint32_t horizon = 0;     // H (fixed horizon and forestall); 0 means F
  uint32_t ref_time = 1;    // units to consume one cached block
  // Units of compute before each reference, when they differ (empty: ref_time for every one);
  // the policies' own estimates keep using ref_time, the mean.
  std::vector<uint32_t> ref_times;
  uint32_t issue_time = 0;  // units of CPU to issue one fetch (Kimbrel §3: 0.5 ms driver overhead)
  uint32_t reverse_fetch_time = 0;  // F assumed by reverse aggressive's reverse pass; 0: fetch_time
  std::vector<uint32_t> refs;       // block ids in reference order
  std::vector<uint32_t> disk_of;    // disk of each block id
  std::vector<uint32_t> initial_cache;  // blocks cached at time 0
};

enum class UnitPolicy { kDemand, kFixedHorizon, kAggressive, kForestall, kReverseAggressive };

struct UnitResult {
  uint64_t elapsed = 0;  // compute (refs * ref_time) + stall + fetches * issue_time
  uint64_t stall = 0;
  uint64_t fetches = 0;
  double utilisation = 0;  // busy disk-time / (disks * elapsed)
};

Status ParseUnitPolicy(const std::string &name, UnitPolicy *out);
Status CheckUnitInstance(const UnitInstance &in);
UnitResult SimulateUnit(const UnitInstance &in, UnitPolicy policy);
// Reverse aggressive as the paper used it, a yardstick (§4.4): the reverse pass's F is tuned for
// this instance over fetch_time x 2^(k/4), k = -4 .. 12, plus 16 and 32 x fetch_time; the
// best run is returned and its F stored in *reverse_fetch_time (optional).
UnitResult SimulateReverseAggressiveTuned(const UnitInstance &in,
                                          uint32_t *reverse_fetch_time = nullptr);
// Exhaustive search over all schedules; for instances of at most 64 blocks, a few dozen
// references, ref_time 1 and issue_time 0. *fetches (optional) gets the best schedule's count.
uint64_t OptimalElapsed(const UnitInstance &in, uint64_t *fetches = nullptr);

// Kimbrel Fig. 1: K = 4, F = 2, disk 0 holds A C E F, disk 1 holds b d; refs A b C d E F;
// cache {A, b, d, F}. Aggressive and fixed horizon take 7 units, the optimal schedule 6.
UnitInstance Figure1Instance();

// Kimbrel §4.2's synth, in the unit model: `passes` passes over a loop of `blocks` sequential
// blocks striped one block per disk over `disks` disks, cache K. Times are in units of 0.5 ms:
// a reference 2 units (1 ms of compute) on average, a fetch `fetch_time` units, issuing a fetch
// 1 unit. With `poisson_seed` != 0 the compute times are Poisson arrivals with a 1 ms mean, as
// the paper's synth has them (§4.1): exponential draws, each rounded down to whole units with
// the remainder carried to the next, so the total compute is the draws' sum; 0: exactly 2 units.
UnitInstance SynthInstance(uint32_t disks, uint32_t passes = 50, uint32_t blocks = 2000,
                           uint32_t cache = 1280, uint32_t fetch_time = 30,
                           uint64_t poisson_seed = 0);

}  // namespace pfio
