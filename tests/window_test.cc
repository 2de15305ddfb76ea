// Window: budgeted admission (repeats count once, shared older pieces count, bookkeeping
// counts), references, sequential runs left to readahead, consumption, resync, removal, and a
// replacement that keeps the unread entries the new plan starts with.
#include "engine/window.h"

#include <gtest/gtest.h>

#include "memory/memory_governor.h"
#include "partition/piece_mapper.h"
#include "reorder_buffer_fixture.h"
namespace pfio {
namespace {

constexpr uint64_t kKiB = 1024;

class WindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    buffer_ = test::MakeReorderBuffer();
    FileHandle h;
    h.path = "/f";
    h.size = 64 << 20;
    file_ = files_.Add(h);
    window_ = std::make_unique<Window>(&files_, buffer_.get());
  }
  void Append(std::initializer_list<std::pair<uint64_t, uint64_t>> extents) {
    std::vector<Extent> v;
    for (auto [o, l] : extents) v.push_back(Extent{file_, false, o, l});
    window_->plan().Append(v.data(), v.size());
  }
  // Plans with `budget`, creates the pieces and assigns references; returns the new pieces.
  std::vector<Piece *> Plan(uint64_t budget, Window::NewRanges *pending) {
    const uint64_t first = window_->end();
    window_->Plan(budget, pending);
    std::vector<Piece *> fresh;
    MapPieces(
        pending->Sorted(), nullptr, 1 << 20, [&](int32_t f) { return files_.size(f); },
        buffer_.get(), &fresh);
    window_->AssignRefs(first);
    return fresh;
  }
  FileTable files_;
  int32_t file_ = 0;
  std::unique_ptr<ReorderBuffer> buffer_;
  std::unique_ptr<Window> window_;
};

TEST_F(WindowTest, RepeatsCountOnceAndTheBudgetStopsAdmission) {
  Append({{0, 4 * kKiB}, {8 * kKiB, 4 * kKiB}, {0, 4 * kKiB}, {64 * kKiB, 4 * kKiB}});
  Window::NewRanges pending;
  // Room for two unique 4K blocks and the bookkeeping of three entries and three pieces (an
  // entry's gap is charged as a piece before it is merged: the charge errs high, never low)
  // holding two pages.
  const uint64_t budget = 8 * kKiB + MemoryGovernor::Metadata(3, 3, 2);
  auto fresh = Plan(budget, &pending);
  EXPECT_EQ(window_->size(), 3u);  // the repeat of [0, 4K) costs no bytes; the fourth does not fit
  EXPECT_EQ(pending.bytes, 8 * kKiB);
  EXPECT_EQ(fresh.size(), 2u);
  EXPECT_EQ(window_->front().refs.size(), 1u);
  Piece *first = window_->front().refs[0];
  EXPECT_EQ(first->refs, 2u);  // entries 0 and 2 hold it
  EXPECT_EQ(first->first_use, 0u);
}

TEST_F(WindowTest, AnOlderPieceSharedByANewEntryCountsAgainstTheBudget) {
  Append({{0, 64 * kKiB}});
  Window::NewRanges first;
  Plan(1 << 20, &first);
  Append({{0, 4 * kKiB}, {128 * kKiB, 4 * kKiB}});
  Window::NewRanges second;
  // Enough for the new 4K block, not for it and the 64K piece the first new entry shares.
  Plan(32 * kKiB, &second);
  EXPECT_EQ(window_->size(), 1u);  // only the old entry: the sharing entry did not fit
}

TEST_F(WindowTest, ConsumingDropsReferencesAndCountsUnservedBytesAsWasted) {
  Append({{0, 4 * kKiB}, {4 * kKiB, 4 * kKiB}});
  Window::NewRanges pending;
  auto fresh = Plan(1 << 20, &pending);
  ASSERT_EQ(fresh.size(), 1u);  // [0, 8K) merged into one piece
  Piece *p = fresh[0];
  ASSERT_TRUE(buffer_->Allocate(p));
  buffer_->Issued(p);
  buffer_->Landed(p, true, 0);
  EXPECT_EQ(window_->ConsumeFront(), 0u);        // the second entry still holds it
  EXPECT_EQ(window_->ConsumeFront(), 8 * kKiB);  // never served: all of it wasted
  EXPECT_TRUE(window_->empty());
  EXPECT_EQ(buffer_->piece_count(), 0u);
}

TEST_F(WindowTest, SequentialRunsAreLeftToReadahead) {
  Append({{0, 256 * kKiB}, {256 * kKiB, 256 * kKiB}, {512 * kKiB, 256 * kKiB}});
  EXPECT_TRUE(window_->TakeSequentialRun(16 << 20, 512 * kKiB));
  EXPECT_EQ(window_->size(), 3u);
  EXPECT_TRUE(window_->front().passthrough);
  EXPECT_TRUE(window_->PassthroughAhead(3));
  Append({{64 << 20 >> 1, 4 * kKiB}});  // a random block after the run
  EXPECT_FALSE(window_->TakeSequentialRun(16 << 20, 512 * kKiB));
}

TEST_F(WindowTest, ResyncSkipsToALaterEntryAndRemoveIfDropsEntries) {
  Append({{0, 4 * kKiB}, {40 * kKiB, 4 * kKiB}, {80 * kKiB, 4 * kKiB}, {120 * kKiB, 4 * kKiB}});
  Window::NewRanges pending;
  Plan(1 << 20, &pending);
  uint64_t wasted = 0;
  EXPECT_FALSE(window_->Resync(file_, 1 << 20, &wasted));  // nowhere in the plan
  EXPECT_TRUE(window_->Resync(file_, 80 * kKiB + 10, &wasted));
  EXPECT_EQ(window_->plan().front_index(), 2u);
  EXPECT_EQ(window_->size(), 2u);
  window_->RemoveIf([](const Extent &e) { return e.offset == 120 * kKiB; });
  EXPECT_EQ(window_->size(), 1u);
  EXPECT_EQ(window_->plan().size(), 1u);
  window_->Clear();
  EXPECT_TRUE(window_->empty());
  EXPECT_FALSE(window_->has_more());
}

TEST_F(WindowTest, AReplacementKeepsTheEntriesTheNewPlanStartsWith) {
  Append({{0, 4 * kKiB}, {40 * kKiB, 4 * kKiB}, {80 * kKiB, 4 * kKiB}, {120 * kKiB, 4 * kKiB}});
  Window::NewRanges pending;
  Plan(1 << 20, &pending);
  window_->ConsumeFront();
  Piece *second = window_->front().refs[0];
  // The new plan repeats [40K) and [80K), then goes elsewhere: 2 kept, [120K) replaced.
  const std::vector<Extent> next = {{file_, false, 40 * kKiB, 4 * kKiB},
                                    {file_, false, 80 * kKiB, 4 * kKiB},
                                    {file_, false, 160 * kKiB, 4 * kKiB}};
  EXPECT_EQ(window_->SamePrefix(next.data(), next.size(), 0), 2u);
  EXPECT_EQ(window_->SamePrefix(next.data() + 1, 2, 1), 1u);  // from the second unread entry
  EXPECT_EQ(window_->SamePrefix(next.data() + 2, 1, 0), 0u);
  std::deque<Window::Entry> old =
      window_->ReplaceAfter(2, [&](AccessPlan *plan) { plan->Append(next.data() + 2, 1); });
  EXPECT_EQ(old.size(), 1u);  // [120K)'s entry, for the caller to drop
  EXPECT_EQ(window_->size(), 2u);
  EXPECT_EQ(window_->front().refs[0], second);  // the same piece, not planned again
  EXPECT_EQ(window_->plan().size(), 3u);
  EXPECT_EQ(window_->plan().at(window_->plan().front_index() + 2).offset, 160 * kKiB);
  EXPECT_EQ(window_->DropEntries(&old), 0u);  // never read: nothing wasted
  Window::NewRanges more;
  EXPECT_EQ(Plan(1 << 20, &more).size(), 1u);  // a piece for [160K) only
  EXPECT_EQ(window_->size(), 3u);
  // A plan that starts differently keeps nothing.
  EXPECT_EQ(window_->SamePrefix(next.data() + 1, 2, 0), 0u);
}

}  // namespace
}  // namespace pfio
