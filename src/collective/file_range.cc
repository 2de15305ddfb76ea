#include "collective/file_range.h"

#include <algorithm>

namespace pfio::collective {

namespace {

bool ByOffset(const FileRange &x, const FileRange &y) {
  return x.offset < y.offset;
}

}  // namespace

FileRanges MergedByOffset(const std::vector<FileRanges> &lists) {
  FileRanges out;
  size_t total = 0;
  for (const FileRanges &l : lists) total += l.size();
  out.reserve(total);
  // Each list appended as a sorted block; neighbouring blocks merged pairwise, in passes
  // between two buffers, like a bottom-up merge sort whose first pass is already done.
  std::vector<size_t> bounds{0};
  for (const FileRanges &l : lists) {
    if (l.empty()) continue;
    const auto first = out.end() - out.begin();
    out.insert(out.end(), l.begin(), l.end());
    SortIfUnsorted(out.begin() + first, out.end(), ByOffset);
    bounds.push_back(out.size());
  }
  if (bounds.size() <= 2) return out;
  FileRanges other(out.size());
  auto at = [](FileRanges &v, size_t i) { return v.begin() + static_cast<std::ptrdiff_t>(i); };
  while (bounds.size() > 2) {
    std::vector<size_t> next{0};
    size_t i = 0;
    for (; i + 2 < bounds.size(); i += 2) {  // std::merge is stable: the first block's go first
      std::merge(at(out, bounds[i]), at(out, bounds[i + 1]), at(out, bounds[i + 1]),
                 at(out, bounds[i + 2]), at(other, bounds[i]), ByOffset);
      next.push_back(bounds[i + 2]);
    }
    if (i + 1 < bounds.size()) {  // an odd block out, copied as it is
      std::copy(at(out, bounds[i]), at(out, bounds[i + 1]), at(other, bounds[i]));
      next.push_back(bounds[i + 1]);
    }
    out.swap(other);
    bounds = std::move(next);
  }
  return out;
}

}  // namespace pfio::collective
