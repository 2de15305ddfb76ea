// pfio_advisor (the C API over PageCacheAdvisor) on a real file on disk: advised ranges become
// resident in the page cache and others do not, the advisor keeps its own descriptor (on an
// open file description of its own), every
// range given is counted as queued or advised inline and then advised, a forked child advises
// inline, and bad arguments are refused by name.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "pfio/pfio.h"
#include "test_util.h"

namespace {

constexpr uint64_t kMiB = 1 << 20;

using pfio::test::EvictFile;
using pfio::test::ResidentFraction;

// Waits (at most 10 s) until the range is at least `want` resident; the last fraction seen.
double WaitResident(int fd, uint64_t offset, uint64_t length, double want) {
  double now = -1;
  pfio::test::Eventually([&] { return (now = ResidentFraction(fd, offset, length)) >= want; });
  return now;
}

pfio_advisor_stats Stats(pfio_advisor *a) {
  pfio_advisor_stats s{};
  EXPECT_EQ(pfio_advisor_stats_get(a, &s, sizeof s), PFIO_OK);
  return s;
}

// A pattern file of `size` bytes open for reading, and an advisor on it, as long as this lives.
struct AdvisedFile {
  AdvisedFile(uint64_t size, uint64_t seed)
      : path(dir.MakeFile("f", size, seed)), fd(open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    EXPECT_GE(fd, 0);
    EXPECT_EQ(pfio_advisor_create(fd, &advisor), PFIO_OK) << pfio_last_error();
  }
  ~AdvisedFile() {
    pfio_advisor_destroy(advisor);
    if (fd >= 0) close(fd);
  }
  pfio::test::ScratchDir dir;
  const std::string path;
  const int fd;
  pfio_advisor *advisor = nullptr;
};

TEST(PageCacheAdvisorTest, AdvisedRangesBecomeResidentAndOthersDoNot) {
  pfio::test::ScratchDir dir;
  const std::string path = dir.MakeFile("f", 64 * kMiB, 5);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EvictFile(fd);
  ASSERT_LT(ResidentFraction(fd, 0, 64 * kMiB), 0.05) << "the file could not be evicted";
  pfio_advisor *a = nullptr;
  ASSERT_EQ(pfio_advisor_create(fd, &a), PFIO_OK) << pfio_last_error();
  // The advisor advises on a descriptor of its own: the caller's may go at once.
  ASSERT_EQ(close(fd), 0);
  for (uint64_t at = 8 * kMiB; at < 24 * kMiB; at += 4 * kMiB)
    pfio_advisor_willneed(a, at, 4 * kMiB);
  ASSERT_EQ(pfio_advisor_drain(a, 10000), PFIO_OK) << pfio_last_error();
  const pfio_advisor_stats s = Stats(a);
  EXPECT_EQ(s.queued, 4u);
  EXPECT_EQ(s.advised, 4u);
  EXPECT_EQ(s.advised_inline, 0u);
  EXPECT_EQ(s.bytes, 16 * kMiB);
  EXPECT_EQ(s.failed, 0u);
  pfio_advisor_destroy(a);
  fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_GT(WaitResident(fd, 8 * kMiB, 16 * kMiB, 0.95), 0.95);
  EXPECT_LT(ResidentFraction(fd, 40 * kMiB, 16 * kMiB), 0.05) << "bytes nobody advised were read";
  close(fd);
}

// Linux reads at most the device's readahead or request limit of one WILLNEED (8 MiB on this
// project's VM) and drops the rest: one 56 MiB range given to the advisor becomes resident whole.
TEST(PageCacheAdvisorTest, ARangeLongerThanTheKernelReadsPerAdviceBecomesResidentWhole) {
  AdvisedFile f(64 * kMiB, 8);
  ASSERT_NE(f.advisor, nullptr);
  EvictFile(f.fd);
  ASSERT_LT(ResidentFraction(f.fd, 0, 64 * kMiB), 0.05) << "the file could not be evicted";
  pfio_advisor_willneed(f.advisor, 4 * kMiB, 56 * kMiB);
  ASSERT_EQ(pfio_advisor_drain(f.advisor, 10000), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(Stats(f.advisor).advised, 1u) << "one range, whatever pieces it went in";
  EXPECT_GT(WaitResident(f.fd, 4 * kMiB, 56 * kMiB, 0.99), 0.99);
  EXPECT_LT(ResidentFraction(f.fd, 60 * kMiB, 4 * kMiB), 0.05) << "read past the range";
}

TEST(PageCacheAdvisorTest, EveryRangeIsQueuedOrAdvisedInlineThenAdvised) {
  AdvisedFile f(4 * kMiB, 6);
  pfio_advisor *a = f.advisor;
  ASSERT_NE(a, nullptr);
  // More than the queue holds, given faster than one thread advises them.
  constexpr uint64_t kRanges = 20000;
  for (uint64_t i = 0; i < kRanges; ++i) pfio_advisor_willneed(a, (i % 1024) * 4096, 4096);
  pfio_advisor_willneed(a, 0, 0);  // nothing
  ASSERT_EQ(pfio_advisor_drain(a, 30000), PFIO_OK) << pfio_last_error();
  const pfio_advisor_stats s = Stats(a);
  EXPECT_EQ(s.queued + s.advised_inline, kRanges);
  EXPECT_EQ(s.advised, kRanges);
  EXPECT_EQ(s.bytes, kRanges * 4096);
  EXPECT_GE(s.max_waiting, 1u);
  EXPECT_LE(s.max_waiting, 4096u);
  EXPECT_EQ(s.dropped, 0u);
  // A smaller stats struct gets the first fields only.
  uint64_t first = 0;
  EXPECT_EQ(pfio_advisor_stats_get(a, reinterpret_cast<pfio_advisor_stats *>(&first), sizeof first),
            PFIO_OK);
  EXPECT_EQ(first, s.queued);
}

TEST(PageCacheAdvisorTest, AForkedChildAdvisesInline) {
  AdvisedFile f(4 * kMiB, 7);
  pfio_advisor *a = f.advisor;
  ASSERT_NE(a, nullptr);
  pfio_advisor_willneed(a, 0, kMiB);
  ASSERT_EQ(pfio_advisor_drain(a, 10000), PFIO_OK);  // its thread idle, no lock held at the fork
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pfio_advisor_willneed(a, kMiB, kMiB);
    pfio_advisor_stats s{};
    pfio_advisor_stats_get(a, &s, sizeof s);
    pfio_advisor_destroy(a);  // must not wait for the parent's thread
    _exit(s.advised_inline == 1 && s.advised == 2 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(Stats(a).advised_inline, 0u);
}

// The file position of descriptor `fd` from /proc/self/fdinfo (shared by the descriptors of one
// open file description), -1 when unreadable.
long long FdPosition(int fd) {
  std::FILE *f = std::fopen(("/proc/self/fdinfo/" + std::to_string(fd)).c_str(), "r");
  long long pos = -1;
  if (f != nullptr) {
    if (std::fscanf(f, "pos: %lld", &pos) != 1) pos = -1;
    std::fclose(f);
  }
  return pos;
}

// The advisor advises on an open file description of its own, not on a dup() sharing the
// caller's (on a FUSE file, advice through a dup waited for the caller's reads: 2.0 s against
// 0.1 s for 1,024 ranges): the caller's file position is not the advisor's.
TEST(PageCacheAdvisorTest, AdvisesOnAnOpenFileDescriptionOfItsOwn) {
  pfio::test::ScratchDir dir;
  const std::string path = dir.MakeFile("f", kMiB, 7);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(lseek(fd, 12345, SEEK_SET), 12345);
  struct stat want {};
  ASSERT_EQ(fstat(fd, &want), 0);
  std::vector<int> before;
  for (int d = 0; d < 1024; ++d)
    if (fcntl(d, F_GETFD) >= 0) before.push_back(d);
  pfio_advisor *a = nullptr;
  ASSERT_EQ(pfio_advisor_create(fd, &a), PFIO_OK) << pfio_last_error();
  int own = -1;  // the one new descriptor of the same file
  for (int d = 0; d < 1024; ++d) {
    struct stat sb {};
    if (std::find(before.begin(), before.end(), d) == before.end() && fstat(d, &sb) == 0 &&
        sb.st_ino == want.st_ino && sb.st_dev == want.st_dev)
      own = d;
  }
  ASSERT_GE(own, 0) << "no new descriptor of the file";
  EXPECT_EQ(FdPosition(fd), 12345);
  EXPECT_EQ(FdPosition(own), 0) << "the advisor shares the caller's open file description";
  pfio_advisor_willneed(a, 0, kMiB);
  EXPECT_EQ(pfio_advisor_drain(a, 10000), PFIO_OK);
  EXPECT_EQ(Stats(a).failed, 0u);
  pfio_advisor_destroy(a);
  close(fd);
}

TEST(PageCacheAdvisorTest, BadArgumentsAreRefusedByName) {
  pfio_advisor *a = reinterpret_cast<pfio_advisor *>(1);
  EXPECT_EQ(pfio_advisor_create(-1, &a), PFIO_EINVAL);
  EXPECT_EQ(a, nullptr);
  EXPECT_NE(std::string(pfio_last_error()).find("fd = -1: expected an open descriptor"),
            std::string::npos)
      << pfio_last_error();
  EXPECT_EQ(pfio_advisor_create(0, nullptr), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("out = NULL"), std::string::npos);
  // A number that is no open descriptor: neither reopening nor dup works (EBADF).
  EXPECT_EQ(pfio_advisor_create(1 << 20, &a), PFIO_EIO);
  EXPECT_NE(std::string(pfio_last_error()).find("could not be reopened or duplicated"),
            std::string::npos)
      << pfio_last_error();
  EXPECT_EQ(pfio_advisor_drain(nullptr, 1), PFIO_EINVAL);
  EXPECT_EQ(pfio_advisor_stats_get(nullptr, nullptr, 0), PFIO_EINVAL);
  pfio_advisor_willneed(nullptr, 0, 1);  // nothing, no crash
  pfio_advisor_destroy(nullptr);
}

}  // namespace
