#include "plan/access_plan.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>

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

TEST(AccessPlan, RunsAndStridesAreOneEntry) {
  AccessPlan p;
  std::vector<Extent> v;
  for (uint64_t i = 0; i < 1000000; ++i) v.push_back(Extent{0, false, i * 65536, 4096});
  p.Append(v.data(), v.size());  // a column: one length, one stride
  for (uint64_t i = 0; i < 1000; ++i) v[i] = Extent{1, false, (999 - i) * 4096, 4096};
  p.Append(v.data(), 1000);  // backwards through another file
  EXPECT_EQ(p.size(), 1001000u);
  EXPECT_EQ(p.runs(), 2u);
  EXPECT_LT(p.heap_bytes(), 1024u);
  EXPECT_EQ(p.at(999999).offset, uint64_t{999999} * 65536);
  EXPECT_EQ(p.at(1000000).offset, 999u * 4096);
  EXPECT_EQ(p.at(1000999).offset, 0u);
  EXPECT_EQ(p.at(1000999).file, 1);
  EXPECT_EQ(p.at(5).offset, 5u * 65536);  // and back again
}

// Random appends (runs, repeats, marks, random extents), consumes, skips, truncations and
// removals, each checked extent by extent against a plain list.
TEST(AccessPlan, CompactStorageBehavesAsAPlainList) {
  std::mt19937_64 rng(17);
  AccessPlan p;
  std::deque<Extent> model;
  uint64_t front = 0;
  for (int step = 0; step < 3000; ++step) {
    const int op = static_cast<int>(rng() % 10);
    if (op < 4) {  // append a run, a repeat, or random extents, sometimes marked
      std::vector<Extent> v;
      const int n = 1 + static_cast<int>(rng() % 20);
      const uint64_t start = rng() % 1000 * 4096, len = 4096 * (1 + rng() % 2);
      const int64_t stride = static_cast<int64_t>(rng() % 5) * 4096 - 8192;
      const int32_t file = static_cast<int32_t>(rng() % 2);
      for (int i = 0; i < n; ++i) {
        const bool random = rng() % 4 == 0;
        const uint64_t off = random ? rng() % 1000 * 4096 : start + i * stride;
        v.push_back(Extent{file, rng() % 16 == 0, off, len});
      }
      p.Append(v.data(), v.size());
      model.insert(model.end(), v.begin(), v.end());
    } else if (op < 7 && !model.empty()) {
      p.ConsumeFront();
      model.pop_front();
      ++front;
    } else if (op == 7 && !model.empty()) {
      p.SkipFront();
      model.pop_front();
      ++front;
    } else if (op == 8 && !model.empty()) {
      const uint64_t at = front + rng() % model.size();
      p.TruncateFrom(at);
      model.erase(model.begin() + static_cast<std::ptrdiff_t>(at - front), model.end());
    } else if (op == 9) {
      const uint64_t bad = rng() % 1000 * 4096;
      auto pred = [bad](const Extent &e) { return e.offset == bad || e.file == 1; };
      std::vector<size_t> want;
      std::deque<Extent> kept;
      for (size_t i = 0; i < model.size(); ++i) {
        if (pred(model[i])) {
          want.push_back(i);
        } else {
          kept.push_back(model[i]);
        }
      }
      EXPECT_EQ(p.RemoveIf(pred), want);
      model.swap(kept);
    }
    ASSERT_EQ(p.front_index(), front);
    ASSERT_EQ(p.size(), model.size());
    if (!model.empty()) {
      ASSERT_TRUE(p.front().same_bytes(model.front()) && p.front().marked == model.front().marked)
          << "step " << step;
    }
    // Forwards, then backwards, then by random jumps.
    for (size_t i = 0; i < model.size(); ++i) {
      const Extent e = p.at(front + i);
      ASSERT_TRUE(e.same_bytes(model[i]) && e.marked == model[i].marked) << "step " << step;
    }
    for (size_t i = model.size(); i-- > 0;) ASSERT_TRUE(p.at(front + i).same_bytes(model[i]));
    for (int k = 0; k < 5 && !model.empty(); ++k) {
      const size_t i = rng() % model.size();
      ASSERT_TRUE(p.at(front + i).same_bytes(model[i]));
    }
  }
}

}  // namespace pfio
