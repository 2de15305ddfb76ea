// One context shared by threads, and a context after fork(): the two ways a front end ends up
// using a context from somewhere other than the thread and process that made it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "pfio/pfio.h"
#include "test_util.h"

namespace pfio {
namespace {

constexpr uint64_t kSeed = 77;
constexpr uint64_t kFileSize = 32 << 20;
constexpr uint64_t kBlock = 4096;

pfio_context *MakeContext() {
  pfio_config *cfg = nullptr;
  EXPECT_EQ(pfio_config_create(&cfg), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(pfio_config_set(cfg, "budget", "8M"), PFIO_OK) << pfio_last_error();
  pfio_context *ctx = nullptr;
  EXPECT_EQ(pfio_context_create(cfg, &ctx), PFIO_OK) << pfio_last_error();
  pfio_config_destroy(cfg);
  return ctx;
}

// Four threads read through one context at once, each its own random blocks, while the plan
// holds all of them interleaved (so every thread's reads move the one plan): every call returns
// PFIO_OK and every byte is right. Unserialized, the same run gave wrong bytes and crashes.
TEST(ContextSharing, ThreadsSharingAContextGetTheRightBytes) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("shared.data", kFileSize, kSeed);
  pfio_context *ctx = MakeContext();
  int32_t f = -1;
  ASSERT_EQ(pfio_file_open(ctx, path.c_str(), &f), PFIO_OK) << pfio_last_error();
  constexpr int kThreads = 4, kReads = 1500;
  std::vector<std::vector<uint64_t>> offsets(kThreads);
  std::vector<pfio_extent> plan;
  std::mt19937_64 rng(3);
  for (int r = 0; r < kReads; ++r) {
    for (int t = 0; t < kThreads; ++t) {
      const uint64_t off = rng() % (kFileSize / kBlock) * kBlock;
      offsets[t].push_back(off);
      plan.push_back({f, 0, off, kBlock});
    }
  }
  ASSERT_EQ(pfio_plan_append(ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
  std::atomic<int> bad_status{0}, bad_bytes{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<char> buf(kBlock);
      for (uint64_t off : offsets[t]) {
        uint64_t n = 0;
        if (pfio_read(ctx, f, buf.data(), off, kBlock, &n) != PFIO_OK || n != kBlock) {
          ++bad_status;
        } else if (!test::HoldsPattern(buf.data(), off, kBlock, kSeed)) {
          ++bad_bytes;
        }
        if (off % 7 == 0) {  // stats and a small plan change from this thread too
          pfio_stats st;
          if (pfio_stats_get(ctx, &st, sizeof st) != PFIO_OK) ++bad_status;
        }
      }
    });
  }
  for (std::thread &th : threads) th.join();
  EXPECT_EQ(bad_status.load(), 0) << pfio_last_error();
  EXPECT_EQ(bad_bytes.load(), 0);
  pfio_stats st;
  ASSERT_EQ(pfio_stats_get(ctx, &st, sizeof st), PFIO_OK);
  EXPECT_EQ(st.reads, uint64_t{kThreads} * kReads);
  EXPECT_EQ(pfio_context_destroy(ctx), PFIO_OK) << pfio_last_error();
}

// In a child of fork() every call on the parent's context fails at once with PFIO_ESTATE naming
// fork (it used to wait the whole timeout, or deadlock on a lock held at the fork); the parent's
// context keeps working.
TEST(ContextSharing, AForkedChildIsRefusedByNameAndTheParentGoesOn) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("forked.data", kFileSize, kSeed);
  pfio_context *ctx = MakeContext();
  int32_t f = -1;
  ASSERT_EQ(pfio_file_open(ctx, path.c_str(), &f), PFIO_OK) << pfio_last_error();
  std::vector<pfio_extent> plan;
  for (uint64_t off = 0; off < (4 << 20); off += kBlock) plan.push_back({f, 0, off, kBlock});
  ASSERT_EQ(pfio_plan_append(ctx, plan.data(), plan.size()), PFIO_OK);
  std::vector<char> buf(kBlock);
  uint64_t n = 0;
  ASSERT_EQ(pfio_read(ctx, f, buf.data(), 0, kBlock, &n), PFIO_OK);  // reads in flight now
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Exit codes: 0 all as expected, 1 read not refused, 2 message without "fork", 3 destroy
    // not refused.
    uint64_t got = 0;
    if (pfio_read(ctx, f, buf.data(), kBlock, kBlock, &got) != PFIO_ESTATE) _exit(1);
    if (std::string(pfio_last_error()).find("fork()") == std::string::npos) _exit(2);
    if (pfio_context_destroy(ctx) != PFIO_ESTATE) _exit(3);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: read not refused, 2: no 'fork()' in the message, "
                                       "3: destroy not refused";
  for (uint64_t off = kBlock; off < (4 << 20); off += kBlock) {
    ASSERT_EQ(pfio_read(ctx, f, buf.data(), off, kBlock, &n), PFIO_OK) << pfio_last_error();
    ASSERT_TRUE(test::HoldsPattern(buf.data(), off, kBlock, kSeed));
  }
  EXPECT_EQ(pfio_context_destroy(ctx), PFIO_OK) << pfio_last_error();
}

}  // namespace
}  // namespace pfio
