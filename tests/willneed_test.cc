// io/willneed: the most one WILLNEED reads on a file's device, read from sysfs, and advice of a
// range longer than that in pieces, on a real file on disk: every page of the range resident,
// none past it; a descriptor that is not open is the kernel's error, the limit its floor.
#include "io/willneed.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>

#include "test_util.h"

namespace pfio {
namespace {

constexpr uint64_t kMiB = 1 << 20;

TEST(WillneedTest, TheLimitIsAtLeastTheKernelsDefaultReadaheadAndWholePages) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("f", 4096, 1);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const uint64_t limit = WillneedLimit(fd);
  EXPECT_GE(limit, kMinWillneedLimit);
  EXPECT_EQ(limit % 4096, 0u) << limit;
  EXPECT_EQ(WillneedLimit(-1), kMinWillneedLimit) << "no file: the floor";
  close(fd);
}

TEST(WillneedTest, ARangeOfManyLimitsIsAdvisedWholeAndNothingPastIt) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("f", 16 * kMiB, 2);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  test::EvictFile(fd);
  ASSERT_LT(test::ResidentFraction(fd, 0, 16 * kMiB), 0.05) << "the file could not be evicted";
  // A limit far below the device's: the pieces are what the test counts on, not the kernel.
  ASSERT_EQ(Willneed(fd, kMiB, 12 * kMiB, 256 << 10), 0);
  EXPECT_TRUE(test::Eventually([&] { return test::ResidentFraction(fd, kMiB, 12 * kMiB) > 0.99; }))
      << test::ResidentFraction(fd, kMiB, 12 * kMiB);
  EXPECT_LT(test::ResidentFraction(fd, 14 * kMiB, 2 * kMiB), 0.05) << "read past the range";
  EXPECT_EQ(Willneed(fd, 0, 0, 0), 0) << "nothing to advise";
  close(fd);
  EXPECT_EQ(Willneed(fd, 0, kMiB, 0), EBADF);
}

}  // namespace
}  // namespace pfio
