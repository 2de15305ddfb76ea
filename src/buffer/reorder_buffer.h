// ReorderBuffer: the prefetched pieces of files, found by offset, held while plan entries need
// them.
//
// A Piece is one page-aligned file range. It is planned first (no memory) and gets its pages
// from the BufferPool only when its read is issued, so a whole window can be planned and sorted
// before the memory for all of it is free. Pieces of a file never overlap. A file of the
// page-cache kind has no pages here: each of its pieces is one advice (the ranges a window
// needs and the gaps advised with them) charged against the budget, found through a RangeIndex
// rather than the per-page index. Plan entries in the
// window hold references; when the last reference goes the pages are returned at once
// (Mowry §2.4), or when the read in flight lands if it has not yet. Data never served before it
// is dropped counts as wasted.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

#include "buffer/buffer_pool.h"
#include "buffer/piece_index.h"
#include "buffer/range_index.h"
#include "buffer/release_batch.h"
#include "common/small_vector.h"

namespace pfio {

struct PendingRead;

// Where a piece lives: its storage target, that target's bus group, and its offset there.
struct PieceSite {
  uint32_t target = 0;
  uint32_t bus = 0;
  uint64_t target_offset = 0;
};

struct Piece {
  enum class State { kQueued, kInFlight, kReady, kFailed };
  int32_t file = 0;
  uint64_t offset = 0;    // page aligned
  uint64_t length = 0;    // page multiple
  uint64_t expected = 0;  // bytes that exist in the file (short only at end of file)
  uint32_t target = 0;    // storage target and bus group that hold it (layout/)
  uint32_t bus = 0;
  uint64_t target_offset = 0;
  SmallVector<char *, 4> pages;  // length / kPage pages once allocated, else empty
  bool cached = false;  // held in the kernel's page cache (Charge), not in pages of the pool
  uint32_t refs = 0;
  State state = State::kQueued;
  int error = 0;  // errno when kFailed (0: the read came back short)
  bool served = false;
  uint64_t first_use = UINT64_MAX;  // plan index of the first entry that needs it
  bool resident = false;            // listed as landed and untouched (Belady candidates)
  bool held_later = false;          // listed as read from and needed by a later entry, at
  uint64_t held_key = 0;            // ... this key of that list
  PendingRead *request = nullptr;   // while kQueued or kInFlight
  PieceIndex *index = nullptr;      // the file's page index, or
  RangeIndex *ranges = nullptr;     // its range index (Create's by_range)

  uint64_t end() const { return offset + length; }
  bool settled() const { return state == State::kReady || state == State::kFailed; }
  // Copies file bytes [lo, hi) (inside the piece) to dst.
  void CopyOut(uint64_t lo, uint64_t hi, char *dst) const;
};

class ReorderBuffer {
 public:
  explicit ReorderBuffer(std::unique_ptr<BufferPool> pool);
  ~ReorderBuffer();

  // Pieces of `file` overlapping [begin, end) (page aligned), ascending, appended to *out.
  template <class Out>
  void Overlapping(int32_t file, uint64_t begin, uint64_t end, Out *out) const {
    auto f = by_file_.find(file);
    if (f == by_file_.end()) return;
    if (!f->second.ranges.empty()) f->second.ranges.Overlapping(begin, end, out);
    const PieceIndex &pages = f->second.pages;
    if (pages.pages() == 0) return;
    for (uint64_t page = begin / kPage; page < (end + kPage - 1) / kPage;) {
      Piece *p = pages.Find(page);
      if (p == nullptr) {
        ++page;
        continue;
      }
      out->push_back(p);
      page = p->end() / kPage;
    }
  }

  // A new queued piece without memory. The caller guarantees it overlaps no existing piece.
  // `by_range`: found through the file's RangeIndex (the page-cache kind's pieces, one advice
  // each), else through its page index; a file's pieces are all of one way.
  Piece *Create(int32_t file, uint64_t offset, uint64_t length, uint64_t expected,
                const PieceSite &site = {}, bool by_range = false);

  // A plan entry at index `use` holds `p` (its first use moves earlier if `use` is earlier,
  // and its Belady key with it).
  void Ref(Piece *p, uint64_t use);
  // Its read was submitted.
  void Issued(Piece *p) { p->state = Piece::State::kInFlight; }
  // Its read completed: ready, or failed with `error` (0: the read came back short). Frees it
  // if nothing references it any more; returns bytes counted as wasted.
  uint64_t Landed(Piece *p, bool ready, int error);
  // Its queued read was dropped (no entry needs it): settled, never read, freed if orphaned.
  void Dropped(Piece *p);
  // The application read from it (it is no longer an eviction candidate).
  void Served(Piece *p);

  // Gives `p` its pages; false (and no pages) when the pool is out of capacity.
  bool Allocate(Piece *p);
  // The page-cache buffer kind: `p` is held in the kernel's page cache, not in pages of the pool,
  // and its length (with `gap`) counts against the same capacity (in_use) until it is evicted, its
  // read is not issued after all (FreePages), or it is destroyed; false when the capacity is used
  // up. Evicting or destroying such a piece hands its range to the release function set here (the
  // context drops it from the page cache: Mowry's release of what the plan will not read
  // again), in batches (buffer/release_batch.h) of an eighth of the capacity; until then the
  // range still counts as in use.
  // The piece's whole range is charged, the gaps its advice joined included (its range holds
  // them: partition/request_builder.h). With `over`, the charge may exceed the capacity (a read
  // the application waits for: the window was planned without the gaps, so what is held may be
  // needed only after it).
  bool Charge(Piece *p, bool over);
  // Evicted pieces (a budget cut) are always handed over; pieces that were read from only with
  // `served_too`; pieces dropped unread never: their pages may be what the ranks read next
  // (docs/measurements.md, "Pieces dropped unread stay in the page cache").
  void SetCacheRelease(std::function<void(const Extent &)> release, bool served_too) {
    release_cached_ = std::move(release);
    release_served_ = served_too;
  }
  // Releases what waits now (before a file closes, at shutdown).
  void FlushReleases();

  // Returns the pages of a piece whose read was not issued after all.
  void FreePages(Piece *p);

  // Drops one reference; frees the piece when none are left and its read has settled.
  // Returns bytes counted as wasted by this drop.
  uint64_t Unref(Piece *p);

  // Frees `p` if nothing references it (after its read landed or was pruned). Returns bytes wasted.
  uint64_t FreeIfOrphan(Piece *p);

  // Belady's candidates: pieces whose read landed and that nothing has read from yet, by first
  // use. Listed when landed, unlisted when first read from (Touched), evicted or destroyed.
  // A piece read from for one entry and needed by a later one (neighbouring blocks read in one
  // request, wanted at different times) is listed apart, most recently read last: its next use
  // is not kept, and unlisted it would hold its memory out of every cut's reach
  // (EngineFaults.AfterABudgetCutWhatIsHeldStaysWithinTheNewBudget). Kept only once
  // TrackResident was called (after the first budget cut): without memory pressure nothing is
  // evicted, and the ordered lists would cost a tree insert and erase per piece for nothing.
  void TrackResident();
  void ListResident(Piece *p);
  void Touched(Piece *p);
  Piece *FurthestResident() const;  // null when none is listed
  // The piece read from most recently of those a later entry still needs; null when none is.
  Piece *LastHeldForLater() const;
  // Drops the pages of a listed piece; it is queued again (state kQueued, no request yet).
  // With `release` the pages go back to the kernel at once (a cut), else to the pool.
  void Evict(Piece *p, bool release = false);

  // Pool pages in use and bytes charged for pieces held in the page cache.
  uint64_t in_use() const { return pool_->in_use() + cached_bytes_ + releases_.bytes(); }
  uint64_t capacity() const { return pool_->capacity(); }
  size_t piece_count() const { return count_; }
  // Heap bytes of the files' page and range indexes.
  uint64_t index_bytes() const;
  // A closed file's indexes go once it holds no piece (Context::CloseFile, after its pieces
  // went), so that a context kept from file to file keeps none per file it closed.
  void ForgetFile(int32_t file);
  void ReleaseFreeMemory() { pool_->ReleaseFreeMemory(); }

 private:
  uint64_t Destroy(Piece *p);
  // A cached piece gives back its charge; `release` also drops its range from the page cache.
  void Uncharge(Piece *p, bool release);

  std::unique_ptr<BufferPool> pool_;
  struct FileIndex {
    PieceIndex pages;
    RangeIndex ranges;
  };
  std::unordered_map<int32_t, FileIndex> by_file_;
  std::set<std::pair<uint64_t, Piece *>> resident_;    // (first_use, piece)
  std::set<std::pair<uint64_t, Piece *>> held_later_;  // (when read from, piece)
  uint64_t reads_from_ = 0;                            // held_later_'s clock
  static constexpr size_t kSpareFloor = 4096;
  std::vector<Piece *> spare_;  // destroyed pieces, reused by Create (no malloc per piece)
  bool track_resident_ = false;
  size_t count_ = 0;
  uint64_t cached_bytes_ = 0;
  ReleaseBatch releases_;
  std::function<void(const Extent &)> release_cached_;
  bool release_served_ = true;
};

}  // namespace pfio
