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
  auto fit = free_by_size_.lower_bound({bytes, 0});
  if (fit == free_by_size_.end()) return nullptr;
  const uint64_t len = fit->first, off = fit->second;
  EraseFree(free_by_offset_.find(off));
  if (len > bytes) InsertFree(off + bytes, len - bytes);
  in_use_ += bytes;
  return base_ + off;
}

void BufferPool::Free(char *p, uint64_t bytes) {
  uint64_t off = static_cast<uint64_t>(p - base_), len = bytes;
  in_use_ -= bytes;
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
  for (const auto &[off, len] : free_by_offset_) madvise(base_ + off, len, MADV_DONTNEED);
}

uint64_t BufferPool::largest_free_run() const {
  return free_by_size_.empty() ? 0 : free_by_size_.rbegin()->first;
}

}  // namespace pfio
