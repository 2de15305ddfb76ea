// The engine's page-cache buffer kind (buffer = cache) on real files: the plan is advised into
// the kernel's page cache under the budget and read from there, every byte checked; the pages
// the plan advised and nobody has read yet never exceed the budget (counted with mincore), with
// cache_release the pages read leave the cache (Mowry's release), a rewrite is read as rewritten
// and a shrunk file is an error naming it; pieces of a vectored read land where they belong
// however many and in whatever order, and dense runs left to readahead are not advised.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "api_context.h"
#include "pfio/pfio.h"
#include "test_util.h"

namespace pfio {
namespace {

constexpr uint64_t kMiB = 1 << 20;
constexpr uint64_t kBlock = 64 << 10;

test::Settings CacheKind(uint64_t budget, bool release = false) {
  return {{"buffer", "cache"},
          {"budget", std::to_string(budget)},
          {"max_request", "256K"},
          {"infill_max", "0"},
          {"timeout_ms", "20000"},
          {"aimd", "off"},
          {"cache_release", release ? "on" : "off"}};
}

// `count` distinct blocks of the file in a random order (no block twice: no reuse to keep).
std::vector<pfio_extent> DistinctBlocks(int32_t file, uint64_t file_size, size_t count,
                                        unsigned seed) {
  std::vector<uint64_t> blocks(file_size / kBlock);
  std::iota(blocks.begin(), blocks.end(), 0);
  std::shuffle(blocks.begin(), blocks.end(), std::mt19937_64(seed));
  std::vector<pfio_extent> plan;
  for (size_t i = 0; i < count && i < blocks.size(); ++i)
    plan.push_back({file, 0, blocks[i] * kBlock, kBlock});
  return plan;
}

// A pattern file evicted from the page cache, with a descriptor for looking at its pages.
struct ColdFile {
  ColdFile(uint64_t bytes, uint64_t seed)
      : size(bytes), path(dir.MakeFile("f", bytes, seed)), fd(open(path.c_str(), O_RDWR)) {
    EXPECT_GE(fd, 0);
    test::EvictFile(fd);
  }
  ~ColdFile() { close(fd); }
  uint64_t ResidentBytes() const {
    return static_cast<uint64_t>(test::ResidentFraction(fd, 0, size) * static_cast<double>(size));
  }
  // Resident bytes of the given extents (one mincore of the whole file).
  uint64_t ResidentBytesOf(const pfio_extent *first, const pfio_extent *last) const {
    void *map = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    EXPECT_NE(map, MAP_FAILED);
    std::vector<unsigned char> in(size / 4096);
    EXPECT_EQ(mincore(map, size, in.data()), 0);
    munmap(map, size);
    uint64_t bytes = 0;
    for (const pfio_extent *e = first; e != last; ++e)
      for (uint64_t page = e->offset / 4096; page < (e->offset + e->length) / 4096; ++page)
        bytes += (in[page] & 1) ? 4096 : 0;
    return bytes;
  }
  test::ScratchDir dir;
  const uint64_t size;
  const std::string path;
  const int fd;
};

// Opens `file` in `c` and plans `count` distinct blocks of it (DistinctBlocks).
std::vector<pfio_extent> PlanBlocks(test::Context &c, const ColdFile &file, size_t count,
                                    unsigned seed) {
  const std::vector<pfio_extent> plan = DistinctBlocks(c.Open(file.path), file.size, count, seed);
  EXPECT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
  return plan;
}

TEST(PageCacheKind, AFileTellsItsBufferKind) {
  // What the collective layer asks to size its look-ahead (pfio_file_buffer).
  ColdFile file(1 * kMiB, 3);
  test::Context cached(CacheKind(4 * kMiB));
  test::Context own(test::Settings{{"budget", "4M"}, {"buffer", "engine"}});
  const int32_t a = cached.Open(file.path), b = own.Open(file.path);
  int page_cache = -1;
  ASSERT_EQ(pfio_file_buffer(cached.ctx, a, &page_cache), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(page_cache, 1);
  ASSERT_EQ(pfio_file_buffer(own.ctx, b, &page_cache), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(page_cache, 0);
  EXPECT_EQ(pfio_file_buffer(own.ctx, b + 7, &page_cache), PFIO_EBADF);
  EXPECT_NE(std::string(pfio_last_error()).find("file"), std::string::npos) << pfio_last_error();
  EXPECT_EQ(pfio_file_buffer(own.ctx, b, nullptr), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("page_cache"), std::string::npos)
      << pfio_last_error();
}

// buffer = auto, the default: a file on a local file system is of the page-cache kind
// (engine/buffer_rule.h), read right through it; a setting overrides the rule.
TEST(PageCacheKind, TheDefaultGivesALocalFileThePageCacheKind) {
  ColdFile file(4 * kMiB, 17);
  test::Context c(test::Settings{{"budget", "8M"}});
  char value[16] = "";
  pfio_config *cfg = nullptr;
  ASSERT_EQ(pfio_config_create(&cfg), PFIO_OK) << pfio_last_error();
  ASSERT_EQ(pfio_config_get(cfg, "buffer", value, sizeof value), PFIO_OK) << pfio_last_error();
  EXPECT_STREQ(value, "auto");
  pfio_config_destroy(cfg);
  const int32_t f = c.Open(file.path);
  int page_cache = -1;
  ASSERT_EQ(pfio_file_buffer(c.ctx, f, &page_cache), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(page_cache, 1) << file.path << " is on a local file system";
  const std::vector<pfio_extent> plan = DistinctBlocks(f, file.size, 32, 4);
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
  test::ReadAll(c, plan, 17);
  EXPECT_EQ(c.Stats().hits, plan.size());
  test::Context own(test::Settings{{"budget", "8M"}, {"buffer", "engine"}});
  ASSERT_EQ(pfio_file_buffer(own.ctx, own.Open(file.path), &page_cache), PFIO_OK);
  EXPECT_EQ(page_cache, 0) << "buffer = engine overrides the rule";
}

TEST(PageCacheKind, EveryPlanShapeReadsTheFilesBytes) {
  ColdFile file(32 * kMiB, 7);
  test::Context c(CacheKind(4 * kMiB));
  const int32_t f = c.Open(file.path);
  // Random 4 KiB reads with repeats, a strided sweep, and a long sequential run.
  std::vector<pfio_extent> plan = test::RandomBlocks(f, file.size, 4096, 3000, 3);
  for (uint64_t off = 0; off < 8 * kMiB; off += 96 << 10) plan.push_back({f, 0, off, 32 << 10});
  plan.push_back({f, 0, 20 * kMiB, 6 * kMiB});
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
  test::ReadAll(c, plan, 7);
  const pfio_stats s = c.Stats();
  EXPECT_EQ(s.reads, plan.size());
  EXPECT_GT(s.hits, plan.size() / 2);  // served from what was advised, not missed
  EXPECT_EQ(s.io_errors, 0u);
  EXPECT_LE(s.memory_peak, 4 * kMiB);
}

// The pages advised and not read yet (mincore over the plan's blocks after the one just read)
// never exceed the budget, with the pages read released at once or left to the kernel; with the
// release, no page of the file beyond those and the block just read stays either.
class BudgetBound : public ::testing::TestWithParam<bool> {};

TEST_P(BudgetBound, AdvisedButUnreadPagesStayWithinTheBudget) {
  const bool release = GetParam();
  ColdFile file(64 * kMiB, 11);
  const uint64_t budget = 4 * kMiB;
  test::Context c(CacheKind(budget, release));
  // 32 MiB of distinct blocks: advice without the budget would make all of them resident.
  const std::vector<pfio_extent> plan = PlanBlocks(c, file, 512, 5);
  std::vector<char> buf(kBlock);
  uint64_t most_unread = 0, most = 0;
  for (size_t i = 0; i < plan.size(); ++i) {
    uint64_t n = 0;
    ASSERT_EQ(pfio_read(c.ctx, plan[i].file, buf.data(), plan[i].offset, kBlock, &n), PFIO_OK)
        << pfio_last_error();
    ASSERT_TRUE(test::HoldsPattern(buf.data(), plan[i].offset, n, 11));
    most_unread =
        std::max(most_unread, file.ResidentBytesOf(plan.data() + i + 1, plan.data() + plan.size()));
    most = std::max(most, file.ResidentBytes());
  }
  EXPECT_LE(most_unread, budget);
  EXPECT_GT(most_unread, budget / 4);  // it did read ahead
  if (release)
    EXPECT_LE(most, budget + kBlock);
  else
    EXPECT_GE(most, 30 * kMiB);  // the 32 MiB read stay for the kernel to reclaim
  const pfio_stats s = c.Stats();
  EXPECT_EQ(s.hits, plan.size());
  EXPECT_LE(s.memory_peak, budget);
}

INSTANTIATE_TEST_SUITE_P(PageCacheKind, BudgetBound, ::testing::Bool(),
                         [](const auto &info) { return info.param ? "Release" : "NoRelease"; });

// pfio_read_done: a front end that reads the bytes itself (its own descriptor, the page cache)
// moves the plan as pfio_read would: the advice goes on ahead of it within the budget, every
// entry counts as a hit, and pfio reads nothing for it.
TEST(PageCacheKind, ReadsTheCallerMadeItselfMoveThePlanWithinTheBudget) {
  ColdFile file(64 * kMiB, 12);
  const uint64_t budget = 4 * kMiB;
  test::Context c(CacheKind(budget));
  const std::vector<pfio_extent> plan = PlanBlocks(c, file, 512, 6);
  std::vector<char> buf(kBlock);
  uint64_t most_unread = 0;
  for (size_t i = 0; i < plan.size(); ++i) {
    ASSERT_EQ(pread(file.fd, buf.data(), kBlock, static_cast<off_t>(plan[i].offset)),
              static_cast<ssize_t>(kBlock));
    ASSERT_TRUE(test::HoldsPattern(buf.data(), plan[i].offset, kBlock, 12));
    uint64_t n = 0;
    ASSERT_EQ(pfio_read_done(c.ctx, plan[i].file, plan[i].offset, kBlock, &n), PFIO_OK)
        << pfio_last_error();
    ASSERT_EQ(n, kBlock);
    most_unread =
        std::max(most_unread, file.ResidentBytesOf(plan.data() + i + 1, plan.data() + plan.size()));
  }
  EXPECT_LE(most_unread, budget);
  EXPECT_GT(most_unread, budget / 4) << "the advice did not go on ahead of the reads";
  // The reads do not wait for their advice to land: its completions may be on their way.
  const uint64_t advised_at_least = 512u * kBlock / (4 * kMiB);
  EXPECT_TRUE(test::Eventually([&] { return c.Stats().requests >= advised_at_least; }));
  const pfio_stats s = c.Stats();
  EXPECT_EQ(s.reads, plan.size());
  EXPECT_EQ(s.hits, plan.size());
  EXPECT_EQ(s.misses, 0u);
  EXPECT_GE(s.requests, advised_at_least) << "the plan was not advised past its start";
  // A range the plan does not hold: a miss, and still nothing read; past the end: 0 bytes.
  uint64_t n = 1;
  ASSERT_EQ(pfio_read_done(c.ctx, plan[0].file, 0, 100, &n), PFIO_OK);
  EXPECT_EQ(n, 100u);
  EXPECT_EQ(c.Stats().misses, 1u);
  ASSERT_EQ(pfio_read_done(c.ctx, plan[0].file, file.size + 5, 100, &n), PFIO_OK);
  EXPECT_EQ(n, 0u);
}

TEST(PageCacheKind, ReadDoneRefusesAFileOfTheReorderBufferKindByName) {
  ColdFile file(4 * kMiB, 13);
  test::Context c(test::Settings{{"budget", "8M"}, {"buffer", "engine"}});
  const int32_t id = c.Open(file.path);
  const pfio_extent e{id, 0, 0, kBlock};
  ASSERT_EQ(pfio_plan_append(c.ctx, &e, 1), PFIO_OK);
  uint64_t n = 7;
  EXPECT_EQ(pfio_read_done(c.ctx, id, 0, kBlock, &n), PFIO_EINVAL);
  EXPECT_EQ(n, 0u);
  EXPECT_NE(std::string(pfio_last_error()).find("reorder-buffer kind"), std::string::npos)
      << pfio_last_error();
  EXPECT_NE(std::string(pfio_last_error()).find(file.path), std::string::npos);
  std::vector<char> buf(kBlock);
  ASSERT_EQ(pfio_read(c.ctx, id, buf.data(), 0, kBlock, &n), PFIO_OK) << "the plan did not move";
  EXPECT_EQ(c.Stats().hits, 1u);
}

// Counted over the plan's blocks (mincore): the pages pfio advised and read. A block read before
// its advice has landed is a miss in the page cache, and the kernel reads ahead of it for the
// reading descriptor (context readahead: its neighbours are cached), into blocks pfio released
// earlier and has no range of any more; so each block is read once its pages are in (the whole
// file, counted instead, was over the bound in 2 of about 20 test.sh runs; the plan's blocks
// read without waiting, 65,536 bytes left after the close in a CI run on 2026-12-02).
TEST(PageCacheKind, WithReleasePagesThePlanReadLeaveTheCache) {
  ColdFile file(16 * kMiB, 13);
  test::Context c(CacheKind(8 * kMiB, /*release=*/true));
  const std::vector<pfio_extent> plan = PlanBlocks(c, file, 128, 9);
  std::vector<char> buf(kBlock);
  for (const pfio_extent &e : plan) {
    const auto due = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (file.ResidentBytesOf(&e, &e + 1) < kBlock) {
      ASSERT_LT(std::chrono::steady_clock::now(), due)
          << "the advice of the block at " << e.offset << " did not land in 10 s";
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    uint64_t n = 0;
    ASSERT_EQ(pfio_read(c.ctx, e.file, buf.data(), e.offset, kBlock, &n), PFIO_OK)
        << pfio_last_error();
    ASSERT_TRUE(test::HoldsPattern(buf.data(), e.offset, n, 13));
  }
  const pfio_extent *first = plan.data(), *last = plan.data() + plan.size();
  // 8 MiB were read through the page cache; what is left waits for the next release batch (an
  // eighth of the budget) or is the last piece's. A piece read before its advice landed (a
  // stall: this kind's reads do not wait for advice) is released when the advice lands, and
  // DONTNEED passes over the pages the advice's own reads still have in flight: each such piece
  // (at most an eighth of the budget: adjacent blocks joined) may stay. Seen under a loaded
  // test.sh, never alone: 1,441,792 bytes against 1,114,112 on 2026-11-28.
  const uint64_t stalls = c.Stats().stalls;
  EXPECT_LE(file.ResidentBytesOf(first, last), 8 * kMiB / 8 + kBlock + stalls * (8 * kMiB / 8))
      << stalls << " pieces read before their advice landed";
  EXPECT_LT(file.ResidentBytesOf(first, last), 128 * kBlock) << "nothing was released";
  // Closing the file releases the rest.
  ASSERT_EQ(pfio_file_close(c.ctx, plan[0].file), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(file.ResidentBytesOf(first, last), 0u);
}

// The page-cache kind advises in batches: half the room (the budget) advised and unread at most,
// advised again when half of that is left, so that the reads of one batch overlap the next one's
// advice. Counted per plan entry read, not per piece.
TEST(PageCacheKind, AdviceGoesOutInBatchesRefilledAtHalf) {
  ColdFile file(48 * kMiB, 29);
  test::Context c(CacheKind(8 * kMiB));
  const int32_t f = c.Open(file.path);
  std::vector<pfio_extent> plan;  // 192 blocks 256 KiB apart: no two advised as one span
  for (uint64_t k = 0; k < 192; ++k) plan.push_back({f, 0, k * 4 * kBlock, kBlock});
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
  // Blocks are admitted while fewer than half the budget's bytes are unread.
  const uint64_t half = c.Stats().budget_bytes / 2;
  const size_t batch = (half + kBlock - 1) / kBlock;
  ASSERT_GT(batch, 32u);
  ASSERT_LT(batch, 96u);
  const size_t refill = batch - half / 2 / kBlock;  // blocks read when half of it is left
  const pfio_extent *p = plan.data();
  auto resident = [&](size_t from, size_t to) { return file.ResidentBytesOf(p + from, p + to); };
  ASSERT_TRUE(test::Eventually([&] { return resident(0, batch) == batch * kBlock; }))
      << resident(0, batch) << " of " << batch << " blocks";
  EXPECT_EQ(resident(batch, 192), 0u) << "only the first batch";
  test::ReadAll(c, {plan.begin(), plan.begin() + refill - 1}, 29);
  EXPECT_EQ(c.Stats().windows, 1u) << "more than half of the batch left: no advice yet";
  test::ReadAll(c, {plan.begin() + refill - 1, plan.begin() + refill}, 29);
  EXPECT_EQ(c.Stats().windows, 2u) << "half left: the batch is filled again";
  const size_t next = refill + batch;  // the unread blocks are a batch again
  ASSERT_TRUE(test::Eventually([&] { return resident(batch, next) == refill * kBlock; }))
      << resident(batch, next) << " of " << refill << " blocks";
  EXPECT_EQ(resident(next, 192), 0u) << "filled up to the batch, no further";
  test::ReadAll(c, {plan.begin() + refill, plan.end()}, 29);
  const pfio_stats s = c.Stats();
  EXPECT_EQ(s.hits, plan.size());
  EXPECT_LE(s.memory_peak, 8 * kMiB);
}

// A look-ahead that moves one call per call (the collective layer's: this call and the next 8,
// replaced at every call) is advised when half of what the last batch advised is read, not at
// every call: each batch wakes the advice thread (hot 1-block collective calls, 2 ranks: 26 us
// of a 57 us call went to replacing the plan, docs/small-calls.md).
TEST(PageCacheKind, APlanMovingOneCallPerCallIsAdvisedInBatches) {
  ColdFile file(16 * kMiB, 31);
  test::Context c(CacheKind(64 * kMiB));
  const int32_t f = c.Open(file.path);
  constexpr uint64_t kAhead = 8, kCalls = 96;
  auto calls_from = [&](uint64_t first) {  // blocks 2 apart: no two advised as one span
    std::vector<pfio_extent> plan;
    for (uint64_t k = first; k <= first + kAhead; ++k)
      plan.push_back({f, 0, 2 * k * kBlock, kBlock});
    return plan;
  };
  for (uint64_t call = 0; call < kCalls; ++call) {
    const std::vector<pfio_extent> plan = calls_from(call);
    ASSERT_EQ(pfio_plan_replace(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
    test::ReadAll(c, {plan.front()}, 31);
  }
  const pfio_stats s = c.Stats();
  EXPECT_EQ(s.hits, kCalls) << "every call's block was the plan's";
  EXPECT_LE(s.windows, kCalls / 3) << "advice went out at nearly every call";
  EXPECT_GE(s.windows, kCalls / kAhead) << "a batch covers at most the look-ahead";
}

// A plan replaced before it was read (a prediction that broke) leaves the budget at once, and its
// advised pages stay in the page cache for the kernel to reclaim: they may be what this process
// read earlier or what another reader of the file needs next (on the 2 ms test bed, releasing
// them made tiles re-read a quarter of the file). Pages the plan read are kept as well (no
// cache_release); an eviction after a budget cut is what gives pages back.
TEST(PageCacheKind, APlanDroppedUnreadLeavesTheBudgetAndItsPagesStay) {
  ColdFile file(16 * kMiB, 19);
  test::Context c(CacheKind(8 * kMiB));
  const std::vector<pfio_extent> plan =
      PlanBlocks(c, file, 32, 21);  // 2 MiB: one batch (half the budget), all advised
  std::vector<char> buf(kBlock);
  uint64_t n = 0;
  ASSERT_EQ(pfio_read(c.ctx, plan[0].file, buf.data(), plan[0].offset, kBlock, &n), PFIO_OK);
  ASSERT_TRUE(test::HoldsPattern(buf.data(), plan[0].offset, n, 19));
  uint64_t advised = 0;
  test::Eventually([&] {
    return (advised = file.ResidentBytesOf(plan.data() + 1, plan.data() + plan.size())) ==
           31 * kBlock;
  });
  ASSERT_EQ(advised, 31 * kBlock) << "the plan's blocks were advised in";
  ASSERT_GT(c.Stats().memory_in_use, 0u);
  pfio_extent none{};
  ASSERT_EQ(pfio_plan_replace(c.ctx, &none, 0), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(c.Stats().memory_in_use, 0u) << "dropped: no longer charged";
  EXPECT_EQ(file.ResidentBytesOf(plan.data(), plan.data() + plan.size()), 32 * kBlock)
      << "no DONTNEED of what was dropped unread";
  EXPECT_EQ(c.Stats().hits, 1u);
}

// A window's blocks 32 KiB apart are advised as one span with the gaps between them, and the
// span is one piece: blocks in those gaps planned later (a column of tiles read after a row)
// find it and need no advice of their own. (Before, each later block got a piece and a request
// of its own: 16 more here.)
TEST(PageCacheKind, BlocksInAGapAdvisedEarlierNeedNoRequestOfTheirOwn) {
  ColdFile file(8 * kMiB, 23);
  test::Context c(CacheKind(64 * kMiB));  // spans up to 4 MiB (an eighth of the memory cap)
  const int32_t f = c.Open(file.path);
  std::vector<pfio_extent> first, second;
  for (uint64_t k = 0; k < 32; ++k) first.push_back({f, 0, k * 2 * 32768, 32768});
  for (uint64_t j = 0; j < 16; ++j) second.push_back({f, 0, j * 4 * 32768 + 32768, 32768});
  ASSERT_EQ(pfio_plan_append(c.ctx, first.data(), first.size()), PFIO_OK) << pfio_last_error();
  test::ReadAll(c, {first[0]}, 23);
  ASSERT_TRUE(test::Eventually([&] { return c.Stats().requests == 1; })) << c.Stats().requests;
  ASSERT_EQ(pfio_plan_append(c.ctx, second.data(), second.size()), PFIO_OK) << pfio_last_error();
  test::ReadAll(c, {first.begin() + 1, first.end()}, 23);
  test::ReadAll(c, second, 23);
  const pfio_stats s = c.Stats();
  EXPECT_EQ(s.requests, 1u) << "one span for the first blocks and the gaps between them";
  EXPECT_EQ(s.hits, first.size() + second.size());
  EXPECT_EQ(s.misses, 0u);
  EXPECT_EQ(s.bytes_read, 31 * 65536u + 32768) << "the span, advised once";
}

TEST(PageCacheKind, ARewriteIsReadAsRewritten) {
  ColdFile file(8 * kMiB, 17);
  test::Context c(CacheKind(8 * kMiB));
  const std::vector<pfio_extent> plan = PlanBlocks(c, file, 128, 2);
  test::ReadAll(c, {plan.begin(), plan.begin() + 4}, 17);
  // Another writer rewrites the whole file with another pattern while the rest is advised: the
  // page cache is the file, so no check (pfio_file_check) is needed to see it.
  std::vector<char> seed18(file.size);
  FillPattern(seed18.data(), 0, file.size, 18);
  ASSERT_EQ(pwrite(file.fd, seed18.data(), file.size, 0), static_cast<ssize_t>(file.size));
  test::ReadAll(c, {plan.begin() + 4, plan.end()}, 18);
}

TEST(PageCacheKind, AShrunkFileIsAnErrorNamingIt) {
  ColdFile file(8 * kMiB, 19);
  test::Context c(CacheKind(8 * kMiB));
  const int32_t f = c.Open(file.path);
  const std::vector<pfio_extent> plan = {{f, 0, 0, kBlock}, {f, 0, 6 * kMiB, kBlock}};
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
  test::ReadAll(c, {plan[0]}, 19);
  ASSERT_EQ(ftruncate(file.fd, 4 * kMiB), 0);
  std::vector<char> buf(kBlock);
  uint64_t n = 0;
  EXPECT_EQ(pfio_read(c.ctx, f, buf.data(), 6 * kMiB, kBlock, &n), PFIO_EIO);
  EXPECT_NE(std::string(pfio_last_error()).find(file.path), std::string::npos) << pfio_last_error();
  EXPECT_NE(std::string(pfio_last_error()).find("shorter than when opened"), std::string::npos)
      << pfio_last_error();
}

// A vectored read of 3 x IOV_MAX adjacent 7-byte pieces, scattered odd ones, an empty one and one
// ending at the file's last byte, in a shuffled order, planned or not: every piece holds its
// bytes and nothing is written past it. (The collective layer's former page-cache reader had
// this case; its reads go through this kind now.)
TEST(PageCacheKind, ManyAdjacentPiecesInAnyOrderLandWhereTheyBelong) {
  ColdFile file(8 * kMiB + 123, 31);
  for (const bool planned : {true, false}) {
    SCOPED_TRACE(planned ? "planned" : "not planned");
    test::Context c(CacheKind(16 * kMiB));
    const int32_t f = c.Open(file.path);
    std::vector<pfio_read_piece> pieces;
    std::vector<std::vector<uint8_t>> bufs;
    bufs.reserve(4 * IOV_MAX);
    auto add = [&](uint64_t offset, uint64_t length) {
      bufs.emplace_back(length + 1, 0xEE);
      pieces.push_back({bufs.back().data(), offset, length});
    };
    for (uint64_t i = 0; i < 3 * IOV_MAX; ++i) add(5 + 7 * i, 7);
    add(3 * kMiB + 1, 100000);
    add(kMiB, 0);
    add(7 * kMiB, 4096);
    add(8 * kMiB + 100, 23);
    std::shuffle(pieces.begin(), pieces.end(), std::mt19937_64(9));
    std::vector<pfio_extent> plan;
    for (const pfio_read_piece &p : pieces)
      if (p.length > 0) plan.push_back({f, 0, p.offset, p.length});
    if (planned) {
      ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
    }
    uint64_t nread = 0;
    ASSERT_EQ(pfio_readv(c.ctx, f, pieces.data(), pieces.size(), &nread), PFIO_OK)
        << pfio_last_error();
    EXPECT_EQ(nread, 3 * IOV_MAX * 7 + 100000 + 4096 + 23);
    for (const pfio_read_piece &p : pieces) {
      ASSERT_TRUE(test::HoldsPattern(static_cast<uint8_t *>(p.buf), p.offset, p.length, 31))
          << "offset " << p.offset;
      ASSERT_EQ(static_cast<uint8_t *>(p.buf)[p.length], 0xEE) << "written past the piece";
    }
    EXPECT_EQ(c.Stats().hits, planned ? plan.size() : 0u);
  }
}

// A rank's contiguous request cut into rows by its view: 4 x IOV_MAX rows of 1600 bytes, one
// after the other in the file and in one buffer, except that every 300th row goes to a second
// buffer (contiguous in the file, not in memory), and the last row is shorter.
TEST(PageCacheKind, RowsContiguousInTheFileLandInTheirBuffers) {
  ColdFile file(8 * kMiB, 37);
  test::Context c(CacheKind(16 * kMiB));
  const int32_t f = c.Open(file.path);
  const uint64_t rows = 4 * IOV_MAX, row = 1600, start = 4096 + 3;
  std::vector<uint8_t> main_buf(rows * row + 1, 0xEE), side_buf(rows / 300 * row + row + 1, 0xEE);
  std::vector<pfio_read_piece> pieces;
  std::vector<pfio_extent> plan;
  uint64_t in_main = 0, in_side = 0;
  for (uint64_t i = 0; i < rows; ++i) {
    const uint64_t length = i + 1 == rows ? 999 : row;
    uint8_t *dst = i % 300 == 299 ? side_buf.data() + in_side : main_buf.data() + in_main;
    (i % 300 == 299 ? in_side : in_main) += length;
    pieces.push_back({dst, start + i * row, length});
    plan.push_back({f, 0, start + i * row, length});
  }
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
  uint64_t nread = 0;
  ASSERT_EQ(pfio_readv(c.ctx, f, pieces.data(), pieces.size(), &nread), PFIO_OK)
      << pfio_last_error();
  EXPECT_EQ(nread, in_main + in_side);
  for (const pfio_read_piece &p : pieces)
    ASSERT_TRUE(test::HoldsPattern(static_cast<uint8_t *>(p.buf), p.offset, p.length, 37))
        << "offset " << p.offset;
  EXPECT_EQ(main_buf[in_main], 0xEE) << "written past the last row in the main buffer";
  EXPECT_EQ(side_buf[in_side], 0xEE) << "written past the last row in the side buffer";
}

// Scattered extents are advised as spans in file order (two 8 KiB extents 16 KiB apart: one);
// extents the plan reads one after the other inside a dense run the job reads
// (pfio_plan_readahead) are not advised at all but read directly, so that the kernel's
// readahead keeps its stream. A lone read inside the run later in the plan (between reads
// elsewhere) is no stream: advised.
TEST(PageCacheKind, SparseExtentsAreAdvisedAndDenseRunsLeftToReadahead) {
  ColdFile file(64 * kMiB, 41);
  test::Context c(CacheKind(64 * kMiB));
  const int32_t f = c.Open(file.path);
  const pfio_extent dense{f, 0, kMiB, 4 * kMiB};
  ASSERT_EQ(pfio_plan_readahead(c.ctx, &dense, 1), PFIO_OK) << pfio_last_error();
  const std::vector<pfio_extent> plan = {{f, 0, 40 * kMiB, 8192},        {f, 0, kMiB, kMiB},
                                         {f, 0, 2 * kMiB, 2 * kMiB},     {f, 0, 20 * kMiB, 8192},
                                         {f, 0, 4 * kMiB, 8192},         {f, 0, 30 * kMiB, 8192},
                                         {f, 0, 30 * kMiB + 24576, 8192}};
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
  test::ReadAll(c, plan, 41);
  // Reads of this kind do not wait for their advice to land: its completions may be on their way.
  EXPECT_TRUE(test::Eventually([&] { return c.Stats().requests >= 4; }));
  const pfio_stats s = c.Stats();
  EXPECT_EQ(s.requests, 4u) << "4 MiB alone, 20 MiB, 30 MiB with the extent 16 KiB after it, "
                               "40 MiB";
  EXPECT_EQ(s.bytes_passthrough, 3 * kMiB) << "the two extents of the run, read directly";
  EXPECT_EQ(s.hits, 5u);
}

}  // namespace
}  // namespace pfio
