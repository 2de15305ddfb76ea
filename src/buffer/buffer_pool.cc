#include "buffer/buffer_pool.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace pfio {

Status BufferPool::Create(uint64_t capacity, std::unique_ptr<BufferPool> *out, bool huge_pages) {
  capacity = (capacity + kPage - 1) / kPage * kPage;
  if (capacity == 0) return Status::Invalid("buffer pool capacity = 0: expected at least 4096");
  // Address space only: one huge page more than asked when huge pages are wanted, so that the
  // region can start on a huge page boundary.
  const uint64_t mapped = huge_pages ? capacity + kHugePage : capacity;
  void *p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    return Status::NoMem(Format("reserving the reorder buffer of %s failed: %s",
                                Bytes(capacity).c_str(), std::strerror(errno)));
  }
  char *mapping = static_cast<char *>(p);
  char *base = mapping;
  bool advised = false;
  if (huge_pages) {
    const uintptr_t at = reinterpret_cast<uintptr_t>(mapping);
    base = mapping + ((kHugePage - at % kHugePage) % kHugePage);
    // EINVAL where the kernel has no transparent huge pages: the pool works without them.
    advised = madvise(base, capacity, MADV_HUGEPAGE) == 0;
  }
  out->reset(new BufferPool(mapping, mapped, base, capacity, advised));
  return Status::Ok();
}

BufferPool::~BufferPool() {
  munmap(mapping_, mapped_);
}

char *BufferPool::AllocatePage() {
  char *page = nullptr;
  if (!free_.empty()) {
    page = free_.back();
    free_.pop_back();
  } else if (!released_.empty()) {
    page = released_.back();
    released_.pop_back();
  } else if (untouched_ < capacity_) {
    page = base_ + untouched_;
    untouched_ += kPage;
    high_water_ = std::max(high_water_, untouched_);
  } else {
    return nullptr;
  }
  in_use_ += kPage;
  return page;
}

void BufferPool::FreePage(char *page) {
  Return(page, &free_);
}

void BufferPool::Return(char *page, std::vector<char *> *list) {
  in_use_ -= kPage;
  if (in_use_ == 0) {  // everything is free: hand pages out in address order again
    free_.clear();
    released_.clear();
    untouched_ = 0;
    return;
  }
  list->push_back(page);
}

void BufferPool::ReleasePages(char *const *pages, size_t count) {
  for (size_t i = 0; i < count;) {
    size_t j = i + 1;
    while (j < count && pages[j] == pages[j - 1] + kPage) ++j;
    madvise(pages[i], (j - i) * kPage, MADV_DONTNEED);
    i = j;
  }
  for (size_t i = 0; i < count; ++i) Return(pages[i], &released_);
}

void BufferPool::ReleaseFreeMemory() {
  // Returned pages, sorted so that runs of them go back in one call each.
  std::sort(free_.begin(), free_.end());
  for (size_t i = 0; i < free_.size();) {
    size_t j = i + 1;
    while (j < free_.size() && free_[j] == free_[j - 1] + kPage) ++j;
    madvise(free_[i], (j - i) * kPage, MADV_DONTNEED);
    i = j;
  }
  released_.insert(released_.end(), free_.begin(), free_.end());
  free_.clear();
  // Pages past the untouched mark that were in use before the pool last emptied.
  if (untouched_ < high_water_) {
    madvise(base_ + untouched_, high_water_ - untouched_, MADV_DONTNEED);
    high_water_ = untouched_;
  }
}

}  // namespace pfio
