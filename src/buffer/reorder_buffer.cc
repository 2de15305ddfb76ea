#include "buffer/reorder_buffer.h"

#include <algorithm>
#include <cstring>

namespace pfio {

void Piece::CopyOut(uint64_t lo, uint64_t hi, char *dst) const {
  while (lo < hi) {
    const uint64_t rel = lo - offset;
    const uint64_t in_page = rel % kPage;
    const uint64_t n = std::min(hi - lo, kPage - in_page);
    std::memcpy(dst, pages[rel / kPage] + in_page, n);
    dst += n;
    lo += n;
  }
}

namespace {
// Calls f(piece) once for every piece of every file.
template <class Files, class F>
void ForEachPiece(const Files &by_file, F f) {
  for (const auto &[file, index] : by_file) {
    index.pages.ForEachPage([&](uint64_t page, Piece *p) {
      if (page == p->offset / kPage) f(p);  // its first page: once per piece
    });
    index.ranges.ForEach(f);
  }
}
}  // namespace

namespace {
// The bytes a release batch gathers: an eighth of the capacity, within [256 KiB, 32 MiB].
uint64_t ReleaseBatchBytes(uint64_t capacity) {
  return std::clamp<uint64_t>(capacity / 8, 256 << 10, 32 << 20);
}
}  // namespace

ReorderBuffer::ReorderBuffer(std::unique_ptr<BufferPool> pool)
    : pool_(std::move(pool)), releases_(ReleaseBatchBytes(pool_->capacity())) {}

ReorderBuffer::~ReorderBuffer() {
  std::vector<Piece *> all;
  ForEachPiece(by_file_, [&](Piece *p) { all.push_back(p); });
  for (Piece *p : all) {
    for (char *page : p->pages) pool_->FreePage(page);
    delete p;
  }
  for (Piece *p : spare_) delete p;
}

uint64_t ReorderBuffer::index_bytes() const {
  uint64_t bytes = 0;
  for (const auto &[file, index] : by_file_)
    bytes += index.pages.heap_bytes() + index.ranges.heap_bytes();
  return bytes;
}

void ReorderBuffer::ForgetFile(int32_t file) {
  auto f = by_file_.find(file);
  if (f != by_file_.end() && f->second.pages.pages() == 0 && f->second.ranges.empty())
    by_file_.erase(f);
}

Piece *ReorderBuffer::Create(int32_t file, uint64_t offset, uint64_t length, uint64_t expected,
                             const PieceSite &site, bool by_range) {
  Piece *p;
  if (spare_.empty()) {
    p = new Piece;
  } else {
    p = spare_.back();
    spare_.pop_back();
  }
  p->file = file;
  p->target = site.target;
  p->bus = site.bus;
  p->target_offset = site.target_offset;
  p->offset = offset;
  p->length = length;
  p->expected = expected;
  FileIndex &index = by_file_[file];
  if (by_range) {
    p->ranges = &index.ranges;
    p->ranges->Insert(offset, offset + length, p);
  } else {
    p->index = &index.pages;
    p->index->Insert(offset / kPage, length / kPage, p);
  }
  ++count_;
  return p;
}

bool ReorderBuffer::Allocate(Piece *p) {
  const size_t n = p->length / BufferPool::kPage;
  p->pages.reserve(n);
  while (p->pages.size() < n) {
    char *page = pool_->AllocatePage();
    if (page == nullptr) {
      FreePages(p);
      return false;
    }
    p->pages.push_back(page);
  }
  return true;
}

bool ReorderBuffer::Charge(Piece *p, bool over) {
  if (!over && in_use() + p->length > capacity()) return false;
  cached_bytes_ += p->length;
  p->cached = true;
  return true;
}

void ReorderBuffer::Uncharge(Piece *p, bool release) {
  if (!p->cached) return;
  cached_bytes_ -= p->length;
  p->cached = false;
  if (!release || !release_cached_) return;
  releases_.Add(p->file, p->offset, p->length);
  if (releases_.due()) FlushReleases();
}

void ReorderBuffer::FlushReleases() {
  for (const Extent &r : releases_.Take()) release_cached_(r);
}

void ReorderBuffer::FreePages(Piece *p) {
  Uncharge(p, /*release=*/false);  // never advised
  for (char *page : p->pages) pool_->FreePage(page);
  p->pages.clear();
}

void ReorderBuffer::Ref(Piece *p, uint64_t use) {
  ++p->refs;
  if (use >= p->first_use) return;
  const bool listed = p->resident;
  if (listed) Touched(p);  // re-keyed below
  p->first_use = use;
  if (listed) ListResident(p);
}

uint64_t ReorderBuffer::Landed(Piece *p, bool ready, int error) {
  p->state = ready ? Piece::State::kReady : Piece::State::kFailed;
  p->error = ready ? 0 : error;
  p->request = nullptr;
  if (ready) ListResident(p);
  return FreeIfOrphan(p);
}

void ReorderBuffer::Dropped(Piece *p) {
  p->state = Piece::State::kFailed;  // never read; settled so it can be freed
  p->request = nullptr;
  FreeIfOrphan(p);
}

void ReorderBuffer::Served(Piece *p) {
  p->served = true;
  Touched(p);
  ListResident(p);  // when a later entry needs it too
}

uint64_t ReorderBuffer::Unref(Piece *p) {
  if (--p->refs > 0) return 0;
  if (!p->settled()) return 0;  // freed when its read lands or its queued read is pruned
  return Destroy(p);
}

uint64_t ReorderBuffer::FreeIfOrphan(Piece *p) {
  return p->refs == 0 ? Destroy(p) : 0;
}

void ReorderBuffer::ListResident(Piece *p) {
  if (!track_resident_ || p->resident || p->held_later || p->state != Piece::State::kReady) return;
  if (!p->served) {
    resident_.emplace(p->first_use, p);
    p->resident = true;
  } else if (p->refs > 1) {  // the entry reading it holds one reference; a later one needs it
    p->held_key = ++reads_from_;
    held_later_.emplace(p->held_key, p);
    p->held_later = true;
  }
}

void ReorderBuffer::TrackResident() {
  if (track_resident_) return;
  track_resident_ = true;
  ForEachPiece(by_file_, [this](Piece *p) { ListResident(p); });
}

void ReorderBuffer::Touched(Piece *p) {
  if (p->held_later) {
    held_later_.erase({p->held_key, p});
    p->held_later = false;
  }
  if (!p->resident) return;
  resident_.erase({p->first_use, p});
  p->resident = false;
}

Piece *ReorderBuffer::FurthestResident() const {
  return resident_.empty() ? nullptr : resident_.rbegin()->second;
}

Piece *ReorderBuffer::LastHeldForLater() const {
  return held_later_.empty() ? nullptr : held_later_.rbegin()->second;
}

void ReorderBuffer::Evict(Piece *p, bool release) {
  Touched(p);
  Uncharge(p, /*release=*/true);  // what leaves the budget leaves the page cache too
  if (release) {
    pool_->ReleasePages(p->pages.data(), p->pages.size());
    p->pages.clear();
  } else {
    FreePages(p);
  }
  p->state = Piece::State::kQueued;
}

uint64_t ReorderBuffer::Destroy(Piece *p) {
  Touched(p);
  const uint64_t wasted = (!p->served && p->state == Piece::State::kReady) ? p->expected : 0;
  // A file's indexes stay until it closes (ForgetFile).
  if (p->ranges != nullptr)
    p->ranges->Erase(p->offset);
  else
    p->index->Erase(p->offset / kPage, p->length / kPage);
  // Read from, and not kept for the kernel to reclaim: advised, or read by the caller before
  // its advice went out (a queued piece is destroyed only once its request was pruned, so no
  // advice brings its pages back after the release; kept, they outlived the file's close:
  // PageCacheKind.WithReleasePagesThePlanReadLeaveTheCache under TSan). A piece dropped unread (a
  // prediction that broke, a plan replaced) is kept: its pages, and the gaps advised with it,
  // may be what this process read before or what another reader of the file needs next.
  Uncharge(p, p->served && release_served_);
  for (char *page : p->pages) pool_->FreePage(page);
  --count_;
  // Kept for the next Create, as new (its page list keeps any heap storage it grew); no more
  // spares than live pieces (and a few thousand), so a window that shrank gives the heap back.
  if (spare_.size() >= std::max<size_t>(count_, kSpareFloor)) {
    delete p;
    return wasted;
  }
  p->pages.clear();
  SmallVector<char *, 4> pages = std::move(p->pages);
  *p = Piece{};
  p->pages = std::move(pages);
  spare_.push_back(p);
  return wasted;
}

}  // namespace pfio
