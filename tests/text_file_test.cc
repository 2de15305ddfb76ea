// KeptFile: kernel text files read again and again through one kept descriptor.
#include "common/text_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "test_util.h"

namespace pfio {
namespace {

int OpenDescriptors() {
  int n = 0;
  for (int fd = 0; fd < 1024; ++fd)
    if (fcntl(fd, F_GETFD) >= 0) ++n;
  return n;
}

TEST(KeptFile, AFileRewrittenInPlaceIsReadAnewThroughOneDescriptor) {
  test::ScratchDir dir;
  const std::string path = dir.path() + "/value";
  std::ofstream(path) << "first line\nsecond\n";
  KeptFile f(path);
  std::string text;
  ASSERT_TRUE(f.Read(&text));
  EXPECT_EQ(text, "first line\nsecond\n");
  const int open_after_first = OpenDescriptors();
  std::ofstream(path) << "7\n";  // truncated and rewritten, as tests and the kernel do
  ASSERT_TRUE(f.Read(&text));
  EXPECT_EQ(text, "7\n");
  EXPECT_EQ(OpenDescriptors(), open_after_first);  // no descriptor opened per read
}

TEST(KeptFile, TextLongerThanOneReadArrivesWhole) {
  test::ScratchDir dir;
  const std::string path = dir.path() + "/long";
  std::string want;
  for (int i = 0; i < 5000; ++i) want += "line " + std::to_string(i) + "\n";  // > 8 KiB
  std::ofstream(path) << want;
  KeptFile f(path);
  std::string text;
  ASSERT_TRUE(f.Read(&text));
  EXPECT_EQ(text, want);
}

TEST(KeptFile, AMissingFileIsFalseAndReadOnceItAppears) {
  test::ScratchDir dir;
  const std::string path = dir.path() + "/later";
  KeptFile f(path);
  std::string text = "stale";
  EXPECT_FALSE(f.Read(&text));
  EXPECT_EQ(text, "");
  std::ofstream(path) << "here\n";
  ASSERT_TRUE(f.Read(&text));
  EXPECT_EQ(text, "here\n");
}

TEST(KeptFile, ProcfsTextIsMadeAfreshAtEveryRead) {
  KeptFile meminfo("/proc/meminfo");
  std::string a, b;
  ASSERT_TRUE(meminfo.Read(&a));
  ASSERT_TRUE(meminfo.Read(&b));
  EXPECT_EQ(a.rfind("MemTotal:", 0), 0u) << a.substr(0, 80);
  EXPECT_EQ(b.rfind("MemTotal:", 0), 0u) << b.substr(0, 80);
  // /proc/self/stat's field 14 (utime) grows as this process spins: a kept descriptor still
  // sees the new value, not the text of its first read.
  KeptFile stat("/proc/self/stat");
  std::string first, later;
  ASSERT_TRUE(stat.Read(&first));
  const std::string pid = std::to_string(getpid()) + " ";
  EXPECT_EQ(first.rfind(pid, 0), 0u) << first;
  volatile uint64_t spin = 0;
  for (int round = 0; round < 50 && later.empty(); ++round) {
    for (int i = 0; i < 20000000; ++i) spin = spin + i;
    ASSERT_TRUE(stat.Read(&later));
    if (later == first) later.clear();
  }
  EXPECT_FALSE(later.empty()) << "/proc/self/stat read the same text for a second of CPU";
}

TEST(KeptFile, AForkedChildReadsItsOwnProcSelfFile) {
  KeptFile stat("/proc/self/stat");
  std::string text;
  ASSERT_TRUE(stat.Read(&text));  // opened by the parent
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string mine;
    const bool ok = stat.Read(&mine);
    _exit(ok && mine.rfind(std::to_string(getpid()) + " ", 0) == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the child read the parent's /proc/self/stat through the kept descriptor";
  ASSERT_TRUE(stat.Read(&text));  // the parent's descriptor is still its own
  EXPECT_EQ(text.rfind(std::to_string(getpid()) + " ", 0), 0u);
}

}  // namespace
}  // namespace pfio
