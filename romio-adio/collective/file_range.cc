#include "collective/file_range.h"

#include <algorithm>

namespace pfio::collective {

namespace {

bool ByOffset(const FileRange &x, const FileRange &y) {
  return x.offset < y.offset;
}

}  // namespace

FileRanges JoinedRanges(FileRanges ranges, uint64_t max_span, uint64_t gap) {
  SortIfUnsorted(ranges.begin(), ranges.end(), ByOffset);  // often sorted (MergedByOffset)
  FileRanges joined;
  for (const FileRange &r : ranges) {
    if (r.length == 0) continue;
    if (!joined.empty() && r.offset <= joined.back().end() + gap &&
        r.end() - joined.back().offset <= max_span) {
      joined.back().length = std::max(joined.back().end(), r.end()) - joined.back().offset;
      continue;
    }
    joined.push_back(r);
  }
  return joined;
}

FileRanges DenseRuns(FileRanges ranges) {
  FileRanges out;
  for (const FileRange &r : JoinedRanges(std::move(ranges), UINT64_MAX, kDenseGap))
    if (r.length >= kDenseRun) out.push_back(r);
  return out;
}

FileRanges RangesWithout(const FileRanges &ranges, const FileRanges &minus) {
  FileRanges out;
  auto before = minus.begin();
  for (const FileRange &r : ranges) {
    uint64_t at = r.offset;
    while (before != minus.end() && before->end() <= at) ++before;
    for (auto it = before; it != minus.end() && it->offset < r.end(); ++it) {
      if (it->offset > at) out.push_back({at, it->offset - at});
      at = std::max(at, it->end());
    }
    if (at < r.end()) out.push_back({at, r.end() - at});
  }
  return out;
}

bool InsideRanges(const FileRanges &sorted, uint64_t offset, uint64_t length) {
  auto it = std::upper_bound(sorted.begin(), sorted.end(), offset,
                             [](uint64_t off, const FileRange &a) { return off < a.offset; });
  if (it == sorted.begin()) return false;
  --it;
  return it->offset <= offset && offset + length <= it->end();
}

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
