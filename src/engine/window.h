// Window: the access plan and the part of it being prefetched. Plan entries [front, end()) are
// in the window; each holds references to the pieces it needs (or is passthrough: part of a
// sequential run that the kernel's readahead serves better than a copy through the reorder
// buffer could, libprefetch §5.2). Planning admits entries while the unique bytes they need,
// the older pieces they share and their bookkeeping fit the window's budget, merging what they
// need into new byte ranges per file (repeats count once). Consumption, skips, removals and
// clears drop the references, and return the bytes that were read but never served.
//
// Guarded by the context's mutex: every method is called with it held.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "buffer/reorder_buffer.h"
#include "common/small_vector.h"
#include "engine/file_table.h"
#include "engine/pending_pages.h"
#include "partition/piece_mapper.h"
#include "plan/access_plan.h"

namespace pfio {

class Window {
 public:
  // The pieces a plan entry reads from: nearly always one or two.
  using PieceRefs = SmallVector<Piece *, 2>;
  struct Entry {
    PieceRefs refs;
    bool passthrough = false;
    uint64_t bytes = 0;  // the plan entry's length when it was admitted (0: passthrough)
  };
  // The pages a refill will fetch, per file; `bytes` counts them once.
  struct NewRanges {
    std::unordered_map<int32_t, PendingPages> by_file;
    uint64_t bytes = 0;
    uint64_t resident = 0;  // bytes of older pieces the new entries share
    uint64_t entries = 0;   // plan entries added
    uint64_t ranges = 0;    // merged new ranges (each at least one piece)
    std::unordered_set<const Piece *> shared;
    // The pending pages as merged byte ranges per file, for MapPieces.
    RangesByFile Sorted() const;
  };

  Window(const FileTable *files, ReorderBuffer *buffer) : files_(files), buffer_(buffer) {}

  AccessPlan &plan() { return plan_; }
  const AccessPlan &plan() const { return plan_; }
  // One past the last plan entry in the window.
  uint64_t end() const { return plan_.front_index() + entries_.size(); }
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  Entry &front() { return entries_.front(); }
  bool has_more() const { return end() < plan_.end_index(); }
  // True when the window ends in a run handed to readahead at least `entries` long: it needs no
  // more look-ahead than that to see where the run ends.
  bool PassthroughAhead(size_t entries) const {
    return !entries_.empty() && entries_.back().passthrough && entries_.size() >= entries;
  }
  // What the window being planned may use (set by Plan).
  uint64_t budget() const { return budget_; }
  // The bytes of the admitted entries not yet consumed (passthrough ones excluded): what the
  // page-cache kind has advised and nobody read yet, counted per entry, not per piece (a piece
  // spanning a batch's columns stays until its last column is read).
  uint64_t unread_bytes() const { return unread_bytes_; }

  // If the plan continues at end() with a sequential run (contiguous, ascending, at least
  // min_run bytes and reaching `limit` or the plan's end, or continuing a run already handed
  // over), adds up to `limit` bytes of it as passthrough entries and returns true.
  bool TakeSequentialRun(uint64_t limit, uint64_t min_run);

  // Ranges the job reads densely (pfio_plan_readahead): an entry planned inside one is
  // passthrough, left to the kernel's readahead, when it is the first planned in it or next to
  // another entry of it in the plan (a run); a later lone read of it is not. Replaces the
  // previous ranges.
  void SetReadahead(const std::vector<Extent> &ranges);

  // Admits entries from end() while they fit `budget` and unread_bytes() stays below
  // `unread_cap`; their new byte ranges go to *pending. Entries inside the readahead ranges are
  // added as passthrough, at no cost to the budget. The caller creates the pieces for them, then
  // calls AssignRefs(first new index).
  void Plan(uint64_t budget, NewRanges *pending, uint64_t unread_cap = UINT64_MAX);
  void AssignRefs(uint64_t first_new);

  // The front entry was read. Returns bytes wasted (read, never served) by dropping its refs.
  uint64_t ConsumeFront();
  // The front entry is skipped without being read.
  uint64_t SkipFront();
  // Looks for `pos` of file `id` in the next kResyncScan entries after the front; if found,
  // skips to it (adding to *wasted) and returns true.
  bool Resync(int32_t id, uint64_t pos, uint64_t *wasted);
  // Removes the not-yet-read entries `pred` selects.
  uint64_t RemoveIf(const std::function<bool(const Extent &)> &pred);
  // Replaces everything not yet read with what `fill` appends to the plan: the new entries are
  // planned by the caller (Refill) before the old references go (DropEntries), so pieces both
  // plans need are kept.
  std::deque<Entry> Replace(const std::function<void(AccessPlan *)> &fill) {
    return ReplaceAfter(0, fill);
  }
  // The same for everything after the first `keep` unread entries, which stay as they are
  // (their pieces, and passthrough as it was decided when they were planned); keep is at most
  // the plan's unread size.
  std::deque<Entry> ReplaceAfter(uint64_t keep, const std::function<void(AccessPlan *)> &fill);
  // How many of `extents` repeat, in order, the unread plan from its front.
  uint64_t SamePrefix(const Extent *extents, size_t count, uint64_t from) const;
  uint64_t DropEntries(std::deque<Entry> *entries);
  // Drops the whole unread plan (shutdown).
  uint64_t Clear();

  // A read that is not at the front is looked for this far ahead before it is called a miss;
  // bounding it keeps a plan that is entirely wrong from costing a scan per read.
  static constexpr uint64_t kResyncScan = 4096;

 private:
  bool Admit(uint64_t index, NewRanges *pending);
  // A range of SetReadahead, and whether an entry in it was planned yet.
  struct Readahead {
    uint64_t begin = 0, end = 0;
    bool planned = false;
  };
  // The readahead range holding all of `e`, or null.
  Readahead *ReadaheadOf(const Extent &e);
  // Whether plan entry `index` is read as part of a run through a readahead range (the
  // range's first entry planned, or one next to another of it in the plan); *in is the range
  // holding it (or null), which Plan marks planned once it adds the entry.
  bool InReadaheadRun(uint64_t index, Readahead **in);
  // Drops an entry's references; returns the bytes wasted (read, never served).
  uint64_t Drop(const PieceRefs &refs);
  uint64_t SequentialRunBytes(uint64_t from, uint64_t limit, uint64_t min_run) const;

  const FileTable *files_;
  ReorderBuffer *buffer_;
  AccessPlan plan_;
  std::deque<Entry> entries_;
  Extent passthrough_tail_;  // last entry handed to readahead (length 0: none yet)
  Extent planned_tail_;      // last entry Plan or TakeSequentialRun added (length 0: none yet)
  // Per file, the readahead ranges, sorted and merged.
  std::unordered_map<int32_t, std::vector<Readahead>> readahead_;
  uint64_t budget_ = 0;
  uint64_t unread_bytes_ = 0;
  // Admit's scratch space, kept so that admitting an entry allocates nothing.
  std::vector<Piece *> have_;
  std::vector<std::pair<uint64_t, uint64_t>> gaps_;
};

}  // namespace pfio
