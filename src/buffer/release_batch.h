// ReleaseBatch: ranges of files held in the kernel's page cache that pfio no longer needs,
// gathered so that they leave the cache in a few large calls instead of one per piece.
//
// Why: posix_fadvise(DONTNEED) costs per call, not per byte (it drains every CPU's page lists);
// even batched, release slowed the front ends' workloads, so cache_release is off by default
// (docs/measurements.md, "Page-cache release in batches").
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
