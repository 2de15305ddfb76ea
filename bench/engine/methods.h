// The methods pfio-bench compares, each reading the same blocks in the same order and verifying
// every byte. Each runs in a child process so its peak RSS is its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pfio/pfio.h"

namespace pfio::bench {

struct RunSpec {
  std::string method;
  std::string path;
  uint64_t file_size = 0;
  uint64_t block = 0;
  uint64_t budget = 0;
  uint32_t queue_depth = 32;
  std::string infill = "auto";  // pfio's infill_max, as pfio_config_set takes it
  uint64_t max_request = 1024 * 1024;
  uint32_t window_percent = 100;
  std::string layout;  // pfio layout string; empty: one target
  uint64_t seed = 0;
  bool progress = false;
  const std::vector<uint32_t> *blocks = nullptr;
};

struct RunResult {
  double seconds = 0;           // start to the last byte checked (as fio times a job)
  double teardown_seconds = 0;  // after it: closing, io_destroy, pfio_context_destroy
  double last_byte_at = 0;      // steady clock, set by the method when its last byte is checked
  uint64_t bytes = 0;
  uint64_t bad_bytes = 0;  // reads whose bytes did not verify (any > 0 fails the run)
  int failed = 0;          // an error stopped the run
  char error[256] = {0};
  int has_stats = 0;
  pfio_stats stats{};
};

const std::vector<std::string> &AllMethods();
bool IsMethod(const std::string &name);
bool MethodNeedsDirectAlignment(const std::string &name);

// Runs one method in this process.
RunResult RunMethod(const RunSpec &spec);

}  // namespace pfio::bench
