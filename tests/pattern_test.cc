// FirstMismatch finds the first wrong byte wherever it is, on whole words and on ragged ends.
// MakePatternFile: reuses a matching file, remakes its own pattern file of another size, and
// refuses (leaving it untouched) any file it did not make or a path that is not a regular file.
#include "testdata/pattern.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "test_util.h"

namespace pfio {
namespace {

std::string Contents(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

size_t EntriesIn(const std::string &dir) {
  size_t n = 0;
  for (const auto &e : std::filesystem::directory_iterator(dir)) {
    (void)e;
    ++n;
  }
  return n;
}

TEST(FirstMismatch, FindsTheFirstWrongByteAtEveryPositionAlignedOrNot) {
  // 4 KiB at a word-aligned offset (the whole-word path) and 1000 bytes at an odd offset (the
  // byte path); every position corrupted in turn, alone and with a later byte also wrong.
  const struct { uint64_t offset, length; } cases[] = {{8192, 4096}, {12345, 1000}, {0, 72}};
  for (const auto &c : cases) {
    std::vector<unsigned char> buf(c.length);
    FillPattern(buf.data(), c.offset, c.length, 9);
    ASSERT_EQ(FirstMismatch(buf.data(), c.offset, c.length, 9), UINT64_MAX);
    EXPECT_NE(FirstMismatch(buf.data(), c.offset, c.length, 10), UINT64_MAX) << "another seed";
    for (uint64_t i = 0; i < c.length; ++i) {
      buf[i] ^= 0x40;
      if (i + 5 < c.length) buf[i + 5] ^= 0x01;
      ASSERT_EQ(FirstMismatch(buf.data(), c.offset, c.length, 9), c.offset + i)
          << "offset " << c.offset << " length " << c.length << " byte " << i;
      buf[i] ^= 0x40;
      if (i + 5 < c.length) buf[i + 5] ^= 0x01;
    }
  }
}

TEST(MakePatternFile, ReusesAMatchingFileAndRemakesItsOwnOfAnotherSize) {
  test::ScratchDir dir;
  const std::string path = dir.path() + "/p.data";
  bool reused = true;
  ASSERT_TRUE(MakePatternFile(path, 100000, 5, false, &reused).ok());
  EXPECT_FALSE(reused);
  ASSERT_TRUE(MakePatternFile(path, 100000, 5, false, &reused).ok());
  EXPECT_TRUE(reused);
  Status s = MakePatternFile(path, 200000, 5, false, &reused);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(reused);
  std::string bytes = Contents(path);
  ASSERT_EQ(bytes.size(), 200000u);
  EXPECT_TRUE(test::HoldsPattern(bytes.data(), 0, bytes.size(), 5));
  EXPECT_EQ(EntriesIn(dir.path()), 1u) << "no temporary file left behind";
}

TEST(MakePatternFile, RefusesAFileItDidNotMakeAndLeavesItAlone) {
  test::ScratchDir dir;
  const std::string path = dir.path() + "/precious.txt";
  std::ofstream(path) << "the only copy of something";
  bool reused = true;
  Status s = MakePatternFile(path, 4096, 5, false, &reused);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(path + " exists and is not a pattern file of seed 5"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(Contents(path), "the only copy of something");
  // Another seed's pattern file is not ours either.
  const std::string other = dir.path() + "/other-seed.data";
  ASSERT_TRUE(MakePatternFile(other, 8192, 6, false, &reused).ok());
  EXPECT_FALSE(MakePatternFile(other, 8192, 5, false, &reused).ok());
  EXPECT_TRUE(test::HoldsPattern(Contents(other).data(), 0, 8192, 6));
  EXPECT_EQ(EntriesIn(dir.path()), 2u) << "no temporary file left behind";
}

TEST(MakePatternFile, RefusesAPathThatIsNotARegularFile) {
  test::ScratchDir dir;
  const std::string sub = dir.path() + "/a-directory";
  ASSERT_EQ(mkdir(sub.c_str(), 0755), 0);
  bool reused = true;
  Status s = MakePatternFile(sub, 4096, 5, false, &reused);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is not a regular file"), std::string::npos) << s.message();
  EXPECT_TRUE(std::filesystem::is_directory(sub));
  s = MakePatternFile("/dev/null", 4096, 5, false, &reused);
  EXPECT_FALSE(s.ok()) << "must never replace /dev/null";
  struct stat sb;
  ASSERT_EQ(stat("/dev/null", &sb), 0);
  EXPECT_TRUE(S_ISCHR(sb.st_mode));
}

}  // namespace
}  // namespace pfio
