// MergedByOffset: one list sorted by offset from several, exactly what a stable sort of the
// lists one after the other gives (ties in list order), whether the lists come sorted or not;
// and the range algebra the collective layer tells the job's dense runs with (RangesWithout,
// DenseRuns).
#include "collective/file_range.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace pfio::collective {
namespace {

FileRanges StableSorted(const std::vector<FileRanges> &lists) {
  FileRanges all;
  for (const FileRanges &l : lists) all.insert(all.end(), l.begin(), l.end());
  std::stable_sort(all.begin(), all.end(),
                   [](const FileRange &x, const FileRange &y) { return x.offset < y.offset; });
  return all;
}

TEST(MergedByOffset, InterleavedSortedListsComeOutInFileOrder) {
  // Three ranks' rows of a block decomposition: sorted each, interleaved with each other.
  const std::vector<FileRanges> lists = {
      {{0, 8}, {30, 8}, {60, 8}}, {{10, 8}, {40, 8}, {70, 8}}, {{20, 8}, {50, 8}}};
  EXPECT_EQ(MergedByOffset(lists),
            (FileRanges{{0, 8}, {10, 8}, {20, 8}, {30, 8}, {40, 8}, {50, 8}, {60, 8}, {70, 8}}));
}

TEST(MergedByOffset, EqualOffsetsKeepTheOrderOfTheirLists) {
  // Lengths tell the lists apart: list 0's range first, then list 1's, then list 2's.
  const std::vector<FileRanges> lists = {{{5, 1}}, {{5, 2}, {9, 1}}, {{5, 3}}};
  EXPECT_EQ(MergedByOffset(lists), (FileRanges{{5, 1}, {5, 2}, {5, 3}, {9, 1}}));
}

TEST(MergedByOffset, UnsortedAndEmptyListsToo) {
  EXPECT_TRUE(MergedByOffset({}).empty());
  EXPECT_TRUE(MergedByOffset({{}, {}}).empty());
  const std::vector<FileRanges> lists = {{}, {{90, 1}, {10, 1}, {50, 1}}, {}, {{20, 1}}};
  EXPECT_EQ(MergedByOffset(lists), (FileRanges{{10, 1}, {20, 1}, {50, 1}, {90, 1}}));
}

TEST(MergedByOffset, AgreesWithAStableSortOnRandomLists) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<FileRanges> lists(rng() % 10);  // 0..9 lists: odd and even counts of blocks
    for (FileRanges &l : lists) {
      l.resize(rng() % 40);
      for (FileRange &r : l) r = {rng() % 64, 1 + rng() % 5};  // many equal offsets
      if (rng() % 3 != 0)                                      // most lists come sorted
        std::stable_sort(l.begin(), l.end(), [](const FileRange &x, const FileRange &y) {
          return x.offset < y.offset;
        });
    }
    ASSERT_EQ(MergedByOffset(lists), StableSorted(lists)) << "trial " << trial;
  }
}

TEST(RangesWithout, KeepsThePartsOutsideTheOtherRanges) {
  const FileRanges ranges = {{0, 100}, {200, 100}, {400, 50}};
  // Cuts the first range twice, covers the second whole, and touches none of the third.
  const FileRanges minus = {{10, 20}, {50, 10}, {190, 120}, {450, 10}};
  EXPECT_EQ(RangesWithout(ranges, minus), (FileRanges{{0, 10}, {30, 20}, {60, 40}, {400, 50}}));
  EXPECT_EQ(RangesWithout(ranges, {}), ranges);
  EXPECT_TRUE(RangesWithout({}, minus).empty());
}

constexpr uint64_t kMiB = 1 << 20;

TEST(DenseRuns, JoinCloseRangesAndDropShortRuns) {
  const FileRanges runs = DenseRuns({
      {10 * kMiB, kMiB / 2},  // joined with the next: gap one page
      {10 * kMiB + kMiB / 2 + 4096, kMiB / 2},
      {0, kMiB - 1},                // one byte short of a run
      {3 * kMiB, kMiB},             // a run alone
      {3 * kMiB + kMiB / 4, kMiB},  // overlapping it
      {6 * kMiB, kMiB / 2},         // gap one page + 1: not joined
      {6 * kMiB + kMiB / 2 + 4096 + 1, kMiB / 2},
  });
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0], (FileRange{3 * kMiB, kMiB + kMiB / 4}));
  EXPECT_EQ(runs[1], (FileRange{10 * kMiB, kMiB + 4096}));
  EXPECT_TRUE(InsideRanges(runs, 3 * kMiB + 5, kMiB));
  EXPECT_FALSE(InsideRanges(runs, 3 * kMiB + 5, 2 * kMiB));
  EXPECT_FALSE(InsideRanges(runs, 0, 1));
}

// A column of tiles read by every rank together (32 KiB of every 88 KiB row) is no dense run:
// no read meets the kernel's readahead marks there, so it must be advised (it was left to
// readahead and read 32 KiB at a time: tiles at 0.06-0.3x stock ROMIO on the 2 ms test bed).
TEST(DenseRuns, AColumnOfTilesIsNoDenseRun) {
  FileRanges column;
  for (uint64_t row = 0; row < 1024; ++row) column.push_back({row * 90112, 32768});
  EXPECT_TRUE(DenseRuns(column).empty());
  // The same rows read whole are one run.
  FileRanges rows;
  for (uint64_t row = 0; row < 1024; ++row) rows.push_back({row * 90112, 90112});
  EXPECT_EQ(DenseRuns(rows), (FileRanges{{0, 1024 * 90112}}));
}

}  // namespace
}  // namespace pfio::collective
