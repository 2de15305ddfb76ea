// AioContextPool and AioBackend's use of it: a context comes back for reuse only when nothing is
// in flight on it, a reused context reads correct bytes, at most kMaxIdle are kept, and a forked
// child never takes its parent's.
#include "io/aio_context_pool.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "io/aio_backend.h"
#include "test_util.h"

namespace pfio {
namespace {

constexpr uint64_t kBlock = 4096;

// Reads [offset, offset + kBlock) through `b` and waits for it; the bytes land in *buf.
Status ReadOne(Backend *b, const FileHandle &h, uint64_t offset, char *buf) {
  IoRequest req;
  req.file = &h;
  req.offset = offset;
  req.length = kBlock;
  req.iov.push_back({buf, kBlock});
  Status s = b->Submit(&req);
  if (!s.ok()) return s;
  std::vector<IoRequest *> done;
  for (int i = 0; i < 5000 && done.empty(); ++i) {
    b->Reap(&done);
    if (done.empty()) usleep(1000);
  }
  if (done.size() != 1 || done[0] != &req) return Status::Io("the read did not come back");
  if (req.result != static_cast<int64_t>(kBlock)) return Status::Io("short or failed read");
  return Status::Ok();
}

char *AlignedBlock() {
  void *p = nullptr;
  return posix_memalign(&p, 4096, kBlock) == 0 ? static_cast<char *>(p) : nullptr;
}

TEST(AioContextPool, GivesBackAContextOfTheSameDepthAndKeepsAtMostKMaxIdle) {
  const int idle0 = AioContextPool::Idle();
  io_context_t a = nullptr;
  ASSERT_EQ(AioContextPool::Take(8, &a), 0);
  AioContextPool::Give(a, 8);
  EXPECT_EQ(AioContextPool::Idle(), idle0 + 1);
  io_context_t other = nullptr;
  ASSERT_EQ(AioContextPool::Take(16, &other), 0);
  EXPECT_NE(other, a) << "another depth gets a context of its own";
  io_context_t again = nullptr;
  ASSERT_EQ(AioContextPool::Take(8, &again), 0);
  EXPECT_EQ(again, a) << "the same depth reuses the idle context";
  EXPECT_EQ(AioContextPool::Idle(), idle0);
  AioContextPool::Give(again, 8);
  AioContextPool::Give(other, 16);
  std::vector<io_context_t> more(AioContextPool::kMaxIdle);
  for (auto &c : more) ASSERT_EQ(AioContextPool::Take(4, &c), 0);
  for (auto &c : more) AioContextPool::Give(c, 4);
  EXPECT_EQ(AioContextPool::Idle(), AioContextPool::kMaxIdle) << "the rest were destroyed";
  // Leave the pool as the test found it (the tests may share a process).
  for (int depth : {4, 8, 16}) {
    for (int i = 0; i < AioContextPool::kMaxIdle && AioContextPool::Idle() > idle0; ++i) {
      io_context_t c = nullptr;
      ASSERT_EQ(AioContextPool::Take(depth, &c), 0);
      io_destroy(c);
    }
  }
  EXPECT_EQ(AioContextPool::Idle(), idle0);
}

TEST(AioContextPool, ABackendComesBackOnlyWhenNothingIsInFlightAndItsSuccessorReadsRightBytes) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("f.data", 1 << 20, 7);
  char *buf = AlignedBlock();
  ASSERT_NE(buf, nullptr);
  const int idle0 = AioContextPool::Idle();
  {
    std::unique_ptr<Backend> b;
    ASSERT_TRUE(AioBackend::Create(8, false, &b).ok());
    FileHandle h;
    ASSERT_TRUE(b->Open(path, &h).ok());
    ASSERT_TRUE(ReadOne(b.get(), h, 64 * kBlock, buf).ok());
    EXPECT_TRUE(test::HoldsPattern(buf, 64 * kBlock, kBlock, 7));
    b->Close(&h);
  }
  EXPECT_EQ(AioContextPool::Idle(), idle0 + 1) << "every read was reaped: the context is kept";
  {
    std::unique_ptr<Backend> b;
    ASSERT_TRUE(AioBackend::Create(8, false, &b).ok());
    FileHandle h;
    ASSERT_TRUE(b->Open(path, &h).ok());
    EXPECT_EQ(AioContextPool::Idle(), idle0 + 1) << "a context was taken before the first read";
    ASSERT_TRUE(ReadOne(b.get(), h, 3 * kBlock, buf).ok());
    EXPECT_EQ(AioContextPool::Idle(), idle0) << "the first read took the idle one";
    EXPECT_TRUE(test::HoldsPattern(buf, 3 * kBlock, kBlock, 7));
    // A read submitted and never reaped: this context must be destroyed, not kept.
    IoRequest req;
    req.file = &h;
    req.offset = 9 * kBlock;
    req.length = kBlock;
    req.iov.push_back({buf, kBlock});
    ASSERT_TRUE(b->Submit(&req).ok());
    b->Close(&h);
    b.reset();
  }
  EXPECT_EQ(AioContextPool::Idle(), idle0) << "a context with a read not reaped is not kept";
  free(buf);
}

// A backend that never submits a read (a context of the page-cache buffer kind, or one that
// only advises) takes no libaio context: the process pays no io_destroy at exit for it.
TEST(AioContextPool, ABackendTakesItsContextAtItsFirstRead) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("f.data", 1 << 20, 7);
  char *buf = AlignedBlock();
  ASSERT_NE(buf, nullptr);
  const uint64_t taken0 = AioContextPool::Taken();
  {
    std::unique_ptr<Backend> b;
    ASSERT_TRUE(AioBackend::Create(8, false, &b).ok());
    FileHandle h;
    ASSERT_TRUE(b->Open(path, &h).ok());
    uint64_t got = 0;
    ASSERT_TRUE(b->ReadDirect(h, buf, 0, kBlock, &got).ok());  // a pread, not through libaio
    EXPECT_EQ(got, kBlock);
    std::vector<IoRequest *> done;
    b->Reap(&done);
    EXPECT_TRUE(done.empty());
    EXPECT_EQ(AioContextPool::Taken(), taken0) << "a context was taken before the first read";
    ASSERT_TRUE(ReadOne(b.get(), h, 2 * kBlock, buf).ok());
    EXPECT_TRUE(test::HoldsPattern(buf, 2 * kBlock, kBlock, 7));
    EXPECT_EQ(AioContextPool::Taken(), taken0 + 1) << "the first read took one";
    ASSERT_TRUE(ReadOne(b.get(), h, 5 * kBlock, buf).ok());
    EXPECT_EQ(AioContextPool::Taken(), taken0 + 1) << "and kept it";
    b->Close(&h);
  }
  free(buf);
}

TEST(AioContextPool, AForkedChildNeverTakesItsParentsContext) {
  io_context_t parent = nullptr;
  ASSERT_EQ(AioContextPool::Take(8, &parent), 0);
  AioContextPool::Give(parent, 8);
  ASSERT_GE(AioContextPool::Idle(), 1);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    io_context_t mine = nullptr;
    int code = 0;
    if (AioContextPool::Take(8, &mine) != 0) code = 1;
    if (code == 0 && mine == parent) code = 2;
    io_event ev;
    timespec zero{0, 0};
    if (code == 0 && io_getevents(mine, 0, 1, &ev, &zero) != 0) code = 3;  // usable here
    if (code == 0 && AioContextPool::Idle() != 0) code = 4;  // the parent's were dropped
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: no context, 2: the parent's, 3: unusable, 4: kept";
  io_context_t back = nullptr;
  ASSERT_EQ(AioContextPool::Take(8, &back), 0);
  EXPECT_EQ(back, parent) << "the parent still has its own";
  io_destroy(back);
}

}  // namespace
}  // namespace pfio
