#include "io/advised_ranges.h"

#include <algorithm>
#include <iterator>

namespace pfio {

bool AdvisedRanges::CoversIn(const Ranges &ranges, uint64_t begin, uint64_t end) {
  auto it = ranges.upper_bound(begin);
  if (it == ranges.begin()) return false;
  --it;
  return it->first <= begin && end <= it->second;
}

bool AdvisedRanges::Covers(uint64_t offset, uint64_t length) const {
  if (length == 0 || offset + length < offset) return false;
  return CoversIn(current_, offset, offset + length) ||
         CoversIn(previous_, offset, offset + length);
}

void AdvisedRanges::Add(uint64_t offset, uint64_t length) {
  if (length == 0) return;
  uint64_t begin = offset, end = offset + length < offset ? UINT64_MAX : offset + length;
  if (current_.size() >= kGeneration) {
    previous_ = std::move(current_);
    current_.clear();
  }
  auto it = current_.upper_bound(begin);
  if (it != current_.begin() && std::prev(it)->second >= begin) {
    --it;
    begin = it->first;
    end = std::max(end, it->second);
    it = current_.erase(it);
  }
  while (it != current_.end() && it->first <= end) {
    end = std::max(end, it->second);
    it = current_.erase(it);
  }
  current_.emplace_hint(it, begin, end);
}

void AdvisedRanges::ForgetIn(Ranges *ranges, uint64_t begin, uint64_t end) {
  auto it = ranges->upper_bound(begin);
  if (it != ranges->begin() && std::prev(it)->second > begin) --it;
  while (it != ranges->end() && it->first < end) {
    const uint64_t b = it->first, e = it->second;
    it = ranges->erase(it);
    if (b < begin) ranges->emplace(b, begin);
    if (e > end) it = ranges->emplace(end, e).first;
  }
}

void AdvisedRanges::Forget(uint64_t offset, uint64_t length) {
  if (length == 0) return;
  const uint64_t end = offset + length < offset ? UINT64_MAX : offset + length;
  ForgetIn(&current_, offset, end);
  ForgetIn(&previous_, offset, end);
}

}  // namespace pfio
