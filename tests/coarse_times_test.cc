// Files on a file system that keeps whole-second times (ext4 with 128-byte inodes, mounted by
// tests/scripts/coarse-fs.sh at $COARSE_FS_DIR: not a PFIO_* name, which pfio would refuse): a
// same-size rewrite within the second of the file's last change, after pfio looked, is seen by
// pfio_file_check and by revalidate = on, in both buffer kinds (issue 53 item 3: with a 100 ms
// racy window for every local file system, 5 of 5 checks and 3 of 3 revalidated reads served
// the old bytes). The rule alone, without such a file system:
// FileOpen.TheRacyWindowOfWholeSecondTimesCoversTheirSecond.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "api_context.h"
#include "pfio/pfio.h"
#include "test_util.h"
#include "testdata/pattern.h"

namespace pfio {
namespace {

using namespace test;  // Context, RandomBlocks, ReadAll, Settings, kMiB

// The mounted file system's directory, or "" with *why set when this machine has none.
std::string CoarseDir(std::string *why) {
  const char *dir = std::getenv("COARSE_FS_DIR");
  if (dir == nullptr) {
    *why = "COARSE_FS_DIR is not set (ctest sets it: tests/CMakeLists.txt)";
    return "";
  }
  std::ifstream unavailable(std::string(dir) + "/.coarse-fs-unavailable");
  if (unavailable) {
    std::getline(unavailable, *why);
    return "";
  }
  return dir;
}

double SecondFraction() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return now.tv_nsec / 1e9;
}

// Sleeps until `fraction` of a second past a whole second of the wall clock.
void SleepUntilFraction(double fraction) {
  double now = SecondFraction();
  double wait = fraction - now;
  if (wait < 0) wait += 1.0;
  usleep(static_cast<useconds_t>(wait * 1e6));
}

// Writes the pattern of `seed` over the whole file in place (the same inode and size).
void RewriteInPlace(const std::string &path, uint64_t size, uint64_t seed) {
  std::vector<char> buf(size);
  FillPattern(buf.data(), 0, size, seed);
  const int fd = open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(pwrite(fd, buf.data(), size, 0), static_cast<ssize_t>(size));
  close(fd);
}

int64_t MtimeNs(const std::string &path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0);
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

TEST(CoarseTimes, ARewriteWithinTheSecondOfTheLastChangeIsSeen) {
  std::string why;
  const std::string dir = CoarseDir(&why);
  if (dir.empty()) GTEST_SKIP() << "no whole-second file system: " << why;
  std::printf("on %s (ext4, 128-byte inodes)\n", dir.c_str());
  const uint64_t size = 4 * kMiB, block = 65536;
  const std::string path = dir + "/coarse.data";
  for (const char *buffer : {"engine", "cache"}) {
    for (const bool revalidate : {false, true}) {
      SCOPED_TRACE(std::string(buffer) + (revalidate ? ", revalidate = on" : ", pfio_file_check"));
      // One second: the file made early in it, pfio's look 250 ms later (older than a fine
      // clock's window), the rewrite in the same second, so its times do not move. A loaded
      // machine that misses the second tries again.
      bool same_second = false;
      for (int attempt = 0; attempt < 5 && !same_second; ++attempt) {
        SleepUntilFraction(0.05);
        bool reused = false;
        unlink(path.c_str());
        ASSERT_TRUE(MakePatternFile(path, size, kSeed, false, &reused).ok());
        const int64_t made = MtimeNs(path);
        ASSERT_EQ(made % 1000000000, 0) << "not a whole-second file system";
        Settings settings = Context::Config(16 * kMiB, "pipelined", "auto");
        settings[1] = {"buffer", buffer};
        settings.push_back({"revalidate", revalidate ? "on" : "off"});
        Context c(settings);
        const int32_t f = c.Open(path);
        SleepUntilFraction(0.3);
        int changed = 0;
        if (!revalidate) {
          ASSERT_EQ(pfio_file_check(c.ctx, f, &changed), PFIO_OK);
        }
        std::vector<pfio_extent> plan = RandomBlocks(f, size, block, 48, 7);
        ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
        ReadAll(c, std::vector<pfio_extent>(plan.begin(), plan.begin() + 8), kSeed);
        RewriteInPlace(path, size, kSeed + 1);
        same_second = MtimeNs(path) == made && SecondFraction() < 0.95;
        if (!same_second) continue;
        if (!revalidate) {
          ASSERT_EQ(pfio_file_check(c.ctx, f, &changed), PFIO_OK);
          EXPECT_EQ(changed, 1) << "the rewrite left the times as they were: the look must not "
                                   "vouch for them";
        }
        ReadAll(c, std::vector<pfio_extent>(plan.begin() + 8, plan.end()), kSeed + 1);
      }
      EXPECT_TRUE(same_second) << "five tries never rewrote the file within its second";
    }
  }
  unlink(path.c_str());
}

}  // namespace
}  // namespace pfio
