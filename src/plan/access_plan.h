// AccessPlan: the application's future reads, in consumption order (libprefetch §4).
//
// Entries have absolute indices that only grow: front_index() is the next entry the application
// is expected to read; entries before it were consumed and are gone. The plan keeps what
// replace-after-mark needs: the most recently consumed marked entry and the entries consumed since.
// It checks nothing about files: callers validate extents before adding them.
//
// Storage is compact: consecutive unmarked extents of one file with the same length at a constant
// stride (a file read block after block, a column of a matrix, a strided subarray, the same block
// over and over) are kept as one run of kRunBytes, whatever their number; a random plan costs
// kRunBytes per extent. heap_bytes() says what the plan holds, so that the engine can charge it
// against the memory budget. Walking the plan forwards or backwards from the last index asked
// for costs O(1) per step; at() of an arbitrary index costs O(runs between).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "plan/extent.h"

namespace pfio {

class AccessPlan {
 public:
  uint64_t front_index() const { return front_; }
  uint64_t end_index() const { return front_ + size_; }
  bool empty() const { return size_ == 0; }
  uint64_t size() const { return size_; }
  // The extent at absolute `index` (front_index() <= index < end_index()).
  Extent at(uint64_t index) const;
  // The extent at front_index() (the plan is not empty), in O(1): the front run starts there.
  Extent front() const { return runs_.front().nth(0); }

  void Append(const Extent *extents, size_t count);

  // Drops every entry at or after `index`.
  void TruncateFrom(uint64_t index);

  // The front entry was read: remove it and remember it for marks.
  void ConsumeFront();

  // Removes the front entry without counting it as read (skipped by a resync).
  void SkipFront();

  // Removes all not-yet-consumed entries for which `pred` is true; returns their relative
  // positions (0 = front) before removal, ascending.
  std::vector<size_t> RemoveIf(const std::function<bool(const Extent &)> &pred);

  // The number of leading `extents` that repeat, in order, what was consumed since the last mark
  // from its `from`-th extent on.
  size_t ConsumedSinceMarkPrefix(const Extent *extents, size_t count, size_t from = 0) const;

  const std::optional<Extent> &last_mark() const { return last_mark_; }

  // Runs held, and the heap bytes they and the since-mark list take.
  size_t runs() const { return runs_.size(); }
  uint64_t heap_bytes() const;
  // What `count` more extents can cost at most (each its own run).
  static uint64_t MaxBytesFor(uint64_t count) { return count * kRunBytes; }

 private:
  // count extents: offset, offset + stride, ... (uint64 arithmetic; stride may be negative).
  struct Run {
    uint64_t offset;
    uint64_t length;
    uint64_t stride;
    uint32_t count;
    int32_t file;
    bool marked;
    Extent nth(uint64_t k) const { return Extent{file, marked, offset + k * stride, length}; }
  };
  static constexpr uint64_t kRunBytes = sizeof(Run);

  void AppendOne(const Extent &e);
  void DropFront();  // the front extent, consumed or skipped
  // Where a run is: its position in runs_ and the absolute index of its first extent.
  struct Cursor {
    size_t run;
    uint64_t first;
  };
  // The run holding `index`, found from the nearest of the two cursors, the first run and the
  // last; the cursor it started from (or the farther one) is moved there. Two cursors, because
  // the engine asks for both ends of its window in turn (the front it reads, the end it plans
  // from): one cursor walked the whole window twice per read on plans of single extents.
  Cursor Seek(uint64_t index) const;
  void ResetCursors() const { cursors_[0] = cursors_[1] = Cursor{0, front_}; }

  std::deque<Run> runs_;
  uint64_t front_ = 0;
  uint64_t size_ = 0;
  mutable Cursor cursors_[2] = {{0, 0}, {0, 0}};  // where the last Seeks ended
  std::optional<Extent> last_mark_;
  std::vector<Extent> since_mark_;  // consumed after last_mark_, in order (bounded)
};

}  // namespace pfio
