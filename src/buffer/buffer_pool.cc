#include "buffer/buffer_pool.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

namespace pfio {

Status BufferPool::Create(uint64_t capacity, std::unique_ptr<BufferPool> *out) {
  capacity = (capacity + kPage - 1) / kPage * kPage;
  if (capacity == 0) return Status::Invalid("buffer pool capacity = 0: expected at least 4096");
  void *p = mmap(nullptr, capacity, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    return Status::NoMem(Format("reserving the reorder buffer of %s failed: %s",
                                Bytes(capacity).c_str(), std::strerror(errno)));
  }
  out->reset(new BufferPool(static_cast<char *>(p), capacity));
  return Status::Ok();
}

BufferPool::BufferPool(char *base, uint64_t capacity) : base_(base), capacity_(capacity) {
  InsertFree(0, capacity);
}

BufferPool::~BufferPool() { munmap(base_, capacity_); }

void BufferPool::InsertFree(uint64_t off, uint64_t len) {
  free_by_offset_.emplace(off, len);
  free_by_size_.emplace(len, off);
}

void BufferPool::EraseFree(std::map<uint64_t, uint64_t>::iterator it) {
  free_by_size_.erase({it->second, it->first});
  free_by_offset_.erase(it);
}

char *BufferPool::Allocate(uint64_t bytes) {
  if (bytes == kPage && !free_pages_.empty()) {
    const uint64_t off = free_pages_.back();
    free_pages_.pop_back();
    in_use_ += kPage;
    return base_ + off;
  }
  auto fit = free_by_size_.lower_bound({bytes, 0});
  if (fit == free_by_size_.end()) return nullptr;
  const uint64_t len = fit->first, off = fit->second;
  EraseFree(free_by_offset_.find(off));
  if (len > bytes) InsertFree(off + bytes, len - bytes);
  in_use_ += bytes;
  return base_ + off;
}

void BufferPool::Free(char *p, uint64_t bytes) {
  const uint64_t off = static_cast<uint64_t>(p - base_);
  in_use_ -= bytes;
  if (in_use_ == 0) {  // everything is free: one run again
    free_pages_.clear();
    free_by_offset_.clear();
    free_by_size_.clear();
    InsertFree(0, capacity_);
    return;
  }
  if (bytes == kPage) {
    free_pages_.push_back(off);
    return;
  }
  FreeRun(off, bytes);
}

void BufferPool::FreeRun(uint64_t off, uint64_t len) {
  auto next = free_by_offset_.lower_bound(off);
  if (next != free_by_offset_.end() && next->first == off + len) {
    len += next->second;
    EraseFree(next);
  }
  auto after = free_by_offset_.lower_bound(off);
  if (after != free_by_offset_.begin()) {
    auto prev = std::prev(after);
    if (prev->first + prev->second == off) {
      off = prev->first;
      len += prev->second;
      EraseFree(prev);
    }
  }
  InsertFree(off, len);
}

void BufferPool::ReleaseFreeMemory() {
  // Single pages go back into the runs first, so they are released in large madvise calls.
  for (uint64_t off : free_pages_) FreeRun(off, kPage);
  free_pages_.clear();
  for (const auto &[off, len] : free_by_offset_) madvise(base_ + off, len, MADV_DONTNEED);
}

uint64_t BufferPool::largest_free_run() const {
  const uint64_t run = free_by_size_.empty() ? 0 : free_by_size_.rbegin()->first;
  return std::max(run, free_pages_.empty() ? 0 : kPage);
}

}  // namespace pfio
