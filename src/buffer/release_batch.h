// ReleaseBatch: ranges of files held in the kernel's page cache that pfio no longer needs,
// gathered so that they leave the cache in a few large calls instead of one per piece.
//
// Why: posix_fadvise(DONTNEED) drains the per-CPU page lists of every CPU before it drops pages
// (lru_add_drain_all), a cost per call, not per byte. Measured with pfio-mpibench (4 ranks on 2
// cores, 1 GiB, the engine's paths with buffer = cache): one call per piece made ior-hard 2.5x
// and btio 1.9x slower than with no release at all (292 against 736 MiB/s, 433 against 807);
// batched, still 0.55-0.65x (ior-hard 492-547 against 765-822 MiB/s, btio 550-560 against
// 1,011-1,055, random 526-595 against 815-876), which is why cache_release is off by default.
//
// Contract. Add() takes a range (file, page-aligned offset and length); due() says when the
// bytes waiting reach the batch size; Take() returns them sorted by file and offset with
// adjacent ranges merged, and empties the batch. The bytes waiting still count as held (the
// reorder buffer includes them in in_use), so batching never lets pfio's pages in the cache
// exceed its budget. Not thread-safe; used under the context's mutex.
#pragma once

#include <cstdint>
#include <vector>

#include "plan/extent.h"

namespace pfio {

class ReleaseBatch {
 public:
  explicit ReleaseBatch(uint64_t batch_bytes) : batch_bytes_(batch_bytes) {}

  void Add(int32_t file, uint64_t offset, uint64_t length);
  bool due() const { return bytes_ >= batch_bytes_; }
  uint64_t bytes() const { return bytes_; }
  std::vector<Extent> Take();

 private:
  uint64_t batch_bytes_;
  uint64_t bytes_ = 0;
  std::vector<Extent> ranges_;
};

}  // namespace pfio
