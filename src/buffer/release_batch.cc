#include "buffer/release_batch.h"

#include <algorithm>

namespace pfio {

void ReleaseBatch::Add(int32_t file, uint64_t offset, uint64_t length) {
  ranges_.push_back({file, false, offset, length});
  bytes_ += length;
}

std::vector<Extent> ReleaseBatch::Take() {
  std::sort(ranges_.begin(), ranges_.end(), [](const Extent &a, const Extent &b) {
    return a.file != b.file ? a.file < b.file : a.offset < b.offset;
  });
  std::vector<Extent> merged;
  for (const Extent &r : ranges_) {
    if (!merged.empty() && merged.back().file == r.file &&
        merged.back().offset + merged.back().length == r.offset) {
      merged.back().length += r.length;
    } else {
      merged.push_back(r);
    }
  }
  ranges_.clear();
  bytes_ = 0;
  return merged;
}

}  // namespace pfio
