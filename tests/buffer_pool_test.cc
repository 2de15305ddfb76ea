#include "buffer/buffer_pool.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace pfio {

TEST(BufferPool, NeverHandsOutMoreThanItsCapacity) {
  std::unique_ptr<BufferPool> pool;
  ASSERT_TRUE(BufferPool::Create(16 * 4096, &pool).ok());
  std::vector<char *> got;
  while (char *p = pool->Allocate(4096)) {
    std::memset(p, 1, 4096);
    got.push_back(p);
  }
  EXPECT_EQ(got.size(), 16u);
  EXPECT_EQ(pool->in_use(), 16u * 4096);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(got[i]) % 4096, 0u);
  }
  for (char *p : got) pool->Free(p, 4096);
  EXPECT_EQ(pool->in_use(), 0u);
  EXPECT_EQ(pool->largest_free_run(), 16u * 4096);  // free runs coalesced again
}

TEST(BufferPool, FragmentationFailsLargeRequestsButNotSmallOnes) {
  std::unique_ptr<BufferPool> pool;
  ASSERT_TRUE(BufferPool::Create(8 * 4096, &pool).ok());
  std::vector<char *> got;
  for (int i = 0; i < 8; ++i) got.push_back(pool->Allocate(4096));
  for (int i = 0; i < 8; i += 2) pool->Free(got[i], 4096);  // every other page free
  EXPECT_EQ(pool->Allocate(2 * 4096), nullptr);
  EXPECT_NE(pool->Allocate(4096), nullptr);
  pool->ReleaseFreeMemory();  // must not disturb pages in use
  std::memset(got[1], 7, 4096);
  EXPECT_EQ(got[1][4095], 7);
}

}  // namespace pfio
