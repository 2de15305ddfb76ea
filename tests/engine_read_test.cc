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

constexpr uint64_t kSeed = 42;
constexpr uint64_t kMiB = 1 << 20;

using test::Context;
using test::RandomBlocks;
using test::ReadAll;
using test::Settings;

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

// Rewrites `path` with `size` bytes of the pattern of `seed` (through its own descriptor).
void Rewrite(const std::string &path, uint64_t size, uint64_t seed) {
  std::vector<char> buf(size);
  FillPattern(buf.data(), 0, size, seed);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(buf.data(), static_cast<std::streamsize>(size));
  ASSERT_TRUE(out.good()) << path;
}

TEST(EngineRead, RefreshDropsPrefetchedBytesAndRereadsTheSize) {
  test::ScratchDir dir;
  const uint64_t size = 4 * kMiB, block = 16384;
  std::string path = dir.MakeFile("refresh", size, kSeed);
  Context c(8 * kMiB, "pipelined");
  int32_t f = c.Open(path);
  std::vector<pfio_extent> plan = RandomBlocks(f, size, block, 64, 3);
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK);
  ReadAll(c, {plan[0]});  // the rest of the plan is being prefetched now
  ASSERT_GT(c.Stats().requests, 1u);

  Rewrite(path, 5 * kMiB, 7);  // new bytes everywhere, and a longer file
  ASSERT_EQ(pfio_file_refresh(c.ctx, f), PFIO_OK) << pfio_last_error();
  uint64_t now = 0;
  ASSERT_EQ(pfio_file_size(c.ctx, f, &now), PFIO_OK);
  EXPECT_EQ(now, 5 * kMiB);
  // The old plan is gone; the same extents planned again come back with the new bytes.
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data() + 1, plan.size() - 1), PFIO_OK);
  ReadAll(c, std::vector<pfio_extent>(plan.begin() + 1, plan.end()), 7);
  ReadAll(c, {pfio_extent{f, 0, size + 12345, 20000}}, 7);  // past the old end

  Rewrite(path, kMiB, 9);  // truncated
  ASSERT_EQ(pfio_file_refresh(c.ctx, f), PFIO_OK) << pfio_last_error();
  ASSERT_EQ(pfio_file_size(c.ctx, f, &now), PFIO_OK);
  EXPECT_EQ(now, kMiB);
  std::vector<char> buf(block);
  uint64_t n = 99;
  ASSERT_EQ(pfio_read(c.ctx, f, buf.data(), 2 * kMiB, block, &n), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(n, 0u);
  ReadAll(c, {pfio_extent{f, 0, kMiB - block, block}}, 9);
  EXPECT_EQ(pfio_file_refresh(c.ctx, 999), PFIO_EBADF);
  EXPECT_EQ(pfio_file_refresh(nullptr, f), PFIO_EINVAL);
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

// Writes the pattern of `seed` over the whole file in place, as another process rewriting it
// would (the same inode, a new mtime).
void RewriteInPlace(const std::string &path, uint64_t size, uint64_t seed) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a later mtime tick
  int fd = open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  std::vector<char> buf(kMiB);
  for (uint64_t off = 0; off < size; off += buf.size()) {
    FillPattern(buf.data(), off, buf.size(), seed);
    ASSERT_EQ(pwrite(fd, buf.data(), buf.size(), static_cast<off_t>(off)),
              static_cast<ssize_t>(buf.size()));
  }
  close(fd);
}

// How long after a file's last change pfio's look at it stays racy (include/pfio/pfio.h), and a
// wait past it: a file older than this is vouched for by its times.
constexpr auto kPastRacyWindow = std::chrono::milliseconds(150);

// A file rewritten while it is read. Without revalidate, prefetched blocks come back as the old
// bytes (documented: pfio serves bytes as they were when prefetched); with revalidate = on, the
// change is seen by the very next read (stats: files_changed), and from then on every read has
// the new bytes, although blocks prefetched before the change were still held. Every read,
// either way, holds one version or the other, never a mix or garbage.
TEST(EngineRead, FileRewrittenUnderTheReaderIsSeenWithRevalidate) {
  test::ScratchDir dir;
  const uint64_t size = 8 * kMiB, budget = kMiB, kNew = kSeed + 1;
  for (const std::string revalidate : {"off", "on"}) {
    std::string path = dir.MakeFile("rewritten-" + revalidate, size, kSeed);
    std::this_thread::sleep_for(kPastRacyWindow);  // else every look takes it as changed
    Settings settings = Context::Config(2 * budget, "pipelined", "auto");
    settings.push_back({"revalidate", revalidate});
    Context c(settings);
    int32_t f = c.Open(path);
    std::mt19937_64 rng(5);
    std::vector<pfio_extent> plan(4000);
    for (auto &e : plan) e = {f, 0, rng() % (size / 4096) * 4096, 4096};
    ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
    std::vector<char> buf(4096);
    size_t old_after = 0, seen_at = 0;
    const size_t change_at = 1000;
    for (size_t i = 0; i < plan.size(); ++i) {
      if (i == change_at) RewriteInPlace(path, size, kNew);
      uint64_t n = 0;
      ASSERT_EQ(pfio_read(c.ctx, f, buf.data(), plan[i].offset, 4096, &n), PFIO_OK)
          << pfio_last_error();
      ASSERT_EQ(n, 4096u);
      const bool is_old = test::HoldsPattern(buf.data(), plan[i].offset, n, kSeed);
      const bool is_new = test::HoldsPattern(buf.data(), plan[i].offset, n, kNew);
      ASSERT_TRUE(is_old || is_new) << "read " << i << " is neither version";
      ASSERT_TRUE(i < change_at ? is_old : true) << "read " << i;
      if (i >= change_at && is_old) ++old_after;
      if (seen_at == 0 && c.Stats().files_changed > 0) seen_at = i;
    }
    if (revalidate == "off") {
      EXPECT_GT(old_after, 0u) << "prefetched blocks are served as they were read";
      EXPECT_EQ(c.Stats().files_changed, 0u);
    } else {
      EXPECT_EQ(seen_at, change_at) << "the change is seen by the first read after it";
      EXPECT_EQ(old_after, 0u) << "old bytes served after the change";
      EXPECT_GE(c.Stats().files_changed, 1u);
    }
  }
}

// pfio_file_check: vouches for a file whose times did not move (nothing dropped), sees a
// rewrite of the same size, and one that put the old mtime back (ctime moved); a look within
// the racy window of the file's last change never vouches for it.
TEST(EngineRead, FileCheckSeesRewritesAndVouchesForAnUnchangedFile) {
  test::ScratchDir dir;
  const uint64_t size = 4 * kMiB, block = 16384;
  std::string path = dir.MakeFile("checked", size, kSeed);
  std::this_thread::sleep_for(kPastRacyWindow);
  Context c(8 * kMiB, "pipelined");
  int32_t f = c.Open(path);
  std::vector<pfio_extent> plan = RandomBlocks(f, size, block, 64, 3);
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK);
  ReadAll(c, {plan[0]});
  int changed = -1;
  ASSERT_EQ(pfio_file_check(c.ctx, f, &changed), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(changed, 0);
  ReadAll(c, {plan[1], plan[2]});  // the plan was kept
  EXPECT_EQ(c.Stats().files_changed, 0u);

  RewriteInPlace(path, size, 7);
  const auto rewritten = std::chrono::steady_clock::now();
  ASSERT_EQ(pfio_file_check(c.ctx, f, &changed), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(changed, 1);
  ASSERT_EQ(pfio_file_check(c.ctx, f, &changed), PFIO_OK);
  if (std::chrono::steady_clock::now() - rewritten < std::chrono::milliseconds(50)) {
    EXPECT_EQ(changed, 1) << "a look right after a change is racy";
  }
  // Dropped as by pfio_file_refresh: the same extents planned again have the new bytes.
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data() + 3, plan.size() - 3), PFIO_OK);
  ReadAll(c, std::vector<pfio_extent>(plan.begin() + 3, plan.end()), 7);

  std::this_thread::sleep_for(kPastRacyWindow);
  ASSERT_EQ(pfio_file_check(c.ctx, f, &changed), PFIO_OK);  // replaces a racy look, if any
  ASSERT_EQ(pfio_file_check(c.ctx, f, &changed), PFIO_OK);
  EXPECT_EQ(changed, 0) << "a file untouched for longer than the racy window";

  struct stat before {};
  ASSERT_EQ(stat(path.c_str(), &before), 0);
  RewriteInPlace(path, size, 8);
  const timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);  // as cp -p and rsync do
  std::this_thread::sleep_for(kPastRacyWindow);
  ASSERT_EQ(pfio_file_check(c.ctx, f, &changed), PFIO_OK);
  EXPECT_EQ(changed, 1) << "same size and mtime, but ctime moved";
  EXPECT_GE(c.Stats().files_changed, 2u);

  EXPECT_EQ(pfio_file_check(c.ctx, 999, &changed), PFIO_EBADF);
  EXPECT_EQ(pfio_file_check(c.ctx, f, nullptr), PFIO_EINVAL);
  EXPECT_EQ(pfio_file_check(nullptr, f, &changed), PFIO_EINVAL);
}

// A file truncated while it is read: once any direct read sees it shorter, its size is read again
// and blocks prefetched past the new end are no longer served (before, they came back as the old
// bytes with PFIO_OK); reads there give 0 bytes, as pread does.
TEST(EngineRead, ShrunkFileIsSeenByTheNextReadAfterADirectReadCameBackShort) {
  test::ScratchDir dir;
  const uint64_t size = 8 * kMiB;
  std::string path = dir.MakeFile("truncated", size, kSeed);
  Context c(16 * kMiB, "pipelined");  // the whole plan fits: every block is prefetched at once
  int32_t f = c.Open(path);
  std::vector<pfio_extent> plan;
  for (uint64_t off = size; off > 0; off -= 65536) plan.push_back({f, 0, off - 65536, 4096});
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
  ReadAll(c, {plan[0]});  // waits for the first block: the others are in flight or landed
  ASSERT_EQ(truncate(path.c_str(), 2 * kMiB), 0);
  // A read outside the plan, past the new end: a direct read that comes back short (0 bytes, as
  // pread gives at the end of a file).
  std::vector<char> buf(4096);
  uint64_t n = 1;
  EXPECT_EQ(pfio_read(c.ctx, f, buf.data(), 3 * kMiB + 8192, 4096, &n), PFIO_OK);
  EXPECT_EQ(n, 0u);
  // The next planned block (past the new end, prefetched before the truncation): the file ends
  // at 2 MiB now, so 0 bytes, as pread gives; not the old bytes.
  n = 1;
  EXPECT_EQ(pfio_read(c.ctx, f, buf.data(), plan[1].offset, 4096, &n), PFIO_OK);
  EXPECT_EQ(n, 0u) << "a block past the new end came back with the old bytes";
  uint64_t now_size = 0;
  EXPECT_EQ(pfio_file_size(c.ctx, f, &now_size), PFIO_OK);
  EXPECT_EQ(now_size, 2 * kMiB);
  EXPECT_EQ(c.Stats().files_changed, 1u);
  // Blocks below the new end still read correctly.
  std::vector<pfio_extent> low(plan.end() - 8, plan.end());
  ReadAll(c, low);
}

// A file that shrinks after it was opened: reads that go straight to the file (a sequential run
// left to readahead, an extent larger than the whole budget) fail naming the file, never return
// OK with a buffer they did not fill.
TEST(EngineRead, DirectReadsOfAShrunkFileAreErrorsNotUnfilledBuffers) {
  test::ScratchDir dir;
  const uint64_t size = 16 * kMiB;
  for (const char *shape : {"sequential run", "extent larger than the budget"}) {
    std::string path = dir.MakeFile("shrinks", size, kSeed);
    Context c(2 * kMiB, "pipelined");
    int32_t f = c.Open(path);
    std::vector<pfio_extent> plan;
    if (std::string(shape) == "sequential run") {
      for (uint64_t o = 0; o < size; o += 64 * 1024) plan.push_back({f, 0, o, 64 * 1024});
    } else {
      plan.push_back({f, 0, 4 * kMiB, 8 * kMiB});
    }
    ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
    ASSERT_EQ(truncate(path.c_str(), 1 * kMiB), 0);
    std::vector<char> buf(8 * kMiB, 'x');
    uint64_t n = 0;
    pfio_status st = PFIO_OK;
    for (size_t i = 0; i < plan.size() && st == PFIO_OK; ++i) {
      if (plan[i].offset < 1 * kMiB) {
        st = pfio_read(c.ctx, f, buf.data(), plan[i].offset, plan[i].length, &n);
        continue;
      }
      st = pfio_read(c.ctx, f, buf.data(), plan[i].offset, plan[i].length, &n);
      EXPECT_EQ(st, PFIO_EIO) << shape << ": read at " << plan[i].offset;
    }
    EXPECT_EQ(st, PFIO_EIO) << shape;
    EXPECT_NE(std::string(pfio_last_error()).find("shorter than when opened"), std::string::npos)
        << shape << ": " << pfio_last_error();
    EXPECT_NE(std::string(pfio_last_error()).find(path), std::string::npos) << pfio_last_error();
  }
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
