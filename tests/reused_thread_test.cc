// ReusedThread: a job runs and join waits for it; joined threads park and the next jobs run on
// them (no new thread per job); at most kMaxParked stay parked; a forked child has none parked;
// a context's threads come from the park, so opening and closing contexts starts none.
#include "common/reused_thread.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "engine/context.h"
#include "test_util.h"

namespace pfio {
namespace {

TEST(ReusedThread, JoinWaitsForTheJobAndTheNextJobsReuseItsThread) {
  {
    ReusedThread warm([] {});  // one thread parked before counting
  }
  const uint64_t started = ReusedThread::Started();
  for (int i = 0; i < 50; ++i) {
    std::atomic<int> done{0};
    ReusedThread t([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(i % 3));
      done.store(i + 1);
    });
    EXPECT_TRUE(t.joinable());
    t.join();
    EXPECT_FALSE(t.joinable());
    ASSERT_EQ(done.load(), i + 1) << "join returned before job " << i << " ended";
  }
  EXPECT_EQ(ReusedThread::Started(), started) << "a job started a thread while one was parked";
}

TEST(ReusedThread, JobsAtOnceRunAtOnceAndAtMostTheLimitStaysParked) {
  constexpr int kJobs = ReusedThread::kMaxParked + 4;
  std::atomic<int> running{0}, most{0};
  std::atomic<bool> release{false};
  {
    std::vector<ReusedThread> threads;
    for (int i = 0; i < kJobs; ++i) {
      threads.emplace_back([&] {
        const int now = ++running;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        while (!release.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
        --running;
      });
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (most.load() < kJobs && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    release.store(true);
  }  // each destructor joins
  EXPECT_EQ(most.load(), kJobs) << "jobs waited for each other instead of running at once";
  EXPECT_EQ(running.load(), 0);
  EXPECT_EQ(ReusedThread::Parked(), ReusedThread::kMaxParked);
}

TEST(ReusedThread, AForkedChildHasNoneOfItsParentsThreadsParked) {
  {
    ReusedThread t([] {});
  }
  ASSERT_GE(ReusedThread::Parked(), 1);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The parent's parked threads do not exist here: a job handed to one would never run, so
    // none may be parked. (No thread is started here: ThreadSanitizer refuses threads after a
    // multi-threaded fork.)
    _exit(ReusedThread::Parked() == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(ReusedThread, ContextsOpenedAndClosedOneAfterAnotherStartNoThreads) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("f", 1 << 20, 7);
  Config cfg;
  cfg.buffer = PFIO_BUFFER_CACHE;
  auto cycle = [&] {
    std::unique_ptr<Context> ctx;
    ASSERT_TRUE(Context::Create(cfg, nullptr, nullptr, &ctx).ok());
    int32_t f = -1;
    ASSERT_TRUE(ctx->OpenFile(FileSource(path), &f).ok());
    std::vector<char> buf(4096);
    uint64_t n = 0;
    ASSERT_TRUE(ctx->Read(f, buf.data(), 4096, buf.size(), &n).ok());
    EXPECT_EQ(n, buf.size());
    EXPECT_TRUE(test::HoldsPattern(buf.data(), 4096, buf.size(), 7));
  };
  cycle();
  EXPECT_GE(ReusedThread::Parked(), 2) << "the context's I/O and advice threads were not parked";
  const uint64_t started = ReusedThread::Started();
  for (int i = 0; i < 20; ++i) cycle();
  EXPECT_EQ(ReusedThread::Started(), started);
}

}  // namespace
}  // namespace pfio
