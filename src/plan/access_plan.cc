#include "plan/access_plan.h"

#include <limits>

namespace pfio {

namespace {
// Keeping every extent consumed since a mark would grow without bound on plans with no marks.
constexpr size_t kMaxSinceMark = 1 << 16;
}  // namespace

uint64_t AccessPlan::heap_bytes() const {
  return runs_.size() * kRunBytes + since_mark_.capacity() * sizeof(Extent);
}

void AccessPlan::AppendOne(const Extent &e) {
  if (!runs_.empty() && !e.marked) {
    Run &last = runs_.back();
    if (!last.marked && last.file == e.file && last.length == e.length &&
        last.count < std::numeric_limits<uint32_t>::max()) {
      if (last.count == 1) {
        last.stride = e.offset - last.offset;
        last.count = 2;
        ++size_;
        return;
      }
      if (last.offset + last.count * last.stride == e.offset) {
        ++last.count;
        ++size_;
        return;
      }
    }
  }
  runs_.push_back(Run{e.offset, e.length, 0, 1, e.file, e.marked});
  ++size_;
}

void AccessPlan::Append(const Extent *extents, size_t count) {
  for (size_t i = 0; i < count; ++i) AppendOne(extents[i]);
}

size_t AccessPlan::Seek(uint64_t index) const {
  if (cursor_run_ >= runs_.size() || cursor_run_ == 0) {
    cursor_run_ = 0;
    cursor_first_ = front_;
  }
  while (index < cursor_first_) {
    --cursor_run_;
    cursor_first_ -= runs_[cursor_run_].count;
  }
  while (index >= cursor_first_ + runs_[cursor_run_].count) {
    cursor_first_ += runs_[cursor_run_].count;
    ++cursor_run_;
  }
  return cursor_run_;
}

Extent AccessPlan::at(uint64_t index) const {
  const size_t r = Seek(index);
  return runs_[r].nth(index - cursor_first_);
}

void AccessPlan::TruncateFrom(uint64_t index) {
  if (index < front_) index = front_;
  if (index >= end_index()) return;
  const size_t r = Seek(index);
  const uint64_t keep = index - cursor_first_;  // of run r
  runs_[r].count = static_cast<uint32_t>(keep);
  runs_.erase(runs_.begin() + static_cast<std::ptrdiff_t>(r) + (keep > 0 ? 1 : 0), runs_.end());
  size_ = index - front_;
  cursor_run_ = 0;
  cursor_first_ = front_;
}

void AccessPlan::DropFront() {
  Run &f = runs_.front();
  if (--f.count == 0) {
    runs_.pop_front();
  } else {
    f.offset += f.stride;
  }
  ++front_;
  --size_;
  // Every run keeps its first index, but positions in runs_ may have moved: start over.
  cursor_run_ = 0;
  cursor_first_ = front_;
}

void AccessPlan::ConsumeFront() {
  const Extent e = runs_.front().nth(0);
  DropFront();
  if (e.marked) {
    last_mark_ = e;
    since_mark_.clear();
  } else if (since_mark_.size() < kMaxSinceMark) {
    since_mark_.push_back(e);
  }
}

void AccessPlan::SkipFront() {
  DropFront();
}

std::vector<size_t> AccessPlan::RemoveIf(const std::function<bool(const Extent &)> &pred) {
  std::vector<size_t> removed;
  std::deque<Run> old;
  old.swap(runs_);
  size_ = 0;
  size_t pos = 0;
  for (const Run &r : old) {
    for (uint64_t k = 0; k < r.count; ++k, ++pos) {
      const Extent e = r.nth(k);
      if (pred(e)) {
        removed.push_back(pos);
      } else {
        AppendOne(e);
      }
    }
  }
  cursor_run_ = 0;
  cursor_first_ = front_;
  return removed;
}

size_t AccessPlan::ConsumedSinceMarkPrefix(const Extent *extents, size_t count, size_t from) const {
  size_t n = 0;
  while (n < count && from + n < since_mark_.size() && extents[n].same_bytes(since_mark_[from + n]))
    ++n;
  return n;
}

}  // namespace pfio
