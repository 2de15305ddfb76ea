// NextUse answers "when is this block referenced next?" for a fixed reference sequence: the index
// of the first reference to a block at or after a cursor, or kNever. Built once from the sequence
// (per-block position lists, binary search per query). Blocks are dense ids below `blocks`.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace pfio {

class NextUse {
 public:
  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

  NextUse(const std::vector<uint32_t> &refs, size_t blocks) : pos_(blocks) {
    for (uint32_t i = 0; i < refs.size(); ++i) pos_[refs[i]].push_back(i);
  }
  uint64_t At(uint32_t block, uint64_t cursor) const {
    const auto &v = pos_[block];
    auto it = std::lower_bound(v.begin(), v.end(), cursor);
    return it == v.end() ? kNever : *it;
  }

 private:
  std::vector<std::vector<uint32_t>> pos_;
};

}  // namespace pfio
