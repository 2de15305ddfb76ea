#include "buffer/buffer_pool.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
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

namespace pfio {
namespace {

// Whether the page at `p` is resident (mincore).
bool Resident(char *p) {
  unsigned char v = 0;
  EXPECT_EQ(mincore(p, 4096, &v), 0);
  return (v & 1) != 0;
}

// Every page of the pool, each written (so resident) with the byte 5.
std::vector<char *> TouchAll(BufferPool *pool, int pages) {
  std::vector<char *> got;
  for (int i = 0; i < pages; ++i) {
    got.push_back(pool->AllocatePage());
    std::memset(got.back(), 5, 4096);
  }
  return got;
}

TEST(BufferPool, ReleasedPagesLeaveTheProcessAtOnceAndThePagesInUseStay) {
  std::unique_ptr<BufferPool> pool;
  ASSERT_TRUE(BufferPool::Create(64 * 4096, &pool).ok());
  const std::vector<char *> got = TouchAll(pool.get(), 64);
  // a run of adjacent pages and two lone ones
  std::vector<char *> leave(got.begin() + 8, got.begin() + 40);
  leave.push_back(got[50]);
  leave.push_back(got[60]);
  for (char *p : leave) ASSERT_TRUE(Resident(p));
  pool->ReleasePages(leave.data(), leave.size());
  EXPECT_EQ(pool->in_use(), (64u - 34u) * 4096);
  for (char *p : leave) EXPECT_FALSE(Resident(p)) << "page " << (p - got[0]) / 4096;
  for (int i : {0, 7, 40, 49, 51, 63}) {
    EXPECT_TRUE(Resident(got[i]));
    EXPECT_EQ(got[i][4095], 5) << "page " << i << " in use was disturbed";
  }
  char *again = pool->AllocatePage();  // a released page is handed out again, as zeros
  EXPECT_NE(std::find(leave.begin(), leave.end(), again), leave.end());
  EXPECT_EQ(again[0], 0);
}

TEST(BufferPool, ReleasingReachesPagesFreedSinceTheLastReleaseAndThoseOfAnEmptiedPool) {
  std::unique_ptr<BufferPool> pool;
  ASSERT_TRUE(BufferPool::Create(32 * 4096, &pool).ok());
  const std::vector<char *> got = TouchAll(pool.get(), 32);
  pool->FreePage(got[3]);
  pool->ReleaseFreeMemory();
  EXPECT_FALSE(Resident(got[3]));
  pool->FreePage(got[4]);  // freed after the release: resident until the next one
  EXPECT_TRUE(Resident(got[4]));
  pool->ReleaseFreeMemory();
  EXPECT_FALSE(Resident(got[4]));
  for (int i = 0; i < 32; ++i) {
    if (i != 3 && i != 4) pool->FreePage(got[i]);
  }
  EXPECT_EQ(pool->in_use(), 0u);  // emptied: pages go out in address order again
  char *first = pool->AllocatePage();
  EXPECT_EQ(first, got[0]);
  EXPECT_TRUE(Resident(got[20])) << "a freed page stays resident until a release";
  pool->ReleaseFreeMemory();  // the pages past the first, used before the pool emptied
  for (int i = 1; i < 32; ++i) EXPECT_FALSE(Resident(got[i])) << "page " << i;
  EXPECT_TRUE(Resident(first));
}

}  // namespace
}  // namespace pfio
