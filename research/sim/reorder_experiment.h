// The reorder-buffer experiment of libprefetch §3.2 on a simulated disk: a file of N pages read
// with uniformly random page accesses (as many as the file has pages, repeats allowed), one
// reorder buffer of K unique pages at a time, each buffer sorted and read in C-LOOK order at
// queue depth 1. Reports the runtime and the mean seek distance between consecutive requests,
// next to libprefetch's estimate 2N(K-1)/(K(K+1)) pages.
#pragma once

#include <cstdint>

#include "sim/disk_model.h"

namespace pfio {

struct ReorderResult {
  double runtime_s = 0;
  double mean_seek_bytes = 0;
  double formula_seek_bytes = 0;
  uint64_t windows = 0;
};

ReorderResult RunReorder(const DiskParams &disk, uint64_t file_size, uint64_t block,
                         uint64_t buffer, uint64_t seed);

}  // namespace pfio
