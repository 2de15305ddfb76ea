// AccessPlan: the application's future reads, in consumption order (libprefetch §4).
//
// Entries have absolute indices that only grow: front_index() is the next entry the application
// is expected to read; entries before it were consumed and are gone. The plan keeps what
// replace-after-mark needs: the most recently consumed marked entry and the entries consumed since.
// It checks nothing about files: callers validate extents before adding them.
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
  uint64_t end_index() const { return front_ + entries_.size(); }
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  const Extent &at(uint64_t index) const { return entries_[index - front_]; }

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

  // The number of leading `extents` that repeat, in order, what was consumed since the last mark.
  size_t ConsumedSinceMarkPrefix(const Extent *extents, size_t count) const;

  const std::optional<Extent> &last_mark() const { return last_mark_; }

 private:
  std::deque<Extent> entries_;
  uint64_t front_ = 0;
  std::optional<Extent> last_mark_;
  std::vector<Extent> since_mark_;  // consumed after last_mark_, in order (bounded)
};

}  // namespace pfio
