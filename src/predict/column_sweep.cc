#include "predict/column_sweep.h"

#include <algorithm>
#include <new>

namespace pfio::predict {

ColumnSweep::Step ColumnSweep::Observe(uint64_t offset, uint64_t length, uint64_t eof) {
  advice_.clear();
  near_ranges_ = 0;
  bool continues = false;
  if (row_ > 0 && length == size_ && row_ < kMaxRows) {
    const uint64_t prev = cur_[row_ - 1];
    if (rows_ > 0 && row_ < rows_) {  // inside a column that follows another
      continues = NextColumn(last_[row_], offset);
    } else if (rows_ == 0 && offset >= prev + kMinStride && offset >= prev + 2 * length) {
      const uint64_t stride = row_ > 1 ? cur_[1] - cur_[0] : offset - prev;
      const uint64_t delta = offset - prev;
      continues = delta + kNear >= stride && delta <= stride + kNear;
    }
  }
  if (!continues) NewColumn(offset, length);
  if (!Reserve(row_ + 1)) {
    Reset();  // no memory: no sweep, reads are as they were
    return Step::kNone;
  }
  cur_[row_++] = offset;
  if (rows_ == 0) {
    if (proven_ && row_ >= kMinRows && offset + length < eof) {  // maybe a sweep's first
      advice_.push_back({offset + length, std::min(kNearReads * length, eof - (offset + length))});
    }
    return Step::kNone;
  }
  if (!active_ && row_ == 2) return Step::kStart;  // two reads of a row one column on
  if (active_) AdviseRow(row_ - 1, offset + length, per_row_, eof);
  return Step::kNone;
}

void ColumnSweep::Start(uint64_t window, uint64_t eof) {
  advice_.clear();
  near_ranges_ = 0;
  if (rows_ == 0 || active_) return;  // nothing confirmed
  const uint64_t per_row = window / rows_;
  per_row_ = per_row < size_ ? size_ : per_row / size_ * size_;
  active_ = true;
  proven_ = true;
  std::copy(last_.begin(), last_.begin() + static_cast<std::ptrdiff_t>(rows_), first_.begin());
  // What the reader needs next first: it then waits behind nothing else that is advised.
  for (size_t r = 0; r < rows_; ++r) {
    ahead_[r] = 0;
    AdviseRow(r, (r < row_ ? cur_[r] : last_[r]) + size_, kNearReads * size_, eof);
  }
  near_ranges_ = advice_.size();
  for (size_t r = 0; r < rows_; ++r)
    AdviseRow(r, (r < row_ ? cur_[r] : last_[r]) + size_, per_row_, eof);
}

void ColumnSweep::Reset() {
  rows_ = row_ = 0;
  size_ = 0;
  active_ = false;
  advice_.clear();
  near_ranges_ = 0;
}

bool ColumnSweep::NextColumn(uint64_t prev, uint64_t offset) const {
  return offset >= prev + size_ && offset <= prev + size_ + kNear;
}

void ColumnSweep::NewColumn(uint64_t offset, uint64_t length) {
  if (active_ && row_ != rows_) active_ = false;  // a column of another height: not the sweep's
  if (row_ >= kMinRows) {                         // the column just ended is the one to follow
    std::swap(last_, cur_);
    rows_ = row_;
  } else {
    rows_ = 0;
    active_ = false;
  }
  row_ = 0;
  size_ = length;
  if (rows_ > 0 && !NextColumn(last_[0], offset)) {
    rows_ = 0;  // not one read length to the right of the column before
    active_ = false;
  }
}

void ColumnSweep::AdviseRow(size_t r, uint64_t from, uint64_t want, uint64_t eof) {
  const uint64_t start = std::max(ahead_[r], from);
  uint64_t end = from + want;
  // Not past where the sweep's first column read the next row: the row's data ends there when
  // the array is stored row by row.
  if (r + 1 < rows_ && first_[r + 1] >= from && end > first_[r + 1]) end = first_[r + 1];
  end = std::min(end, eof);
  if (ahead_[r] > from && 2 * (ahead_[r] - from) >= want) return;  // at least half still ahead
  if (end <= start) return;
  advice_.push_back({start, end - start});
  ahead_[r] = end;
}

bool ColumnSweep::Reserve(size_t n) {
  if (n <= capacity_) return true;
  size_t capacity = capacity_ ? capacity_ : 256;
  while (capacity < n) capacity *= 2;
  try {  // the four arrays alike: cur_ and last_ trade places at each new column
    for (std::vector<uint64_t> *v : {&cur_, &last_, &first_, &ahead_}) v->resize(capacity);
  } catch (const std::bad_alloc &) {
    return false;  // those grown stay (freed with the sweep); capacity_ is what all four have
  }
  capacity_ = capacity;
  return true;
}

}  // namespace pfio::predict
