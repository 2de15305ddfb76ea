// io_submit refusing every read for good (EAGAIN, as when other processes hold the system's
// aio-max-nr): each read falls back to a direct read after a bounded wait, every byte is right,
// and destroy returns within timeout_ms. io_submit is interposed in this test binary only (the
// real one is called whenever refusing is off), and the test checks the refusals happened.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <libaio.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "pfio/pfio.h"
#include "test_util.h"

namespace {

std::atomic<bool> refusing{false};
std::atomic<uint64_t> refused{0};

}  // namespace

extern "C" int io_submit(io_context_t ctx, long nr, struct iocb *ios[]) {
  if (refusing) {
    ++refused;
    return -EAGAIN;
  }
  using Submit = int (*)(io_context_t, long, struct iocb *[]);
  static const Submit real = reinterpret_cast<Submit>(dlsym(RTLD_NEXT, "io_submit"));
  return real(ctx, nr, ios);
}

namespace pfio {
namespace {

constexpr uint64_t kSeed = 42, kMiB = 1 << 20;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

TEST(SubmitRefused, ReadsGoDirectAndDestroyReturnsWithinTheTimeout) {
  test::ScratchDir dir;
  const uint64_t size = 8 * kMiB, block = 4096;
  const std::string path = dir.MakeFile("refused", size, kSeed);
  pfio_config *cfg = nullptr;
  ASSERT_EQ(pfio_config_create(&cfg), PFIO_OK);
  ASSERT_EQ(pfio_config_set(cfg, "backend", "aio"), PFIO_OK) << pfio_last_error();
  ASSERT_EQ(pfio_config_set(cfg, "buffer", "engine"), PFIO_OK);  // libaio reads, not advice
  ASSERT_EQ(pfio_config_set(cfg, "timeout_ms", "2000"), PFIO_OK);
  ASSERT_EQ(pfio_config_set(cfg, "budget", "16M"), PFIO_OK);
  pfio_context *ctx = nullptr;
  ASSERT_EQ(pfio_context_create(cfg, &ctx), PFIO_OK) << pfio_last_error();
  pfio_config_destroy(cfg);
  int32_t f = -1;
  ASSERT_EQ(pfio_file_open(ctx, path.c_str(), &f), PFIO_OK) << pfio_last_error();

  refusing = true;
  std::mt19937_64 rng(3);
  std::vector<pfio_extent> plan(512);
  for (auto &e : plan) e = {f, 0, rng() % (size / block) * block, block};
  ASSERT_EQ(pfio_plan_append(ctx, plan.data(), plan.size()), PFIO_OK);
  std::vector<char> buf(block);
  const auto start = Clock::now();
  double slowest = 0;
  for (const pfio_extent &e : plan) {
    const auto t = Clock::now();
    uint64_t n = 0;
    ASSERT_EQ(pfio_read(ctx, f, buf.data(), e.offset, e.length, &n), PFIO_OK) << pfio_last_error();
    ASSERT_EQ(n, block);
    ASSERT_TRUE(test::HoldsPattern(buf.data(), e.offset, n, kSeed));
    slowest = std::max(slowest, Seconds(t));
  }
  const double reading = Seconds(start);
  EXPECT_GT(refused.load(), 0u) << "io_submit was not interposed: nothing was tested";
  // Bounds of a hang, not speed: no read waits a timeout, and destroy returns within one.
  EXPECT_LT(slowest, 2.0) << "a read waited timeout_ms for a submission that never came";
  const auto closing = Clock::now();
  EXPECT_EQ(pfio_context_destroy(ctx), PFIO_OK) << pfio_last_error();
  EXPECT_LT(Seconds(closing), 2.0) << "destroy took longer than timeout_ms";
  refusing = false;
  std::printf("512 reads with every submission refused: %.2f s (slowest %.3f s), %llu refusals\n",
              reading, slowest, static_cast<unsigned long long>(refused.load()));
}

}  // namespace
}  // namespace pfio
