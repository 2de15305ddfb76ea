// A context destroyed is kept, vacated, for the next pfio_context_create with the same settings
// in the process (Context::Vacate, VacantContext in pfio_api.cc): the next user must find what a
// new context would be — its own file's bytes, its own counts, its own settings — and a process
// that exits with one kept, or forks, must lose nothing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api_context.h"
#include "pfio/pfio.h"
#include "test_util.h"

namespace pfio {
namespace {

constexpr uint64_t kFileSize = 8 << 20;
constexpr uint64_t kBlock = 64 << 10;

pfio_context *MakeContext(const std::string &buffer, const std::string &budget,
                          const std::string &stats_path = "") {
  pfio_config *cfg = nullptr;
  if (pfio_config_create(&cfg) != PFIO_OK) return nullptr;
  pfio_context *ctx = nullptr;
  if (pfio_config_set(cfg, "buffer", buffer.c_str()) == PFIO_OK &&
      pfio_config_set(cfg, "budget", budget.c_str()) == PFIO_OK &&
      pfio_config_set(cfg, "stats_path", stats_path.c_str()) == PFIO_OK)
    (void)pfio_context_create(cfg, &ctx);
  pfio_config_destroy(cfg);
  return ctx;
}

// Plans every block of `path` and reads the first `blocks` of them through `ctx`, each checked
// against `seed`; the file stays open. Returns the number of blocks read right.
uint64_t ReadBlocks(pfio_context *ctx, const std::string &path, uint64_t seed, uint64_t blocks) {
  int32_t f = -1;
  if (pfio_file_open(ctx, path.c_str(), &f) != PFIO_OK) return 0;
  std::vector<pfio_extent> plan;
  for (uint64_t off = 0; off < kFileSize; off += kBlock) plan.push_back({f, 0, off, kBlock});
  if (pfio_plan_append(ctx, plan.data(), plan.size()) != PFIO_OK) return 0;
  std::vector<char> buf(kBlock);
  uint64_t right = 0;
  for (uint64_t i = 0; i < blocks; ++i) {
    uint64_t n = 0;
    if (pfio_read(ctx, f, buf.data(), i * kBlock, kBlock, &n) == PFIO_OK && n == kBlock &&
        test::HoldsPattern(buf.data(), i * kBlock, kBlock, seed))
      ++right;
  }
  return right;
}

class VacantContext : public ::testing::TestWithParam<const char *> {};

// The first user leaves with its plan half read (prefetched bytes held, reads in flight); the
// second, with the same settings, reads another file: every byte its own, every count its own.
TEST_P(VacantContext, TheNextContextReadsItsOwnFileAndCountsOnlyItsOwnReads) {
  test::ScratchDir dir;
  const std::string first = dir.MakeFile("first", kFileSize, 11);
  const std::string second = dir.MakeFile("second", kFileSize, 22);
  const uint64_t blocks = kFileSize / kBlock;
  for (int round = 0; round < 3; ++round) {
    pfio_context *ctx = MakeContext(GetParam(), "64M");
    ASSERT_NE(ctx, nullptr) << pfio_last_error();
    ASSERT_EQ(ReadBlocks(ctx, first, 11, blocks / 2), blocks / 2);
    ASSERT_EQ(pfio_context_destroy(ctx), PFIO_OK) << pfio_last_error();

    ctx = MakeContext(GetParam(), "64M");
    ASSERT_NE(ctx, nullptr) << pfio_last_error();
    pfio_stats st{};
    ASSERT_EQ(pfio_stats_get(ctx, &st, sizeof st), PFIO_OK);
    EXPECT_EQ(st.reads, 0u) << "round " << round;
    EXPECT_EQ(st.bytes_read, 0u);
    EXPECT_EQ(st.memory_in_use, 0u) << "the first user's prefetched bytes are still held";
    EXPECT_EQ(st.memory_charged, 0u);
    ASSERT_EQ(ReadBlocks(ctx, second, 22, blocks), blocks) << "round " << round;
    ASSERT_EQ(pfio_stats_get(ctx, &st, sizeof st), PFIO_OK);
    EXPECT_EQ(st.reads, blocks);
    EXPECT_EQ(st.bytes_served, kFileSize);
    ASSERT_EQ(pfio_context_destroy(ctx), PFIO_OK) << pfio_last_error();
  }
}

INSTANTIATE_TEST_SUITE_P(BothKinds, VacantContext, ::testing::Values("engine", "cache"));

// Settings are fixed at creation: a context made with other settings is not the one kept.
TEST(VacantContextSettings, OtherSettingsGetAContextOfTheirOwn) {
  auto cap_of = [](const char *budget) {
    pfio_context *ctx = MakeContext("engine", budget);
    uint64_t cap = 0;
    EXPECT_NE(ctx, nullptr) << pfio_last_error();
    EXPECT_EQ(pfio_memory_cap(ctx, &cap), PFIO_OK);
    EXPECT_EQ(pfio_context_destroy(ctx), PFIO_OK);
    return cap;
  };
  const uint64_t small = cap_of("32M");
  const uint64_t large = cap_of("128M");
  EXPECT_LT(small, large);
  EXPECT_EQ(cap_of("32M"), small);
  EXPECT_EQ(cap_of("128M"), large);
}

// The stats file a context writes at its destroy is its user's; the context kept after it,
// shut down when the process exits, neither overwrites it nor holds the exit up.
TEST(VacantContextExit, TheStatsFileIsTheLastUsersAfterTheProcessExits) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("stats.data", kFileSize, 5);
  const std::string stats = dir.path() + "/stats.json";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Exit codes: 0 as expected, 1 no context, 2 wrong bytes, 3 destroy failed.
    pfio_context *ctx = MakeContext("engine", "64M", stats);
    if (ctx == nullptr) _exit(1);
    if (ReadBlocks(ctx, path, 5, 10) != 10) _exit(2);
    if (pfio_context_destroy(ctx) != PFIO_OK) _exit(3);
    std::exit(0);  // runs the exit handlers: the kept context is shut down there
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << "1: no context, 2: wrong bytes, 3: destroy failed";
  std::ifstream in(stats);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("\"reads\": 10,"), std::string::npos) << text.str();
}

// A child of fork() does not take its parent's kept context (its threads are the parent's): it
// makes its own, reads right and exits; the parent's kept context still serves the parent.
TEST(VacantContextFork, AForkedChildMakesItsOwnContextAndTheParentKeepsItsOwn) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("fork.data", kFileSize, 9);
  const uint64_t blocks = kFileSize / kBlock;
  pfio_context *ctx = MakeContext("engine", "64M");
  ASSERT_NE(ctx, nullptr) << pfio_last_error();
  ASSERT_EQ(ReadBlocks(ctx, path, 9, 4), 4u);
  ASSERT_EQ(pfio_context_destroy(ctx), PFIO_OK) << pfio_last_error();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Exit codes: 0 as expected, 1 no context, 2 wrong bytes, 3 destroy failed.
    pfio_context *mine = MakeContext("engine", "64M");
    if (mine == nullptr) _exit(1);
    if (ReadBlocks(mine, path, 9, blocks) != blocks) _exit(2);
    if (pfio_context_destroy(mine) != PFIO_OK) _exit(3);
    std::exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: no context, 2: wrong bytes, 3: destroy failed";
  ctx = MakeContext("engine", "64M");
  ASSERT_NE(ctx, nullptr) << pfio_last_error();
  EXPECT_EQ(ReadBlocks(ctx, path, 9, blocks), blocks);
  EXPECT_EQ(pfio_context_destroy(ctx), PFIO_OK) << pfio_last_error();
}

}  // namespace
}  // namespace pfio
