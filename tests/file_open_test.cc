// OpenFileHandle: when a file goes to the page cache because its file system refuses O_DIRECT,
// and when a failure is not O_DIRECT's and the open fails naming it (issue 13 item 10: any
// failure of the probe used to be blamed on O_DIRECT).
#include "io/file_open.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
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

}  // namespace
}  // namespace pfio
