#include "buffer/buffer_pool.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
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

// The VmFlags line of the mapping that holds `p` (/proc/self/smaps), or "" if none holds it.
std::string VmFlagsAt(const char *p) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

bool HasFlag(const std::string &vmflags, const std::string &flag) {
  return (vmflags + " ").find(" " + flag + " ") != std::string::npos;
}

TEST(BufferPool, AskedForHugePagesTheRegionStartsOnAHugePageAndCarriesTheAdvice) {
  const uint64_t capacity = 3 * BufferPool::kHugePage + 5 * 4096;  // not a huge page multiple
  std::unique_ptr<BufferPool> huge, plain;
  ASSERT_TRUE(BufferPool::Create(capacity, &huge, true).ok());
  ASSERT_TRUE(BufferPool::Create(capacity, &plain, false).ok());
  char *first = huge->AllocatePage();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % BufferPool::kHugePage, 0u);
  const std::string flags = VmFlagsAt(first);
  ASSERT_NE(flags, "") << "no mapping in /proc/self/smaps holds the pool's first page";
  // The kernel's word for the advice ("hg") is there exactly when the pool says it took.
  EXPECT_EQ(HasFlag(flags, "hg"), huge->huge_pages()) << flags;
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  if (thp) {
    EXPECT_TRUE(huge->huge_pages()) << "a kernel with transparent huge pages refused";
  }
  char *plain_first = plain->AllocatePage();
  EXPECT_FALSE(plain->huge_pages());
  EXPECT_FALSE(HasFlag(VmFlagsAt(plain_first), "hg")) << VmFlagsAt(plain_first);
  // Every page of the capacity is usable and inside the mapping; one more is refused.
  std::vector<char *> got{first};
  while (char *p = huge->AllocatePage()) {
    std::memset(p, 9, 4096);
    got.push_back(p);
  }
  EXPECT_EQ(got.size(), capacity / 4096);
  EXPECT_EQ(got.back(), first + capacity - 4096);
  // Single pages still leave at once from inside a huge page, and their neighbours stay.
  std::memset(first, 9, 4096);
  std::vector<char *> leave{got[1], got[3]};
  huge->ReleasePages(leave.data(), leave.size());
  EXPECT_FALSE(Resident(got[1]));
  EXPECT_FALSE(Resident(got[3]));
  EXPECT_EQ(got[2][100], 9);
  EXPECT_EQ(first[4095], 9);
}

}  // namespace
}  // namespace pfio
