// OpenFileHandle: when a file goes to the page cache because its file system refuses O_DIRECT,
// and when a failure is not O_DIRECT's and the open fails naming it (issue 13 item 10: any
// failure of the probe used to be blamed on O_DIRECT).
#include "io/file_open.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "test_util.h"

namespace pfio {
namespace {

constexpr uint64_t kSeed = 9;

// An opener that fails with `err`, as open(2) with O_DIRECT would.
DirectOpener FailingWith(int err) {
  return [err](const std::string &) {
    errno = err;
    return -1;
  };
}

TEST(FileOpen, ARealFileOnThisDiskOpensWithODirect) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("plain.data", 1 << 20, kSeed);
  FileHandle f;
  std::string refused;
  ASSERT_TRUE(OpenFileHandle(path, true, &f, &refused).ok());
  EXPECT_TRUE(f.o_direct) << refused;
  CloseFileHandle(&f);
}

TEST(FileOpen, EinvalAtOpenIsARefusalOfODirect) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("einval.data", 1 << 20, kSeed);
  FileHandle f;
  std::string refused;
  Status s = OpenFileHandle(path, true, &f, &refused, FailingWith(EINVAL));
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(f.o_direct);
  EXPECT_NE(refused.find("refuses O_DIRECT"), std::string::npos) << refused;
  EXPECT_EQ(f.direct_fd, f.buffered_fd);
  CloseFileHandle(&f);
}

TEST(FileOpen, EmfileAtOpenIsAnErrorNamingIt) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("emfile.data", 1 << 20, kSeed);
  FileHandle f;
  std::string refused;
  Status s = OpenFileHandle(path, true, &f, &refused, FailingWith(EMFILE));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), PFIO_EIO);
  EXPECT_NE(s.message().find("Too many open files"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
  EXPECT_TRUE(refused.empty()) << "not O_DIRECT's fault: " << refused;
}

// The probe read fails with something other than EINVAL (here EISDIR: the "O_DIRECT descriptor"
// is a directory): the open fails naming it instead of falling back to the page cache.
TEST(FileOpen, AProbeReadFailingOtherwiseIsAnErrorNamingIt) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("probe.data", 1 << 20, kSeed);
  const std::string where = dir.path();
  FileHandle f;
  std::string refused;
  Status s = OpenFileHandle(path, true, &f, &refused, [&](const std::string &) {
    return open(where.c_str(), O_RDONLY | O_DIRECTORY);
  });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), PFIO_EIO);
  EXPECT_NE(s.message().find("with O_DIRECT failed: Is a directory"), std::string::npos)
      << s.message();
  EXPECT_TRUE(refused.empty()) << refused;
}

// Issue 53 item 5: another process renames a new file over the path between pfio's two opens
// (buffered, then O_DIRECT). The O_DIRECT descriptor is reopened from the first one, so both are
// the file opened first and every byte read through either is its own. Before, the second open
// took the path: the O_DIRECT descriptor read the new file.
TEST(FileOpen, AFileRenamedOverThePathBetweenTheOpensIsNeverRead) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("checkpoint", 1 << 20, kSeed);
  const std::string next = dir.MakeFile("checkpoint.new", 1 << 20, kSeed + 1);
  FileHandle f;
  std::string refused;
  std::string opened;
  Status s = OpenFileHandle(path, true, &f, &refused, [&](const std::string &name) {
    opened = name;
    EXPECT_EQ(rename(next.c_str(), path.c_str()), 0);
    return OpenODirect(name);
  });
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(f.o_direct) << refused;
  EXPECT_NE(opened, path) << "the O_DIRECT descriptor was opened from the path";
  void *buf = nullptr;
  ASSERT_EQ(posix_memalign(&buf, kDirectAlign, 1 << 16), 0);
  ASSERT_EQ(pread(f.direct_fd, buf, 1 << 16, 1 << 16), 1 << 16);
  EXPECT_TRUE(test::HoldsPattern(buf, 1 << 16, 1 << 16, kSeed));
  ASSERT_EQ(pread(f.buffered_fd, buf, 1 << 16, 0), 1 << 16);
  EXPECT_TRUE(test::HoldsPattern(buf, 0, 1 << 16, kSeed));
  free(buf);
  CloseFileHandle(&f);
}

// Where /proc is missing the O_DIRECT descriptor is opened from the path, and a file renamed
// over it in between is found (another inode) and refused by name, never read.
TEST(FileOpen, WithoutProcAnotherFileAtThePathIsRefusedByName) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("checkpoint", 1 << 20, kSeed);
  const std::string next = dir.MakeFile("checkpoint.new", 1 << 20, kSeed + 1);
  FileHandle f;
  std::string refused;
  Status s = OpenFileHandle(path, true, &f, &refused, [&](const std::string &name) {
    if (name != path) {
      errno = ENOENT;  // no /proc/self/fd
      return -1;
    }
    EXPECT_EQ(rename(next.c_str(), path.c_str()), 0);
    return OpenODirect(name);
  });
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(path + " names another file than the one opened"), std::string::npos)
      << s.message();
}

// The front end's descriptor is the file (pfio_file_open_fd): a source with a descriptor is
// never opened by its path, even when the path names another file or nothing at all.
TEST(FileOpen, ASourceWithADescriptorIsReopenedFromItNeverFromThePath) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("checkpoint", 1 << 20, kSeed);
  const int fd = open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(unlink(path.c_str()), 0);
  dir.MakeFile("checkpoint", 1 << 20, kSeed + 1);
  for (bool direct : {true, false}) {
    FileHandle f;
    std::string refused;
    Status s = OpenFileHandle(FileSource(path, fd), direct, &f, &refused);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(f.path, path);
    EXPECT_NE(f.buffered_fd, fd);
    void *buf = nullptr;
    ASSERT_EQ(posix_memalign(&buf, kDirectAlign, 1 << 16), 0);
    ASSERT_EQ(pread(f.direct_fd, buf, 1 << 16, 0), 1 << 16);
    EXPECT_TRUE(test::HoldsPattern(buf, 0, 1 << 16, kSeed)) << "direct " << direct;
    free(buf);
    CloseFileHandle(&f);
  }
  close(fd);
  FileHandle f;
  std::string refused;
  Status s = OpenFileHandle(FileSource(path, fd), false, &f, &refused);
  EXPECT_FALSE(s.ok()) << "a closed descriptor";
  EXPECT_NE(s.message().find("descriptor " + std::to_string(fd)), std::string::npos) << s.message();
}

// Issue 53 item 3, the seam: the racy window follows the file's clock. A file system that keeps
// whole seconds stamps a change with the second it began in, so a look 1.5 s after the stamp may
// be within the same second as a later change; a fine clock's file that old is vouched for.
TEST(FileOpen, TheRacyWindowOfWholeSecondTimesCoversTheirSecond) {
  struct stat st {};
  st.st_size = 4096;
  const timespec now{1000, 600'000'000};
  st.st_mtim = st.st_ctim = timespec{999, 0};  // whole seconds, 1.6 s before the look
  EXPECT_TRUE(VersionOf(st, now, false).racy);
  EXPECT_TRUE(VersionOf(st, now, true).racy);
  st.st_mtim = st.st_ctim = timespec{999, 100'000'000};  // a fine clock, 1.5 s before
  EXPECT_FALSE(VersionOf(st, now, false).racy);
  EXPECT_TRUE(VersionOf(st, now, true).racy) << "remote: the server's clock, 2 s";
  st.st_mtim = st.st_ctim = timespec{998, 0};  // 2.6 s: older than any window
  EXPECT_FALSE(VersionOf(st, now, false).racy);
  st.st_mtim = st.st_ctim = timespec{1000, 550'000'000};  // 50 ms: racy on every clock
  EXPECT_TRUE(VersionOf(st, now, false).racy);
  st.st_mtim = st.st_ctim = timespec{1000, 450'000'000};  // 150 ms, fine local clock
  EXPECT_FALSE(VersionOf(st, now, false).racy);
  EXPECT_TRUE(VersionOf(st, now, true).racy);
}

}  // namespace
}  // namespace pfio
