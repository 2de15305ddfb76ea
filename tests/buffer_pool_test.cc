#include "buffer/buffer_pool.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <vector>

namespace pfio {

TEST(BufferPool, NeverHandsOutMoreThanItsCapacity) {
  std::unique_ptr<BufferPool> pool;
  ASSERT_TRUE(BufferPool::Create(16 * 4096, &pool).ok());
  std::vector<char *> got;
  while (char *p = pool->AllocatePage()) {
    std::memset(p, 1, 4096);
    got.push_back(p);
  }
  EXPECT_EQ(got.size(), 16u);
  EXPECT_EQ(pool->in_use(), 16u * 4096);
  std::set<char *> distinct(got.begin(), got.end());
  EXPECT_EQ(distinct.size(), 16u);
  for (char *p : got) EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 4096, 0u);
  // Untouched pages come out in address order: pieces allocated together are contiguous.
  for (size_t i = 1; i < got.size(); ++i) EXPECT_EQ(got[i], got[i - 1] + 4096);
  for (char *p : got) pool->FreePage(p);
  EXPECT_EQ(pool->in_use(), 0u);
}

TEST(BufferPool, FreedPagesAreReusedAndReleasingKeepsPagesInUse) {
  std::unique_ptr<BufferPool> pool;
  ASSERT_TRUE(BufferPool::Create(8 * 4096, &pool).ok());
  std::vector<char *> got;
  for (int i = 0; i < 8; ++i) got.push_back(pool->AllocatePage());
  EXPECT_EQ(pool->AllocatePage(), nullptr);
  for (int i = 0; i < 8; i += 2) pool->FreePage(got[i]);  // every other page free
  EXPECT_EQ(pool->in_use(), 4u * 4096);
  std::memset(got[1], 7, 4096);
  pool->ReleaseFreeMemory();  // must not disturb pages in use
  EXPECT_EQ(got[1][4095], 7);
  char *again = pool->AllocatePage();
  EXPECT_TRUE(again == got[0] || again == got[2] || again == got[4] || again == got[6]);
  std::memset(again, 3, 4096);  // a released page is usable again
  EXPECT_EQ(again[0], 3);
}

}  // namespace pfio
