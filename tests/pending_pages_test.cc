// PendingPages: the pages a window will fetch, counted once, with their runs and merged ranges.
#include "engine/pending_pages.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "common/page.h"

namespace pfio {
namespace {

TEST(PendingPages, RepeatsCountOnceAndNeighboursMergeIntoRuns) {
  PendingPages p;
  EXPECT_EQ(p.Add(10, 12), 2u);  // pages 10, 11: one run
  EXPECT_EQ(p.runs(), 1u);
  EXPECT_EQ(p.CountMissing(8, 14), 4u);  // 8, 9, 12, 13
  EXPECT_EQ(p.Add(11, 13), 1u);          // only 12 is new; the run grows
  EXPECT_EQ(p.runs(), 1u);
  EXPECT_EQ(p.Add(20, 21), 1u);  // a second run
  EXPECT_EQ(p.Add(0, 1), 1u);    // page 0 has no left neighbour to look at
  EXPECT_EQ(p.runs(), 3u);
  EXPECT_EQ(p.Add(13, 20), 7u);  // fills the hole: two runs become one
  EXPECT_EQ(p.runs(), 2u);
  const auto ranges = p.Ranges();
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0], std::make_pair(uint64_t{0}, kPage));
  EXPECT_EQ(ranges[1], std::make_pair(10 * kPage, 21 * kPage));
  EXPECT_EQ(p.pages(), 12u);
}

TEST(PendingPages, AgreesWithAnOrderedSetThroughManyGrowths) {
  std::mt19937_64 rng(7);
  PendingPages p;
  std::set<uint64_t> ref;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t first = rng() % 50000, last = first + 1 + rng() % 4;
    uint64_t missing = 0;
    for (uint64_t q = first; q < last; ++q) missing += !ref.count(q);
    ASSERT_EQ(p.CountMissing(first, last), missing);
    ASSERT_EQ(p.Add(first, last), missing);
    for (uint64_t q = first; q < last; ++q) ref.insert(q);
  }
  uint64_t runs = 0;
  for (uint64_t q : ref) runs += q == 0 || !ref.count(q - 1);
  EXPECT_EQ(p.runs(), runs);
  EXPECT_EQ(p.pages(), ref.size());
  const auto ranges = p.Ranges();
  ASSERT_EQ(ranges.size(), runs);
  uint64_t covered = 0, last_end = 0;
  for (auto [a, b] : ranges) {
    if (last_end > 0) {
      EXPECT_LT(last_end, a);  // sorted, and apart (else they would be merged)
    }
    EXPECT_TRUE(ref.count(a / kPage) && ref.count(b / kPage - 1));
    covered += (b - a) / kPage;
    last_end = b;
  }
  EXPECT_EQ(covered, ref.size());
}

}  // namespace
}  // namespace pfio
