// BufferPool: the pages that hold prefetched data, carved out of one reserved region.
//
// The region is reserved up front (address space only, MAP_NORESERVE) with the size of the most
// the rank may ever use, so the pool can never hold more: pages are touched only as data lands
// in them. Memory is handed out one 4 KiB page at a time (prefetched pieces are scattered over
// pages and read with vectored I/O), so the pool cannot fragment: any free page serves any
// request, allocation and release are O(1). Untouched pages are handed out in address order,
// so pieces allocated together are mostly contiguous anyway. ReleaseFreeMemory returns the
// free pages to the kernel, so resident memory follows a budget that was cut; it costs in
// proportion to the pages freed since the last call, so it may be called often.
//
// With huge_pages the region starts on a 2 MiB boundary and is advised MADV_HUGEPAGE: where the
// kernel's transparent huge pages are "madvise" or "always", the pages handed out in address
// order then lie in physically contiguous 2 MiB runs, and a large O_DIRECT read into them goes to
// the device in a few large segments instead of one per 4 KiB page (a virtio disk takes at most
// 254 segments per request). Releasing single pages still works (the kernel splits the huge
// page); the advice is only advice, and where the kernel refuses it the pool works as without.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/page.h"
#include "common/status.h"

namespace pfio {

class BufferPool {
 public:
  static constexpr uint64_t kPage = pfio::kPage;

  static constexpr uint64_t kHugePage = 2 * 1024 * 1024;

  // Reserves `capacity` bytes (rounded up to kPage), advised for huge pages if asked.
  static Status Create(uint64_t capacity, std::unique_ptr<BufferPool> *out,
                       bool huge_pages = false);
  ~BufferPool();
  BufferPool(const BufferPool &) = delete;
  BufferPool &operator=(const BufferPool &) = delete;

  // One page, or nullptr when all capacity is in use.
  char *AllocatePage();
  void FreePage(char *page);
  // Frees `pages` and gives them back to the kernel at once (runs of adjacent pages in one
  // call each): for memory that is to leave the process, not to be reused soon.
  void ReleasePages(char *const *pages, size_t count);
  void ReleaseFreeMemory();

  uint64_t capacity() const { return capacity_; }
  uint64_t in_use() const { return in_use_; }
  // Whether the kernel took the huge page advice for the region.
  bool huge_pages() const { return huge_pages_; }

 private:
  BufferPool(char *mapping, uint64_t mapped, char *base, uint64_t capacity, bool huge_pages)
      : mapping_(mapping),
        mapped_(mapped),
        base_(base),
        capacity_(capacity),
        huge_pages_(huge_pages) {}

  char *mapping_;  // what mmap returned, and its length (base_ may lie past it, aligned)
  uint64_t mapped_;
  char *base_;
  uint64_t capacity_;
  bool huge_pages_;
  uint64_t in_use_ = 0;
  void Return(char *page, std::vector<char *> *list);

  uint64_t untouched_ = 0;    // offset of the first page not handed out since the pool was empty
  uint64_t high_water_ = 0;   // offset past the last page that may be resident
  std::vector<char *> free_;  // pages handed out and returned, still resident
  std::vector<char *> released_;  // returned and given back to the kernel (ReleaseFreeMemory)
};

}  // namespace pfio
