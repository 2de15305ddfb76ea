// The engine through the public C API on real files: every byte read is checked against the
// self-verifying pattern, for every plan shape, window mode and backend.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "api_context.h"
#include "pfio/pfio.h"
#include "test_util.h"

namespace pfio {
namespace {

using namespace test;  // Context, RandomBlocks, ReadAll, Settings, kSeed, kMiB

class WindowModes : public ::testing::TestWithParam<std::string> {};

TEST_P(WindowModes, RandomGatherLargerThanBudgetVerifiesAndStaysInBudget) {
  test::ScratchDir dir;
  const uint64_t size = 16 * kMiB;
  std::string path = dir.MakeFile("gather", size, kSeed);
  Context c(4 * kMiB, GetParam());
  int32_t f = c.Open(path);
  auto plan = RandomBlocks(f, size, 4096, 4096, 1);
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
  ReadAll(c, plan);
  pfio_stats s = c.Stats();
  EXPECT_EQ(s.reads, plan.size());
  EXPECT_EQ(s.hits, plan.size());
  EXPECT_EQ(s.misses, 0u);
  EXPECT_LE(s.memory_peak, s.budget_cap);
  EXPECT_LE(s.budget_cap, 4 * kMiB);
  EXPECT_GT(s.windows, 1u);  // the plan did not fit in one window
  EXPECT_EQ(s.bytes_served, plan.size() * 4096);
  EXPECT_STREQ(s.backend, "aio");
}

TEST_P(WindowModes, SequentialLargeExtentsAreSplitAndServed) {
  test::ScratchDir dir;
  const uint64_t size = 8 * kMiB + 1234;  // not a page multiple
  std::string path = dir.MakeFile("seq", size, kSeed);
  Context c(3 * kMiB, GetParam());
  int32_t f = c.Open(path);
  std::vector<pfio_extent> plan;
  for (uint64_t off = 0; off < size; off += 300000) {
    plan.push_back(pfio_extent{f, 0, off, std::min<uint64_t>(300000, size - off)});
  }
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK);
  ReadAll(c, plan);
  EXPECT_EQ(c.Stats().misses, 0u);
}

INSTANTIATE_TEST_SUITE_P(Modes, WindowModes, ::testing::Values("pipelined", "batch"));

TEST_P(WindowModes, MemoryChargedFromOutsideIsLeftFree) {
  // 8 MiB budget, 3 MiB of it charged (the collective layer's exchange buffers): prefetching
  // must hold at most the rest while a random gather four times the budget is read.
  test::ScratchDir dir;
  const uint64_t size = 32 * kMiB;
  std::string path = dir.MakeFile("charged", size, kSeed);
  Context c(8 * kMiB, GetParam());
  int32_t f = c.Open(path);
  pfio_stats before = c.Stats();
  EXPECT_EQ(pfio_memory_charge(c.ctx, before.budget_cap / 2 + 1), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("more than half the budget's cap"),
            std::string::npos)
      << pfio_last_error();
  EXPECT_EQ(c.Stats().memory_charged, 0u) << "a refused charge changed the charge";
  ASSERT_EQ(pfio_memory_charge(c.ctx, 3 * kMiB), PFIO_OK) << pfio_last_error();
  auto plan = RandomBlocks(f, size, 65536, 2048, 3);
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
  ReadAll(c, plan);
  pfio_stats s = c.Stats();
  EXPECT_EQ(s.memory_charged, 3 * kMiB);
  EXPECT_EQ(s.hits, plan.size());
  EXPECT_LE(s.memory_peak + s.memory_charged, s.budget_cap);
  EXPECT_GT(s.memory_peak, s.budget_cap / 4) << "prefetching should still use what is left";
  ASSERT_EQ(pfio_memory_charge(c.ctx, 0), PFIO_OK);
  EXPECT_EQ(c.Stats().memory_charged, 0u);
}

TEST(EngineRead, MemoryCapIsTheBudgetsCapAndBoundsACharge) {
  // What the collective layer sizes its exchange rounds from: asked for, and the same cap a
  // charge is checked against.
  Context c(8 * kMiB, "pipelined");
  uint64_t cap = 0;
  ASSERT_EQ(pfio_memory_cap(c.ctx, &cap), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(cap, c.Stats().budget_cap);
  EXPECT_GT(cap, 4 * kMiB);
  EXPECT_LE(cap, 8 * kMiB) << "the cap lies within the budget set";
  EXPECT_EQ(pfio_memory_charge(c.ctx, cap / 2 + 1), PFIO_EINVAL);
  EXPECT_EQ(pfio_memory_charge(c.ctx, cap / 2), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(pfio_memory_cap(c.ctx, nullptr), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("pfio_memory_cap"), std::string::npos)
      << pfio_last_error();
  EXPECT_EQ(pfio_memory_cap(nullptr, &cap), PFIO_EINVAL);
}

TEST(EngineRead, SequentialPlanIsLeftToKernelReadahead) {
  test::ScratchDir dir;
  const uint64_t size = 8 * kMiB;
  std::string path = dir.MakeFile("seqpass", size, kSeed);
  Context c(2 * kMiB, "pipelined");
  int32_t f = c.Open(path);
  std::vector<pfio_extent> plan;
  for (uint64_t off = 0; off < size; off += 4096) plan.push_back({f, 0, off, 4096});
  // A short out-of-order tail: prefetched, not passed through.
  plan.push_back({f, 0, 4096 * 9, 4096});
  plan.push_back({f, 0, 4096 * 3, 4096});
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK);
  ReadAll(c, plan);
  pfio_stats s = c.Stats();
  EXPECT_EQ(s.passthrough_reads, size / 4096);
  EXPECT_EQ(s.bytes_passthrough, size);
  EXPECT_EQ(s.hits, 2u);
  EXPECT_EQ(s.misses, 0u);
  EXPECT_EQ(s.memory_peak, 8192u);  // only the tail used the reorder buffer
}

// Plan entries inside the ranges the job reads densely (pfio_plan_readahead) are read directly,
// for the kernel's readahead to serve, in either buffer kind; others are prefetched; count 0
// clears the ranges; a range past the end of the file is refused naming it.
class ReadaheadRanges : public ::testing::TestWithParam<std::string> {};

TEST_P(ReadaheadRanges, EntriesInsideAreReadDirectlyAndOthersPrefetched) {
  test::ScratchDir dir;
  const uint64_t size = 8 * kMiB;
  std::string path = dir.MakeFile("dense", size, kSeed);
  Settings settings = Context::Config(4 * kMiB, "pipelined", "auto");
  settings.push_back({"buffer", GetParam()});
  Context c(settings);
  int32_t f = c.Open(path);
  // 64 KiB of every 128 KiB: never a sequential run of the plan itself.
  std::vector<pfio_extent> plan;
  for (uint64_t off = 0; off < size; off += 128 << 10) plan.push_back({f, 0, off, 64 << 10});
  const pfio_extent dense{f, 0, 0, 4 * kMiB};
  ASSERT_EQ(pfio_plan_readahead(c.ctx, &dense, 1), PFIO_OK) << pfio_last_error();
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK);
  ReadAll(c, plan);
  pfio_stats s = c.Stats();
  EXPECT_EQ(s.bytes_passthrough, 32u * (64 << 10));  // the 32 extents inside [0, 4 MiB)
  EXPECT_EQ(s.hits, 32u);                            // the 32 outside were prefetched
  EXPECT_EQ(s.misses, 0u);
  // Cleared: the same extents again are all prefetched.
  ASSERT_EQ(pfio_plan_readahead(c.ctx, nullptr, 0), PFIO_OK) << pfio_last_error();
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK);
  ReadAll(c, plan);
  EXPECT_EQ(c.Stats().bytes_passthrough, s.bytes_passthrough);
  EXPECT_EQ(c.Stats().hits, 32u + plan.size());
  const pfio_extent past{f, 0, size - 4096, 8192};
  EXPECT_EQ(pfio_plan_readahead(c.ctx, &past, 1), PFIO_ERANGE);
  EXPECT_NE(std::string(pfio_last_error()).find("extent 0"), std::string::npos)
      << pfio_last_error();
  EXPECT_EQ(pfio_plan_readahead(c.ctx, nullptr, 1), PFIO_EINVAL);
}

INSTANTIATE_TEST_SUITE_P(BufferKinds, ReadaheadRanges, ::testing::Values("engine", "cache"));

TEST(EngineRead, SyncBackendServesTheSameBytes) {
  test::ScratchDir dir;
  const uint64_t size = 4 * kMiB;
  std::string path = dir.MakeFile("sync", size, kSeed);
  Context c(2 * kMiB, "pipelined", "sync");
  int32_t f = c.Open(path);
  auto plan = RandomBlocks(f, size, 8192, 1000, 2);
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK);
  ReadAll(c, plan);
  pfio_stats s = c.Stats();
  EXPECT_STREQ(s.backend, "sync");
  EXPECT_EQ(s.hits, plan.size());
}

TEST(EngineRead, OverlappingAndUnsortedExtentsAreServedInPlanOrder) {
  test::ScratchDir dir;
  std::string path = dir.MakeFile("overlap", 2 * kMiB, kSeed);
  Context c(2 * kMiB, "pipelined");
  int32_t f = c.Open(path);
  std::vector<pfio_extent> plan = {{f, 0, 100000, 5000}, {f, 0, 98000, 9000},
                                   {f, 0, 1000, 200},    {f, 0, 100000, 5000},
                                   {f, 0, 50000, 60000}, {f, 0, 2 * kMiB - 7, 7}};
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK);
  ReadAll(c, plan);
  EXPECT_EQ(c.Stats().hits, plan.size());
}

// Both O_DIRECT backends: libaio and io_uring.
class DirectBackends : public ::testing::TestWithParam<std::string> {};

TEST_P(DirectBackends, UnalignedOffsetsAndLengthsUnderODirect) {
  test::ScratchDir dir;
  const uint64_t size = 1 * kMiB + 333;
  std::string path = dir.MakeFile("unaligned", size, kSeed);
  Context c(2 * kMiB, "pipelined", GetParam());
  int32_t f = c.Open(path);
  std::vector<pfio_extent> plan;
  std::mt19937 rng(3);
  for (int i = 0; i < 500; ++i) {
    uint64_t off = rng() % (size - 1);
    uint64_t len = 1 + rng() % std::min<uint64_t>(20000, size - off);
    plan.push_back({f, 0, off, len});
  }
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK);
  ReadAll(c, plan);
  EXPECT_EQ(c.Stats().misses, 0u);
  EXPECT_STREQ(c.Stats().backend, GetParam().c_str());
}

INSTANTIATE_TEST_SUITE_P(Backends, DirectBackends, ::testing::Values("aio", "uring"));

TEST(EngineRead, ReadsAtAndPastEndOfFile) {
  test::ScratchDir dir;
  const uint64_t size = 10000;
  std::string path = dir.MakeFile("eof", size, kSeed);
  Context c(2 * kMiB, "pipelined");
  int32_t f = c.Open(path);
  pfio_extent tail{f, 0, 8192, size - 8192};
  ASSERT_EQ(pfio_plan_append(c.ctx, &tail, 1), PFIO_OK);
  std::vector<char> buf(8192);
  uint64_t n = 99;
  // Asking past the end returns what exists.
  ASSERT_EQ(pfio_read(c.ctx, f, buf.data(), 8192, 8192, &n), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(n, size - 8192);
  EXPECT_TRUE(test::HoldsPattern(buf.data(), 8192, n, kSeed));
  ASSERT_EQ(pfio_read(c.ctx, f, buf.data(), size, 10, &n), PFIO_OK);
  EXPECT_EQ(n, 0u);
  ASSERT_EQ(pfio_read(c.ctx, f, buf.data(), size + 5000, 10, &n), PFIO_OK);
  EXPECT_EQ(n, 0u);
}

TEST(EngineRead, BadPlansAreRejectedWithTheExtentNamed) {
  test::ScratchDir dir;
  const uint64_t size = 100000;
  std::string path = dir.MakeFile("bad", size, kSeed);
  Context c(2 * kMiB, "pipelined");
  int32_t f = c.Open(path);
  std::vector<pfio_extent> past_eof = {{f, 0, 0, 4096}, {f, 0, size - 10, 20}};
  EXPECT_EQ(pfio_plan_append(c.ctx, past_eof.data(), past_eof.size()), PFIO_ERANGE);
  std::string msg = pfio_last_error();
  EXPECT_NE(msg.find("extent 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("size 100000"), std::string::npos) << msg;
  pfio_extent overflow{f, 0, UINT64_MAX - 5, 100};
  EXPECT_EQ(pfio_plan_append(c.ctx, &overflow, 1), PFIO_ERANGE);
  pfio_extent zero{f, 0, 0, 0};
  EXPECT_EQ(pfio_plan_append(c.ctx, &zero, 1), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("length = 0"), std::string::npos);
  pfio_extent bad_file{f + 7, 0, 0, 10};
  EXPECT_EQ(pfio_plan_append(c.ctx, &bad_file, 1), PFIO_EBADF);
  EXPECT_NE(std::string(pfio_last_error()).find("file = " + std::to_string(f + 7)),
            std::string::npos);
  // Nothing of a rejected batch was appended: a read now is a plain miss with correct bytes.
  std::vector<char> buf(4096);
  uint64_t n = 0;
  ASSERT_EQ(pfio_read(c.ctx, f, buf.data(), 0, 4096, &n), PFIO_OK);
  EXPECT_TRUE(test::HoldsPattern(buf.data(), 0, 4096, kSeed));
  EXPECT_EQ(c.Stats().misses, 1u);
  EXPECT_EQ(pfio_read(c.ctx, 99, buf.data(), 0, 10, &n), PFIO_EBADF);
  EXPECT_EQ(pfio_read(c.ctx, f, nullptr, 0, 10, &n), PFIO_EINVAL);
  int32_t none;
  EXPECT_EQ(pfio_file_open(c.ctx, (dir.path() + "/missing").c_str(), &none), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("/missing"), std::string::npos);
}

TEST(EngineRead, ReadsOutsideThePlanAreMissesAndSkipsResync) {
  test::ScratchDir dir;
  const uint64_t size = 4 * kMiB;
  std::string path = dir.MakeFile("resync", size, kSeed);
  Context c(2 * kMiB, "pipelined");
  int32_t f = c.Open(path);
  auto plan = RandomBlocks(f, size, 4096, 200, 4);
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK);
  std::vector<char> buf(4096);
  uint64_t n;
  ReadAll(c, {plan.begin(), plan.begin() + 10});
  // A read the plan never mentions.
  ASSERT_EQ(pfio_read(c.ctx, f, buf.data(), 12345, 4096, &n), PFIO_OK);
  EXPECT_TRUE(test::HoldsPattern(buf.data(), 12345, 4096, kSeed));
  // Skip ahead: extents 10..19 are never read.
  ReadAll(c, {plan.begin() + 20, plan.end()});
  pfio_stats s = c.Stats();
  EXPECT_GE(s.misses, 1u);
  EXPECT_EQ(s.plan_resyncs, 1u);
}

TEST(EngineRead, EntirelyWrongPlanCostsTimeNotCorrectness) {
  test::ScratchDir dir;
  const uint64_t size = 4 * kMiB;
  std::string path = dir.MakeFile("wrong", size, kSeed);
  Context c(2 * kMiB, "batch");
  int32_t f = c.Open(path);
  auto plan = RandomBlocks(f, size, 4096, 500, 5);
  auto actual = RandomBlocks(f, size, 4096, 500, 6);
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK);
  ReadAll(c, actual);
  EXPECT_GT(c.Stats().misses, 0u);
}

TEST(EngineRead, ReplaceAfterMarkSkipsWhatWasAlreadyRead) {
  test::ScratchDir dir;
  std::string path = dir.MakeFile("marks", 1 * kMiB, kSeed);
  Context c(2 * kMiB, "pipelined");
  int32_t f = c.Open(path);
  std::vector<pfio_extent> plan = {{f, 1, 0, 4096}, {f, 0, 40960, 4096}, {f, 0, 81920, 4096}};
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK);
  ReadAll(c, {plan[0], plan[1]});
  pfio_extent mark;
  ASSERT_EQ(pfio_plan_last_mark(c.ctx, &mark), PFIO_OK);
  EXPECT_EQ(mark.offset, 0u);
  // Rebuilt from the mark: 40960 (already read) then a new tail.
  std::vector<pfio_extent> rebuilt = {
      {f, 0, 40960, 4096}, {f, 0, 200000, 4096}, {f, 0, 300000, 4096}};
  ASSERT_EQ(pfio_plan_replace_after_mark(c.ctx, rebuilt.data(), rebuilt.size()), PFIO_OK);
  ReadAll(c, {rebuilt[1], rebuilt[2]});
  pfio_stats s = c.Stats();
  EXPECT_EQ(s.misses, 0u);
  EXPECT_EQ(s.hits, 4u);
}

TEST(EngineRead, ReplaceAndReleaseAndIgnore) {
  test::ScratchDir dir;
  std::string path = dir.MakeFile("replace", 2 * kMiB, kSeed);
  Context c(2 * kMiB, "pipelined");
  int32_t f = c.Open(path);
  auto plan = RandomBlocks(f, 2 * kMiB, 4096, 100, 7);
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK);
  ReadAll(c, {plan.begin(), plan.begin() + 5});
  auto next = RandomBlocks(f, 2 * kMiB, 4096, 50, 8);
  ASSERT_EQ(pfio_plan_replace(c.ctx, next.data(), next.size()), PFIO_OK);
  // Reads while ignored do not move the plan and are not misses.
  ASSERT_EQ(pfio_ignore(c.ctx), PFIO_OK);
  ReadAll(c, {plan[50], plan[60]});
  ASSERT_EQ(pfio_unignore(c.ctx), PFIO_OK);
  EXPECT_EQ(pfio_unignore(c.ctx), PFIO_ESTATE);
  ReadAll(c, {next.begin(), next.begin() + 25});
  // Release the rest: memory held for it goes at once.
  ASSERT_EQ(pfio_release(c.ctx, f, 0, 2 * kMiB), PFIO_OK);
  pfio_stats s = c.Stats();
  EXPECT_EQ(s.misses, 0u);
  EXPECT_EQ(s.hits, 30u);
  // Reads in flight may still hold memory briefly; poll (bounded) until it is returned.
  for (int i = 0; i < 200 && c.Stats().memory_in_use > 0; ++i) usleep(10000);
  EXPECT_EQ(c.Stats().memory_in_use, 0u);
}

TEST(EngineRead, TwoContextsInOneProcess) {
  test::ScratchDir dir;
  std::string a = dir.MakeFile("a", 4 * kMiB, 11), b = dir.MakeFile("b", 4 * kMiB, 12);
  Context ca(2 * kMiB, "pipelined"), cb(2 * kMiB, "batch");
  int32_t fa = ca.Open(a), fb = cb.Open(b);
  auto pa = RandomBlocks(fa, 4 * kMiB, 4096, 1000, 9);
  auto pb = RandomBlocks(fb, 4 * kMiB, 4096, 1000, 10);
  ASSERT_EQ(pfio_plan_append(ca.ctx, pa.data(), pa.size()), PFIO_OK);
  ASSERT_EQ(pfio_plan_append(cb.ctx, pb.data(), pb.size()), PFIO_OK);
  for (size_t i = 0; i < pa.size(); i += 50) {
    ReadAll(ca, {pa.begin() + i, pa.begin() + i + 50}, 11);
    ReadAll(cb, {pb.begin() + i, pb.begin() + i + 50}, 12);
  }
  EXPECT_EQ(ca.Stats().hits, pa.size());
  EXPECT_EQ(cb.Stats().hits, pb.size());
}

TEST(EngineRead, CloseWithPrefetchesInFlightThenReuse) {
  test::ScratchDir dir;
  std::string a = dir.MakeFile("a", 8 * kMiB, 13), b = dir.MakeFile("b", 2 * kMiB, 14);
  Context c(8 * kMiB, "pipelined");
  int32_t fa = c.Open(a), fb = c.Open(b);
  auto pa = RandomBlocks(fa, 8 * kMiB, 4096, 2000, 15);
  auto pb = RandomBlocks(fb, 2 * kMiB, 4096, 100, 16);
  std::vector<pfio_extent> mixed;
  for (size_t i = 0; i < 100; ++i) {
    mixed.push_back(pa[i]);
    mixed.push_back(pb[i]);
  }
  mixed.insert(mixed.end(), pa.begin() + 100, pa.end());
  ASSERT_EQ(pfio_plan_append(c.ctx, mixed.data(), mixed.size()), PFIO_OK);
  ReadAll(c, {mixed[0]}, 13);
  ASSERT_EQ(pfio_file_close(c.ctx, fa), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(pfio_file_close(c.ctx, fa), PFIO_EBADF);
  std::vector<char> buf(4096);
  uint64_t n;
  EXPECT_EQ(pfio_read(c.ctx, fa, buf.data(), 0, 4096, &n), PFIO_EBADF);
  // The other file's extents are still planned and served.
  std::vector<pfio_extent> rest_b(pb.begin(), pb.end());
  ReadAll(c, rest_b, 14);
  EXPECT_EQ(c.Stats().misses, 0u);
}

TEST(EngineRead, ReadvServesPiecesInOrderFromThePlan) {
  test::ScratchDir dir;
  const uint64_t size = 8 * kMiB;
  std::string path = dir.MakeFile("readv", size, kSeed);
  Context c(2 * kMiB, "pipelined");
  int32_t f = c.Open(path);
  auto plan = RandomBlocks(f, size, 4096, 600, 21);
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
  // Groups of 1..7 planned blocks per pfio_readv, as ROMIO's strided reads and HDF5's chunk
  // reads will make them.
  std::vector<std::vector<char>> bufs(7, std::vector<char>(4096));
  size_t i = 0;
  for (size_t group = 1; i < plan.size(); group = group % 7 + 1) {
    std::vector<pfio_read_piece> pieces;
    for (size_t k = 0; k < group && i < plan.size(); ++k, ++i) {
      pieces.push_back({bufs[k].data(), plan[i].offset, plan[i].length});
    }
    uint64_t n = 0;
    ASSERT_EQ(pfio_readv(c.ctx, f, pieces.data(), pieces.size(), &n), PFIO_OK) << pfio_last_error();
    ASSERT_EQ(n, 4096 * pieces.size());
    for (const auto &p : pieces) {
      ASSERT_TRUE(test::HoldsPattern(static_cast<char *>(p.buf), p.offset, p.length, kSeed));
    }
  }
  const pfio_stats st = c.Stats();
  EXPECT_EQ(st.reads, plan.size());
  EXPECT_EQ(st.misses, 0u);
  EXPECT_EQ(st.bytes_served, 4096 * plan.size());
}

TEST(EngineRead, ReadvStopsAtEndOfFileAndNamesTheFailingPiece) {
  test::ScratchDir dir;
  const uint64_t size = 1 * kMiB;
  std::string path = dir.MakeFile("readv-eof", size, kSeed);
  Context c(2 * kMiB, "pipelined");
  int32_t f = c.Open(path);
  std::vector<char> a(4096), b(8192), d(4096, 'x');
  // The second piece runs 4 KiB past the end: the third is not read.
  std::vector<pfio_read_piece> pieces = {
      {a.data(), 0, 4096}, {b.data(), size - 4096, 8192}, {d.data(), 4096, 4096}};
  uint64_t n = 0;
  ASSERT_EQ(pfio_readv(c.ctx, f, pieces.data(), pieces.size(), &n), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(n, 4096u + 4096u);
  EXPECT_TRUE(test::HoldsPattern(a.data(), 0, 4096, kSeed));
  EXPECT_TRUE(test::HoldsPattern(b.data(), size - 4096, 4096, kSeed));
  EXPECT_EQ(d[0], 'x');
  // A piece with no buffer fails, after the pieces before it are delivered.
  pieces = {{a.data(), 8192, 4096}, {nullptr, 0, 4096}};
  EXPECT_EQ(pfio_readv(c.ctx, f, pieces.data(), pieces.size(), &n), PFIO_EINVAL);
  EXPECT_EQ(n, 4096u);
  EXPECT_NE(std::string(pfio_last_error()).find("piece 1: buf = NULL"), std::string::npos)
      << pfio_last_error();
  EXPECT_EQ(pfio_readv(c.ctx, f, nullptr, 2, &n), PFIO_EINVAL);
  EXPECT_EQ(pfio_readv(c.ctx, f + 7, pieces.data(), 1, &n), PFIO_EBADF);
}

// Only regular files are read; a FIFO with no writer is refused at once instead of blocking the
// open forever.
TEST(EngineRead, FilesThatAreNotRegularAreRefusedWithoutBlocking) {
  test::ScratchDir dir;
  const std::string fifo = dir.path() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  Context c(2 * kMiB, "pipelined");
  int32_t f = -1;
  EXPECT_EQ(pfio_file_open(c.ctx, fifo.c_str(), &f), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find(fifo + " is a FIFO: expected a regular file"),
            std::string::npos)
      << pfio_last_error();
  EXPECT_EQ(pfio_file_open(c.ctx, dir.path().c_str(), &f), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("is a directory"), std::string::npos)
      << pfio_last_error();
}

TEST(EngineRead, StatsJsonIsWrittenAtDestroy) {
  test::ScratchDir dir;
  std::string path = dir.MakeFile("stats", 1 * kMiB, kSeed);
  std::string json = dir.path() + "/stats.json";
  Settings cfg = Context::Config(2 * kMiB, "pipelined", "auto");
  cfg.emplace_back("stats_path", json);
  {
    Context c(cfg);
    int32_t f = c.Open(path);
    auto plan = RandomBlocks(f, 1 * kMiB, 4096, 64, 17);
    ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK);
    ReadAll(c, plan);
  }
  std::ifstream in(json);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  EXPECT_NE(text.find("\"hits\": 64"), std::string::npos) << text;
  EXPECT_NE(text.find("\"aimd_history\""), std::string::npos);
  EXPECT_NE(text.find("\"backend\": \"aio\""), std::string::npos);
}

}  // namespace
}  // namespace pfio
