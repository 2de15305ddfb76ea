// EngineWorkload: the real engine on the `sim` backend, in virtual time. An application reads
// `reads` random block-aligned blocks of a virtual file striped over the simulated disks (the
// workload of Barve §4-5 and Kimbrel's synth, at the block level), computing `compute_s`
// between reads; every byte it gets is checked against the pattern. With `prefetch` off the
// same reads go straight to the backend one at a time (the application without pfio).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "engine/config.h"
#include "memory/memory_signals.h"
#include "pfio/pfio.h"
#include "sim/sim_backend.h"

namespace pfio {

struct EngineWorkload {
  SimBackendOptions sim;
  uint64_t file_size = 1ull << 30;
  uint64_t block = 128 * 1024;
  uint32_t reads = 2000;
  double compute_s = 0;
  uint64_t plan_seed = 7;
  bool prefetch = true;
  // Engine settings; layout is set from `sim` (stripe, disks, buses) by RunEngineWorkload.
  Config config;
  // For tests: memory signals to inject (null: none, a fixed budget).
  std::unique_ptr<MemorySignals> signals;
};

struct EngineWorkloadResult {
  double elapsed_s = 0;  // virtual
  double mb_s = 0;       // 10^6 bytes of application data per virtual second
  uint64_t bytes_verified = 0;
  pfio_stats stats{};
  SimBackendStats sim;
  double round_fraction = 1;
};

// Defaults for `config` (the defaults with a 64 MiB fixed budget).
EngineWorkload DefaultEngineWorkload();

// Runs it. A byte that does not match the pattern is an error naming its offset.
Status RunEngineWorkload(EngineWorkload &w, EngineWorkloadResult *out);

}  // namespace pfio
