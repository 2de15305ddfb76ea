#include "plan/access_plan.h"

#include <gtest/gtest.h>

namespace pfio {

namespace {
Extent E(uint64_t off, bool mark = false) {
  return Extent{0, mark, off, 4096};
}
}  // namespace

TEST(AccessPlan, IndicesGrowAsEntriesAreConsumed) {
  AccessPlan p;
  Extent v[] = {E(0), E(8192), E(0)};
  p.Append(v, 3);
  EXPECT_EQ(p.front_index(), 0u);
  EXPECT_EQ(p.end_index(), 3u);
  p.ConsumeFront();
  EXPECT_EQ(p.front_index(), 1u);
  EXPECT_EQ(p.at(1).offset, 8192u);
  p.TruncateFrom(2);
  EXPECT_EQ(p.end_index(), 2u);
}

TEST(AccessPlan, RemoveIfReportsRelativePositions) {
  AccessPlan p;
  Extent v[] = {E(0), E(4096), E(8192), E(4096)};
  p.Append(v, 4);
  auto removed = p.RemoveIf([](const Extent &e) { return e.offset == 4096; });
  ASSERT_EQ(removed.size(), 2u);
  EXPECT_EQ(removed[0], 1u);
  EXPECT_EQ(removed[1], 3u);
  EXPECT_EQ(p.size(), 2u);
  EXPECT_EQ(p.at(1).offset, 8192u);
}

TEST(AccessPlan, MarksRememberWhatWasReadSince) {
  AccessPlan p;
  Extent v[] = {E(0), E(4096, true), E(8192), E(12288), E(16384)};
  p.Append(v, 5);
  EXPECT_FALSE(p.last_mark().has_value());
  p.ConsumeFront();
  p.ConsumeFront();  // the mark
  ASSERT_TRUE(p.last_mark().has_value());
  EXPECT_EQ(p.last_mark()->offset, 4096u);
  p.ConsumeFront();  // 8192 read since the mark
  Extent rebuilt[] = {E(8192), E(12288), E(20480)};
  EXPECT_EQ(p.ConsumedSinceMarkPrefix(rebuilt, 3), 1u);
  Extent other[] = {E(40960)};
  EXPECT_EQ(p.ConsumedSinceMarkPrefix(other, 1), 0u);
  p.SkipFront();  // a skip is not a read
  EXPECT_EQ(p.ConsumedSinceMarkPrefix(rebuilt, 3), 1u);
}

}  // namespace pfio
