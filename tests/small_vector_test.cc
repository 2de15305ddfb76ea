#include "common/small_vector.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace pfio {
namespace {

TEST(SmallVector, HoldsItsFirstValuesInPlaceThenGrowsOnTheHeap) {
  SmallVector<uint64_t, 2> v;
  EXPECT_TRUE(v.empty());
  v.push_back(10);
  v.push_back(11);
  const uint64_t *in_place = v.data();
  EXPECT_EQ(v.capacity(), 2u);
  EXPECT_GE(reinterpret_cast<const char *>(in_place), reinterpret_cast<const char *>(&v));
  EXPECT_LT(reinterpret_cast<const char *>(in_place), reinterpret_cast<const char *>(&v + 1));
  for (uint64_t i = 12; i < 1000; ++i) v.push_back(i);
  EXPECT_EQ(v.size(), 990u);
  EXPECT_NE(v.data(), in_place);
  uint64_t want = 10;
  for (uint64_t x : v) EXPECT_EQ(x, want++);
  EXPECT_EQ(v.back(), 999u);
  v.clear();
  EXPECT_TRUE(v.empty());
  EXPECT_GE(v.capacity(), 990u) << "clear keeps the storage";
}

TEST(SmallVector, MovesTakeTheValuesAndLeaveTheSourceEmpty) {
  for (size_t n : {1u, 2u, 3u, 50u}) {  // in place and on the heap
    SmallVector<int *, 2> a;
    std::vector<int> backing(n);
    for (size_t i = 0; i < n; ++i) a.push_back(&backing[i]);
    SmallVector<int *, 2> b(std::move(a));
    EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the contract says empty
    ASSERT_EQ(b.size(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(b[i], &backing[i]);
    SmallVector<int *, 2> c;
    c.push_back(nullptr);
    c = std::move(b);
    ASSERT_EQ(c.size(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(c[i], &backing[i]);
    a.push_back(&backing[0]);  // a moved-from vector is usable again
    EXPECT_EQ(a.size(), 1u);
  }
}

TEST(SmallVector, ReserveKeepsTheValues) {
  SmallVector<uint32_t, 4> v;
  for (uint32_t i = 0; i < 3; ++i) v.push_back(i * 7);
  v.reserve(100);
  EXPECT_EQ(v.capacity(), 100u);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[2], 14u);
  v.reserve(10);  // never shrinks
  EXPECT_EQ(v.capacity(), 100u);
}

}  // namespace
}  // namespace pfio
