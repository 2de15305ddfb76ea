// The access plan's bounds through the public C API: an extent count that cannot be held is an
// error, not an abort; the plan is charged to the budget and stored compactly; a plan too large
// for the budget is refused before it is built (peak memory measured with VmHWM).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "api_context.h"
#include "pfio/pfio.h"
#include "test_util.h"

namespace pfio {
namespace {

using namespace test;  // Context, RandomBlocks, ReadAll, Settings, kSeed, kMiB

TEST(EngineRead, AnImpossibleExtentCountIsAnErrorNotAnAbort) {
  test::ScratchDir dir;
  std::string path = dir.MakeFile("count", 1 * kMiB, kSeed);
  Context c(2 * kMiB, "pipelined");
  int32_t f = c.Open(path);
  pfio_extent e{f, 0, 0, 4096};
  for (size_t count : {static_cast<size_t>(-1), static_cast<size_t>(1) << 40}) {
    EXPECT_EQ(pfio_plan_append(c.ctx, &e, count), PFIO_ENOMEM) << count;
    EXPECT_NE(std::string(pfio_last_error()).find("count = " + std::to_string(count)),
              std::string::npos)
        << pfio_last_error();
  }
  // The context still works.
  ASSERT_EQ(pfio_plan_append(c.ctx, &e, 1), PFIO_OK);
  ReadAll(c, {e});
}

// The plan is charged to the budget and stored compactly: 2 M extents of strided columns take
// one entry per pass (a few hundred KiB) at a 16 MiB budget; 2 M random extents, which would need
// tens of MiB, are refused with the sizes named and the plan left as it was.
TEST(EngineRead, PlanOutsideTheBudgetIsBoundedAndCompact) {
  test::ScratchDir dir;
  const uint64_t size = 16 * kMiB;
  std::string path = dir.MakeFile("bigplan", size, kSeed);
  Context c(16 * kMiB, "pipelined");
  int32_t f = c.Open(path);
  const size_t n = 2000000;
  std::vector<pfio_extent> v(n);
  // Strided columns: one run per pass over the file (256 extents each).
  for (size_t i = 0; i < n; ++i) v[i] = {f, 0, (i * 65536) % size, 4096};
  ASSERT_EQ(pfio_plan_append(c.ctx, v.data(), n), PFIO_OK) << pfio_last_error();
  std::mt19937_64 rng(9);
  for (auto &e : v) e.offset = rng() % (size / 4096) * 4096;
  EXPECT_EQ(pfio_plan_append(c.ctx, v.data(), n), PFIO_ENOMEM);
  const std::string msg = pfio_last_error();
  EXPECT_NE(msg.find("with 2000000 extents added"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected at most half the memory budget"), std::string::npos) << msg;
  // Nothing of the refused append was kept: the strided plan reads as planned, all hits.
  std::vector<pfio_extent> first(n);
  for (size_t i = 0; i < 3000; ++i) first[i] = {f, 0, (i * 65536) % size, 4096};
  first.resize(3000);
  ReadAll(c, first);
  EXPECT_EQ(c.Stats().misses, 0u);
}

// kB of a "VmHWM:" or "VmRSS:" line of /proc/self/status.
uint64_t StatusKiB(const char *key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::strtoull(line.c_str() + std::strlen(key), nullptr, 10);
  return 0;
}

// A plan too large for the budget is refused before it is built: appending or replacing 4M
// extents of their own runs (160 MB as the plan stores them) under a 64 MiB budget (32 MiB for
// the plan) raises the process's peak memory by at most the bound and a little, not by the plan
// (before: +200 MiB for the append, +428 MiB for the replace, measured by a hostile probe).
TEST(EngineRead, APlanTooLargeIsRefusedBeforeItIsBuilt) {
  test::ScratchDir dir;
  const std::string path = dir.path() + "/sparse";
  const uint64_t size = 1ull << 40;  // sparse: only the size matters here
  {
    std::ofstream(path).close();
    ASSERT_EQ(truncate(path.c_str(), static_cast<off_t>(size)), 0);
  }
  Context c(64 * kMiB, "pipelined");
  int32_t f = c.Open(path);
  const size_t n = 4 << 20;
  std::vector<pfio_extent> v(n);
  std::mt19937_64 rng(17);
  for (auto &e : v) e = {f, 0, rng() % (size / 4096) * 4096, 4096};
    // A sanitizer adds to what the plan takes: ASan redzones and its shadow (1/8), TSan a shadow
    // of 4 bytes per byte touched (the release bound x 5: the plan built whole, as before, would
    // still exceed it there by far).
#if defined(__SANITIZE_THREAD__)
  const uint64_t bound_kib = 5 * (32 + 16) * 1024;
#elif defined(__SANITIZE_ADDRESS__)
  const uint64_t bound_kib = (32 + 32) * 1024;
#else
  const uint64_t bound_kib = (32 + 16) * 1024;
#endif
  for (const bool replace : {false, true}) {
    std::ofstream reset("/proc/self/clear_refs");
    reset << "5" << std::flush;  // the peak (VmHWM) starts again from what is resident now
    ASSERT_TRUE(reset.good()) << "cannot reset the peak resident size of this process";
    const uint64_t before = StatusKiB("VmHWM:");
    if (replace) {
      EXPECT_EQ(pfio_plan_replace(c.ctx, v.data(), n), PFIO_ENOMEM);
      EXPECT_NE(std::string(pfio_last_error()).find("the plan is unchanged"), std::string::npos);
    } else {
      EXPECT_EQ(pfio_plan_append(c.ctx, v.data(), n), PFIO_ENOMEM);
    }
    const uint64_t grew_kib = StatusKiB("VmHWM:") - before;
    std::printf("peak resident size grew by %llu KiB while 4M extents were refused (%s)\n",
                static_cast<unsigned long long>(grew_kib), replace ? "replace" : "append");
    EXPECT_LT(grew_kib, bound_kib) << "the refused plan was built beyond the bound";
  }
  // Nothing of either was kept: a small plan reads as planned.
  const std::string small = dir.MakeFile("small", 4 * kMiB, kSeed);
  int32_t g = c.Open(small);
  ReadAll(c, {pfio_extent{g, 0, 8192, 4096}, pfio_extent{g, 0, 65536, 100}});
}

}  // namespace
}  // namespace pfio
