#include "plan/access_plan.h"

namespace pfio {

namespace {
// Keeping every extent consumed since a mark would grow without bound on plans with no marks.
constexpr size_t kMaxSinceMark = 1 << 16;
}  // namespace

void AccessPlan::Append(const Extent *extents, size_t count) {
  entries_.insert(entries_.end(), extents, extents + count);
}

void AccessPlan::TruncateFrom(uint64_t index) {
  if (index < front_) index = front_;
  if (index >= end_index()) return;
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(index - front_), entries_.end());
}

void AccessPlan::ConsumeFront() {
  const Extent e = entries_.front();
  entries_.pop_front();
  ++front_;
  if (e.marked) {
    last_mark_ = e;
    since_mark_.clear();
  } else if (since_mark_.size() < kMaxSinceMark) {
    since_mark_.push_back(e);
  }
}

void AccessPlan::SkipFront() {
  entries_.pop_front();
  ++front_;
}

std::vector<size_t> AccessPlan::RemoveIf(const std::function<bool(const Extent &)> &pred) {
  std::vector<size_t> removed;
  std::deque<Extent> kept;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (pred(entries_[i])) {
      removed.push_back(i);
    } else {
      kept.push_back(entries_[i]);
    }
  }
  entries_.swap(kept);
  return removed;
}

size_t AccessPlan::ConsumedSinceMarkPrefix(const Extent *extents, size_t count) const {
  size_t n = 0;
  while (n < count && n < since_mark_.size() && extents[n].same_bytes(since_mark_[n])) ++n;
  return n;
}

}  // namespace pfio
