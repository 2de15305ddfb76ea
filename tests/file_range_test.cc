// MergedByOffset: one list sorted by offset from several, exactly what a stable sort of the
// lists one after the other gives (ties in list order), whether the lists come sorted or not.
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

}  // namespace
}  // namespace pfio::collective
