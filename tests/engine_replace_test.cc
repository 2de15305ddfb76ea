// A plan replaced call by call, as the collective layer replaces it (this call and the next ones,
// one call further each time): the unread entries the new plan starts with are kept as they are
// (engine/window.h ReplaceAfter), every byte is served from the plan, none is read twice, in
// either buffer kind; and a replacement that turns away from a wrong guess keeps only what it
// repeats.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "api_context.h"
#include "pfio/pfio.h"
#include "test_util.h"

namespace pfio {
namespace {

using namespace test;  // Context, ReadAll, kSeed, kMiB

class SlidingPlan : public ::testing::TestWithParam<const char *> {};

TEST_P(SlidingPlan, ReplacingWithTheSameStartKeepsItAndReadsEveryBlockOnce) {
  ScratchDir dir;
  const uint64_t size = 8 * kMiB, block = 8192;
  std::string path = dir.MakeFile("sliding", size, kSeed);
  Settings settings = Context::Config(4 * kMiB, "pipelined", "auto");
  settings.push_back({"buffer", GetParam()});
  settings.push_back({"infill_max", "0"});
  Context c(settings);
  int32_t f = c.Open(path);
  // Call k reads column k of a table: 8 KiB of every 256 KiB row, 16 rows, calls side by side
  // (rows far enough apart that neither kind joins them). The plan: this call and the next 3.
  const int calls = 8, ahead = 3, rows = 16;
  auto call = [&](int k) {
    std::vector<pfio_extent> v;
    for (int r = 0; r < rows; ++r)
      v.push_back(
          {f, 0, static_cast<uint64_t>(r) * 256 * 1024 + static_cast<uint64_t>(k) * block, block});
    return v;
  };
  for (int k = 0; k < calls; ++k) {
    std::vector<pfio_extent> plan;
    for (int j = k; j <= k + ahead && j < calls; ++j) {
      std::vector<pfio_extent> more = call(j);
      plan.insert(plan.end(), more.begin(), more.end());
    }
    ASSERT_EQ(pfio_plan_replace(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
    ReadAll(c, call(k), kSeed);
  }
  pfio_stats s = c.Stats();
  EXPECT_EQ(s.hits, static_cast<uint64_t>(calls * rows));
  EXPECT_EQ(s.misses, 0u);
  EXPECT_EQ(s.bytes_served, static_cast<uint64_t>(calls * rows) * block);
  // Each block prefetched at most once: a replacement that planned kept entries again, or
  // dropped and re-read their pieces, would read more. The reorder buffer's reads all landed
  // before their bytes were served; the page-cache kind's reads never wait for their advice, so
  // an advice may land after this (poll, bounded), or be dropped when its bytes were read first.
  for (int i = 0; i < 50 && s.bytes_read < s.bytes_served; ++i) {
    usleep(10000);
    s = c.Stats();
  }
  if (std::string(GetParam()) == "engine")
    EXPECT_EQ(s.bytes_read, s.bytes_served);
  else
    EXPECT_LE(s.bytes_read, s.bytes_served);
  EXPECT_EQ(s.bytes_wasted, 0u);
}

// The same plans, but the calls planned ahead are a wrong guess (another column) until call 4,
// whose plan then names the right ones: that replacement repeats only call 4 of the old plan, and
// keeping more (the wrong guesses) would make the reads of calls 5-7 misses.
TEST_P(SlidingPlan, AReplacementThatTurnsAwayKeepsOnlyWhatItRepeats) {
  ScratchDir dir;
  const uint64_t size = 8 * kMiB, block = 8192;
  std::string path = dir.MakeFile("turning", size, kSeed);
  Settings settings = Context::Config(4 * kMiB, "pipelined", "auto");
  settings.push_back({"buffer", GetParam()});
  Context c(settings);
  int32_t f = c.Open(path);
  const int calls = 8, ahead = 3, rows = 16;
  auto column = [&](int k) {
    std::vector<pfio_extent> v;
    for (int r = 0; r < rows; ++r)
      v.push_back(
          {f, 0, static_cast<uint64_t>(r) * 256 * 1024 + static_cast<uint64_t>(k) * block, block});
    return v;
  };
  for (int k = 0; k < calls; ++k) {
    std::vector<pfio_extent> plan = column(k);
    for (int j = k + 1; j <= k + ahead && j < calls; ++j) {
      std::vector<pfio_extent> more = column(k < 4 && j > 4 ? j + 16 : j);  // wrong past call 4
      plan.insert(plan.end(), more.begin(), more.end());
    }
    ASSERT_EQ(pfio_plan_replace(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
    ReadAll(c, column(k), kSeed);
  }
  const pfio_stats s = c.Stats();
  EXPECT_EQ(s.misses, 0u);
  EXPECT_EQ(s.hits, static_cast<uint64_t>(calls * rows));
}

INSTANTIATE_TEST_SUITE_P(BufferKinds, SlidingPlan, ::testing::Values("engine", "cache"));

}  // namespace
}  // namespace pfio
