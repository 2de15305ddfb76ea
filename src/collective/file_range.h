// FileRange: bytes [offset, offset + length) of the one file a collective call reads. The
// collective layer's unit: plans on the wire, pieces an aggregator reads, bytes a rank receives.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pfio::collective {

struct FileRange {
  uint64_t offset = 0;
  uint64_t length = 0;

  uint64_t end() const { return offset + length; }
  bool operator==(const FileRange &) const = default;
};

using FileRanges = std::vector<FileRange>;

// Appends [offset, offset + length) to `ranges` as a request is exchanged: empty ranges are
// dropped, and a range that starts where the previous one ends extends it.
inline void AppendCoalesced(FileRanges *ranges, uint64_t offset, uint64_t length) {
  if (length == 0) return;
  if (!ranges->empty() && ranges->back().end() == offset)
    ranges->back().length += length;
  else
    ranges->push_back({offset, length});
}

// Stable-sorts [first, last) by `less` unless it is sorted already, as the collective layer's
// lists (a rank's extents, a round's reads) usually are: the check is linear, the sort is not.
template <class It, class Less>
void SortIfUnsorted(It first, It last, Less less) {
  if (!std::is_sorted(first, last, less)) std::stable_sort(first, last, less);
}

// Every range of `lists` in one list sorted by offset (ties in list order). Lists that are
// sorted already (a rank's extents usually are) are merged, O(n log k) for k lists, instead of
// sorted again; the others are sorted first.
FileRanges MergedByOffset(const std::vector<FileRanges> &lists);

}  // namespace pfio::collective
