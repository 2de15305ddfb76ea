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

// How the collective layer tells the job's dense runs, which it leaves to the kernel's readahead:
// ranges at most kDenseGap apart count as one run, and a run of kDenseRun bytes or more is dense.
constexpr uint64_t kDenseRun = 1 << 20;
constexpr uint64_t kDenseGap = 4 << 10;

// `ranges` (any order) sorted by offset, those at most `gap` apart joined while the joined range
// stays within max_span; empty ones dropped.
FileRanges JoinedRanges(FileRanges ranges, uint64_t max_span, uint64_t gap);

// The runs of at least kDenseRun bytes in the union of `ranges` (any order), sorted, where
// ranges at most kDenseGap apart count as one run: the job reads (nearly) every page of such a
// run, so the kernel's readahead marks are met and it reads ahead by itself. Farther apart
// (a column of tiles: 32 KiB of every 88 KiB row), no read meets the marks and the kernel reads
// only the pages asked for, one small request each (docs/measurements.md, "Dense runs and
// readahead").
FileRanges DenseRuns(FileRanges ranges);

// The parts of `ranges` outside `minus` (both sorted by offset and disjoint), in order.
FileRanges RangesWithout(const FileRanges &ranges, const FileRanges &minus);

// Whether [offset, offset + length) lies inside one of `sorted`'s ranges (sorted by offset).
bool InsideRanges(const FileRanges &sorted, uint64_t offset, uint64_t length);

// Every range of `lists` in one list sorted by offset (ties in list order). Lists that are
// sorted already (a rank's extents usually are) are merged, O(n log k) for k lists, instead of
// sorted again; the others are sorted first.
FileRanges MergedByOffset(const std::vector<FileRanges> &lists);

}  // namespace pfio::collective
