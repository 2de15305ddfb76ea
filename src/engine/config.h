// Config: every engine setting, as the engine reads it. Built from strings by config_keys (the C
// API's pfio_config_set, MPI-IO hints, PFIO_* environment variables) or directly by tests and
// the simulator; ValidateConfig checks a whole config with the same range checks the string
// setters use, and names the first bad field, its value and what is allowed.
#pragma once

#include <cstdint>
#include <string>

#include "common/modes.h"
#include "common/status.h"

namespace pfio {

// infill_max = auto: the gap the reorder buffer's reads join, by where the file is: small where a
// request is cheap (a local disk), large where it costs a round trip (docs/measurements.md,
// "infill_max = auto").
constexpr uint64_t kInfillAuto = UINT64_MAX;
constexpr uint64_t kInfillLocal = 8 * 1024;
constexpr uint64_t kInfillRemote = 128 * 1024;

struct Config {
  uint64_t budget = 0;  // bytes the rank may use; 0 = auto (MemAvailable, cgroup limit)
  pfio_backend backend = PFIO_BACKEND_AUTO;
  pfio_window_mode window_mode = PFIO_WINDOW_PIPELINED;
  uint64_t infill_max = kInfillAuto;  // auto: kInfillLocal, kInfillRemote on remote storage
  uint64_t max_request = 1024 * 1024;
  uint32_t queue_depth = 32;
  uint32_t window_percent = 100;
  uint32_t timeout_ms = 60000;
  bool aimd = true;
  bool revalidate = false;       // check each open file's version before every read call
  bool huge_pages = true;        // reorder buffer advised for transparent huge pages
  uint32_t reserve_percent = 8;  // of MemTotal (and of a cgroup limit) kept free
  std::string stats_path;        // empty: no stats file
  std::string layout;            // empty: one target
  pfio_policy policy = PFIO_POLICY_AGGRESSIVE;
  uint32_t horizon = 0;
  uint32_t forestall_factor = 0;
  uint32_t target_reads = 0;
  uint32_t target_stages = 1;
  uint32_t lookahead_rounds = 0;
  pfio_stage stage = PFIO_STAGE_AUTO;
  pfio_buffer_kind buffer = PFIO_BUFFER_AUTO;  // where files opened from now on are buffered
  bool cache_release = false;  // buffer = cache: pages the plan has read leave the page cache
  // Front ends' settings (the engine itself does not read them): one parser, default and
  // message for every front end, as keys like the rest.
  bool collective = true;       // MPI collective reads through pfio's layer
  uint32_t coll_lookahead = 8;  // collective calls predicted ahead (0: none)
  uint64_t coll_ahead = 0;      // bytes of later calls planned; 0: automatic
  uint32_t coll_timeout = 600;  // seconds a rank waits for the others
  bool print_hints = false;     // the ROMIO driver prints the hints in force
  bool step_aside = true;       // front ends hand calls to their stock path while pfio loses
  std::string record;           // ROMIO driver: calls recorded to this file
  std::string replay;           // ROMIO driver: calls replayed from this file
  bool predict = true;          // HDF5 driver: predict strided raw-data reads
  bool hdf5 =
      true;  // libpfio_hdf5_preload.so: unmodified programs' H5Fopen through the HDF5 driver
  uint64_t engine_min = UINT64_MAX;  // HDF5 driver: reads this large via the engine

  bool operator==(const Config &) const = default;
};

// Checks every field (the same checks as the string setters) and the rules between fields
// (target_reads <= queue_depth).
Status ValidateConfig(const Config &c);

}  // namespace pfio
