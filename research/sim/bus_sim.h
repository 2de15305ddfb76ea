// BusSim: D disks sharing one bus behind a host bus adapter, in virtual time (Barve et al. §4).
// Each disk positions (overhead, seek by eq. (7), rotational latency), reads its block into its
// cache at the head rate, and asks for the bus once `fence` allows (fence 0: one sector cached;
// else B * fence / 256 bytes). A disk holding the bus sends what is cached at the bus rate, then
// streams at the head rate until its head crosses a track boundary or the block ends, and lets
// go. The HBA sends a new command only when no disk is asking for the bus, which is what makes
// rounds emerge instead of being imposed. Workloads:
//   naive     one process per disk, each reading random blocks back to back (one outstanding
//             request per disk);
//   pipeline  Barve §5: one host thread reads round j disk by disk, and after each read issues
//             LoadIntoDiskBuffer for that disk's round j+1 block (a one-sector read just before
//             it, which makes the drive read the block ahead into its cache).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/barve_params.h"

namespace pfio {

struct BusSimConfig {
  BusDiskParams disk;
  uint32_t disks = 1;
  uint64_t block = 64 * 1024;
  uint32_t fence = 0;  // 0 .. 255
  bool pipeline = false;
  bool independent = false;  // every disk on a bus of its own: no coupling between the disks
  double warmup_s = 1.0, measure_s = 10.0;
  uint64_t seed = 1;
};

struct BusSimResult {
  double mb_s = 0;            // 10^6 bytes per second of data delivered, in the window
  double round_fraction = 0;  // Barve §4.2 sliding-window metric over the completions
  // The same metric for the same disks and workload each on a bus of its own (independent
  // disks also alternate often: a window of D completions from D disks is common by itself),
  // and the share of what independence leaves that the shared bus adds:
  //   round_excess = (round_fraction - independent) / (1 - independent)
  // about 0 when the bus does not couple the disks, near 1 when it forces rounds.
  double round_fraction_independent = 0;
  double round_excess = 0;
  std::vector<uint64_t> requests_per_disk;
};

BusSimResult RunBusSim(const BusSimConfig &config);

// Barve §4.2: the fraction of completions (disk ids in completion order) that do not break
// round order, sliding a window of D.
double RoundFraction(const std::vector<uint32_t> &completions, uint32_t disks);

}  // namespace pfio
