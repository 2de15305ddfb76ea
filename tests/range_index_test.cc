// RangeIndex: the page-cache kind's pieces by offset. Lookups return every piece a range
// touches, in order, including one that starts before the range; erased pieces are gone.
#include "buffer/range_index.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace pfio {
namespace {

Piece *Fake(uintptr_t n) {
  return reinterpret_cast<Piece *>(n * 64);
}

std::vector<Piece *> Over(const RangeIndex &index, uint64_t begin, uint64_t end) {
  std::vector<Piece *> out;
  index.Overlapping(begin, end, &out);
  return out;
}

TEST(RangeIndex, FindsEveryPieceARangeTouchesInOrder) {
  RangeIndex index;
  EXPECT_TRUE(Over(index, 0, 1 << 30).empty());
  index.Insert(1 << 20, 3 << 20, Fake(1));  // [1, 3) MiB
  index.Insert(4 << 20, 5 << 20, Fake(2));  // [4, 5) MiB
  index.Insert(5 << 20, 6 << 20, Fake(3));  // touches the one before
  EXPECT_TRUE(Over(index, 0, 1 << 20).empty()) << "ends where the first starts";
  EXPECT_EQ(Over(index, 2 << 20, 2 << 20 | 4096), std::vector<Piece *>{Fake(1)})
      << "inside one that starts before the range";
  EXPECT_TRUE(Over(index, 3 << 20, 4 << 20).empty()) << "the hole between two";
  EXPECT_EQ(Over(index, (3 << 20) - 4096, (5 << 20) + 4096),
            (std::vector<Piece *>{Fake(1), Fake(2), Fake(3)}));
  EXPECT_EQ(Over(index, 6 << 20, 7 << 20), std::vector<Piece *>{});
  EXPECT_EQ(index.size(), 3u);
  EXPECT_GE(index.heap_bytes(), 3 * 48u);
  index.Erase(4 << 20);
  EXPECT_EQ(Over(index, 4 << 20, 6 << 20), std::vector<Piece *>{Fake(3)});
  std::vector<Piece *> all;
  index.ForEach([&](Piece *p) { all.push_back(p); });
  EXPECT_EQ(all, (std::vector<Piece *>{Fake(1), Fake(3)}));
  index.Erase(1 << 20);
  index.Erase(5 << 20);
  EXPECT_TRUE(index.empty());
  EXPECT_EQ(index.heap_bytes(), 0u);
}

}  // namespace
}  // namespace pfio
