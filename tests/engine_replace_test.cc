// A plan replaced call by call, as the collective layer replaces it (this call and the next ones,
// one call further each time): the unread entries the new plan starts with are kept as they are
// (engine/window.h ReplaceAfter), every byte is served from the plan, none is read twice, in
// either buffer kind; and a replacement that turns away from a wrong guess keeps only what it
// repeats.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "api_context.h"
#include "pfio/pfio.h"
#include "test_util.h"

namespace pfio {
namespace {

using namespace test;  // Context, ReadAll, kSeed, kMiB

// Call k reads column k of a table: 8 KiB of every 256 KiB row, 16 rows, calls side by side
// (rows far enough apart that neither kind joins them). Each call's plan is the call and the
// next 3, as `guess(k, j)` names the column of call j planned at call k.
class SlidingPlan : public ::testing::TestWithParam<const char *> {
 protected:
  static constexpr int kCalls = 8, kAhead = 3, kRows = 16;
  static constexpr uint64_t kBlock = 8192;

  SlidingPlan()
      : path_(dir_.MakeFile("sliding", 8 * kMiB, kSeed)), c_([] {
          Settings settings = Context::Config(4 * kMiB, "pipelined", "auto");
          settings.push_back({"buffer", GetParam()});
          return settings;
        }()) {
    file_ = c_.Open(path_);
  }
  std::vector<pfio_extent> Column(int k) const {
    std::vector<pfio_extent> v;
    for (int r = 0; r < kRows; ++r)
      v.push_back({file_, 0,
                   static_cast<uint64_t>(r) * 256 * 1024 + static_cast<uint64_t>(k) * kBlock,
                   kBlock});
    return v;
  }
  void ReadCalls(const std::function<int(int, int)> &guess) {
    for (int k = 0; k < kCalls; ++k) {
      std::vector<pfio_extent> plan = Column(k);
      for (int j = k + 1; j <= k + kAhead && j < kCalls; ++j) {
        std::vector<pfio_extent> more = Column(guess(k, j));
        plan.insert(plan.end(), more.begin(), more.end());
      }
      ASSERT_EQ(pfio_plan_replace(c_.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
      ReadAll(c_, Column(k), kSeed);
    }
  }
  ScratchDir dir_;
  std::string path_;
  Context c_;
  int32_t file_ = -1;
};

TEST_P(SlidingPlan, ReplacingWithTheSameStartKeepsItAndReadsEveryBlockOnce) {
  ReadCalls([](int, int j) { return j; });
  pfio_stats s = c_.Stats();
  EXPECT_EQ(s.hits, static_cast<uint64_t>(kCalls * kRows));
  EXPECT_EQ(s.misses, 0u);
  EXPECT_EQ(s.bytes_served, static_cast<uint64_t>(kCalls * kRows) * kBlock);
  // Each block prefetched at most once: a replacement that planned kept entries again, or
  // dropped and re-read their pieces, would read more. The reorder buffer's reads all landed
  // before their bytes were served; the page-cache kind's reads never wait for their advice, so
  // an advice may land after this (poll, bounded), or be dropped when its bytes were read first.
  for (int i = 0; i < 50 && s.bytes_read < s.bytes_served; ++i) {
    usleep(10000);
    s = c_.Stats();
  }
  if (std::string(GetParam()) == "engine")
    EXPECT_EQ(s.bytes_read, s.bytes_served);
  else
    EXPECT_LE(s.bytes_read, s.bytes_served);
  EXPECT_EQ(s.bytes_wasted, 0u);
}

// The calls planned ahead are a wrong guess (another column) past call 4 until call 4's plan
// names the right ones: that replacement repeats only call 4 of the old plan, and keeping more
// (the wrong guesses) would make the reads of calls 5-7 misses.
TEST_P(SlidingPlan, AReplacementThatTurnsAwayKeepsOnlyWhatItRepeats) {
  ReadCalls([](int k, int j) { return k < 4 && j > 4 ? j + 16 : j; });
  const pfio_stats s = c_.Stats();
  EXPECT_EQ(s.misses, 0u);
  EXPECT_EQ(s.hits, static_cast<uint64_t>(kCalls * kRows));
}

INSTANTIATE_TEST_SUITE_P(BufferKinds, SlidingPlan, ::testing::Values("engine", "cache"));

}  // namespace
}  // namespace pfio
