// BufferPool: page-aligned memory for prefetched data, carved out of one reserved region.
//
// The region is reserved up front (address space only, MAP_NORESERVE) with the size of the largest
// budget the rank may ever use, so the pool can never hold more than that: pages are touched only
// as data lands in them. Allocation is best fit over free runs; a request that no single free run
// can satisfy returns nullptr and the caller splits it. Single pages, by far the most common
// request on random plans, come from a stack of freed pages in O(1); when the pool empties, the
// stack is folded back into one free run, so fragmentation never outlives a window.
// ReleaseFreeMemory hands the pages of every free run back to the kernel, so resident memory
// follows a budget that was cut.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "common/status.h"

namespace pfio {

class BufferPool {
 public:
  static constexpr uint64_t kPage = 4096;

  // Reserves `capacity` bytes (rounded up to kPage).
  static Status Create(uint64_t capacity, std::unique_ptr<BufferPool> *out);
  ~BufferPool();
  BufferPool(const BufferPool &) = delete;
  BufferPool &operator=(const BufferPool &) = delete;

  // `bytes` must be a positive multiple of kPage. nullptr when no free run is large enough.
  char *Allocate(uint64_t bytes);
  void Free(char *p, uint64_t bytes);
  void ReleaseFreeMemory();

  uint64_t capacity() const { return capacity_; }
  uint64_t in_use() const { return in_use_; }
  uint64_t largest_free_run() const;

 private:
  BufferPool(char *base, uint64_t capacity);
  void InsertFree(uint64_t off, uint64_t len);
  void FreeRun(uint64_t off, uint64_t len);
  void EraseFree(std::map<uint64_t, uint64_t>::iterator it);

  char *base_;
  uint64_t capacity_;
  uint64_t in_use_ = 0;
  std::map<uint64_t, uint64_t> free_by_offset_;         // offset -> length
  std::set<std::pair<uint64_t, uint64_t>> free_by_size_;  // (length, offset)
  std::vector<uint64_t> free_pages_;                      // single pages, not in the runs
};

}  // namespace pfio
