// pfio_advise_now on real files on disk, for files of both buffer kinds: advised ranges become
// resident in the page cache and others do not; a range longer than the kernel reads per advice
// becomes resident whole; every range given is counted (and advised in the caller when 4096
// wait); the advice goes out on an open file description of the context's own, not the
// application's; a forked child is refused by name; bad arguments are refused by name.
// (These are the cases of the advisor the HDF5 driver used before its advice went through the
// engine, pfio_advisor_*, moved here.)
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "api_context.h"
#include "pfio/pfio.h"
#include "test_util.h"

namespace pfio {
namespace {

using test::kMiB;

// Settings of a context whose files are of `kind` ("engine": the reorder buffer, "cache").
test::Settings Kind(const std::string &kind) {
  return {{"buffer", kind}, {"budget", "16M"}, {"timeout_ms", "20000"}};
}

// A pattern file of `size` bytes evicted from the page cache, a descriptor for mincore.
struct EvictedFile {
  EvictedFile(uint64_t size, uint64_t seed)
      : path(dir.MakeFile("f", size, seed)), fd(open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    EXPECT_GE(fd, 0);
    test::EvictFile(fd);
    EXPECT_LT(test::ResidentFraction(fd, 0, size), 0.05) << "the file could not be evicted";
  }
  ~EvictedFile() { close(fd); }
  // Whether [offset, offset + length) becomes at least `want` resident within 10 s.
  bool BecomesResident(uint64_t offset, uint64_t length, double want) const {
    return test::Eventually([&] { return test::ResidentFraction(fd, offset, length) >= want; });
  }
  test::ScratchDir dir;
  const std::string path;
  const int fd;
};

class AdviseNow : public ::testing::TestWithParam<std::string> {};

TEST_P(AdviseNow, AdvisedRangesBecomeResidentAndOthersDoNot) {
  EvictedFile f(64 * kMiB, 5);
  test::Context c(Kind(GetParam()));
  const int32_t id = c.Open(f.path);
  std::vector<pfio_extent> ranges;
  for (uint64_t at = 8 * kMiB; at < 24 * kMiB; at += 4 * kMiB)
    ranges.push_back({id, 0, at, 4 * kMiB});
  ASSERT_EQ(pfio_advise_now(c.ctx, ranges.data(), ranges.size()), PFIO_OK) << pfio_last_error();
  EXPECT_TRUE(f.BecomesResident(8 * kMiB, 16 * kMiB, 0.95))
      << test::ResidentFraction(f.fd, 8 * kMiB, 16 * kMiB) << " of the advised bytes resident";
  EXPECT_LT(test::ResidentFraction(f.fd, 40 * kMiB, 16 * kMiB), 0.05)
      << "bytes nobody advised were read";
  const pfio_stats s = c.Stats();
  EXPECT_EQ(s.advised_now, 4u);
  EXPECT_EQ(s.advised_now_bytes, 16 * kMiB);
  EXPECT_EQ(s.advised_dropped, 0u);
  EXPECT_EQ(s.advice_failed, 0u);
  EXPECT_EQ(s.requests, 0u) << "outside the plan: no prefetch request";
  EXPECT_EQ(s.memory_peak, 0u) << "outside the budget";
}

// Linux reads at most the device's readahead or request limit of one WILLNEED (8 MiB on this
// project's VM) and drops the rest: one 56 MiB range becomes resident whole, in either kind (the
// reorder buffer's files learn the limit at their first advice).
TEST_P(AdviseNow, ARangeLongerThanTheKernelReadsPerAdviceBecomesResidentWhole) {
  EvictedFile f(64 * kMiB, 8);
  test::Context c(Kind(GetParam()));
  const pfio_extent range{c.Open(f.path), 0, 4 * kMiB, 56 * kMiB};
  ASSERT_EQ(pfio_advise_now(c.ctx, &range, 1), PFIO_OK) << pfio_last_error();
  EXPECT_TRUE(f.BecomesResident(4 * kMiB, 56 * kMiB, 0.99))
      << test::ResidentFraction(f.fd, 4 * kMiB, 56 * kMiB) << " of the range resident";
  EXPECT_LT(test::ResidentFraction(f.fd, 60 * kMiB, 4 * kMiB), 0.05) << "read past the range";
  EXPECT_EQ(c.Stats().advised_now, 1u) << "one range, whatever pieces it went in";
}

// More ranges than wait at once, given faster than one thread advises them: each is counted,
// those advised by the caller among them, and every page they name becomes resident.
TEST_P(AdviseNow, EveryRangeIsCountedAndAdvised) {
  EvictedFile f(4 * kMiB, 6);
  test::Context c(Kind(GetParam()));
  const int32_t id = c.Open(f.path);
  constexpr uint64_t kRanges = 20000;
  std::vector<pfio_extent> ranges;
  for (uint64_t i = 0; i < kRanges; ++i) ranges.push_back({id, 0, (i % 1024) * 4096, 4096});
  ASSERT_EQ(pfio_advise_now(c.ctx, ranges.data(), ranges.size() / 2), PFIO_OK);
  for (size_t i = ranges.size() / 2; i < ranges.size(); ++i)
    ASSERT_EQ(pfio_advise_now(c.ctx, &ranges[i], 1), PFIO_OK) << pfio_last_error();
  ASSERT_EQ(pfio_advise_now(c.ctx, nullptr, 0), PFIO_OK) << "nothing to advise";
  EXPECT_TRUE(f.BecomesResident(0, 4 * kMiB, 1.0));
  const pfio_stats s = c.Stats();
  EXPECT_EQ(s.advised_now, kRanges);
  EXPECT_EQ(s.advised_now_bytes, kRanges * 4096);
  EXPECT_LE(s.advised_inline, kRanges);
  EXPECT_EQ(s.advice_failed, 0u);
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

// The descriptors of the file at `path` open in this process.
std::vector<int> DescriptorsOf(const std::string &path) {
  struct stat want {};
  EXPECT_EQ(stat(path.c_str(), &want), 0);
  std::vector<int> fds;
  for (int d = 0; d < 4096; ++d) {
    struct stat sb {};
    if (fcntl(d, F_GETFD) >= 0 && fstat(d, &sb) == 0 && sb.st_ino == want.st_ino &&
        sb.st_dev == want.st_dev)
      fds.push_back(d);
  }
  return fds;
}

// Advice goes out on the context's own open file descriptions, never one the application reads
// through (on a FUSE file, advice through a dup of the reader's descriptor waited for its reads:
// 2.0 s against 0.1 s for 1,024 ranges): the application's file position moves no description of
// the context's, and advising moves none of the application's.
TEST_P(AdviseNow, AdvisesOnAnOpenFileDescriptionOfTheContextsOwn) {
  EvictedFile f(kMiB, 7);
  ASSERT_EQ(lseek(f.fd, 12345, SEEK_SET), 12345);
  test::Context c(Kind(GetParam()));
  const pfio_extent range{c.Open(f.path), 0, 0, kMiB};
  std::vector<int> own = DescriptorsOf(f.path);
  std::erase(own, f.fd);
  ASSERT_FALSE(own.empty()) << "the context holds no descriptor of the file";
  for (int d : own) EXPECT_EQ(FdPosition(d), 0) << "descriptor " << d << " shares the caller's";
  ASSERT_EQ(pfio_advise_now(c.ctx, &range, 1), PFIO_OK) << pfio_last_error();
  EXPECT_TRUE(f.BecomesResident(0, kMiB, 0.99));
  EXPECT_EQ(FdPosition(f.fd), 12345);
  EXPECT_EQ(c.Stats().advice_failed, 0u);
}

INSTANTIATE_TEST_SUITE_P(BothKinds, AdviseNow, ::testing::Values("engine", "cache"),
                         [](const auto &info) { return info.param; });

// A child of fork() gets no advice thread: pfio refuses its calls by name (the HDF5 driver then
// advises in the reader), and the parent's context goes on advising.
TEST(AdviseNowFork, AForkedChildIsRefusedByNameAndTheParentGoesOn) {
  EvictedFile f(4 * kMiB, 9);
  test::Context c(Kind("cache"));
  const int32_t id = c.Open(f.path);
  const pfio_extent first{id, 0, 0, kMiB}, second{id, 0, 2 * kMiB, kMiB};
  ASSERT_EQ(pfio_advise_now(c.ctx, &first, 1), PFIO_OK) << pfio_last_error();
  ASSERT_TRUE(f.BecomesResident(0, kMiB, 0.99));  // the thread idle, no lock held at the fork
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const bool refused = pfio_advise_now(c.ctx, &second, 1) != PFIO_OK &&
                         std::string(pfio_last_error()).find("fork") != std::string::npos;
    _exit(refused ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_LT(test::ResidentFraction(f.fd, 2 * kMiB, kMiB), 0.05) << "the child's advice went out";
  ASSERT_EQ(pfio_advise_now(c.ctx, &second, 1), PFIO_OK) << pfio_last_error();
  EXPECT_TRUE(f.BecomesResident(2 * kMiB, kMiB, 0.99));
}

// Ranges are checked as plan extents are (open file, inside it), and nothing of a call with a bad
// range is advised; a null array is refused naming the call.
TEST(AdviseNowArguments, BadRangesAreRefusedByNameAndNothingIsAdvised) {
  EvictedFile f(8 * kMiB, 29);
  test::Context c(Kind("engine"));
  const int32_t id = c.Open(f.path);
  const pfio_extent ranges[] = {{id, 0, 0, kMiB}, {id, 0, 7 * kMiB, 2 * kMiB}};
  EXPECT_NE(pfio_advise_now(c.ctx, ranges, 2), PFIO_OK);
  EXPECT_NE(std::string(pfio_last_error()).find(f.path), std::string::npos) << pfio_last_error();
  const pfio_extent closed{id + 1, 0, 0, kMiB};
  EXPECT_NE(pfio_advise_now(c.ctx, &closed, 1), PFIO_OK);
  EXPECT_NE(std::string(pfio_last_error()).find("file"), std::string::npos) << pfio_last_error();
  EXPECT_EQ(pfio_advise_now(c.ctx, nullptr, 1), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("pfio_advise_now"), std::string::npos)
      << pfio_last_error();
  EXPECT_EQ(c.Stats().advised_now, 0u);
  EXPECT_LT(test::ResidentFraction(f.fd, 0, kMiB), 0.05) << "a refused call advised";
}

}  // namespace
}  // namespace pfio
