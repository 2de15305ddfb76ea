// Helpers shared by the tests: a scratch directory on a real disk and self-verifying files.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "testdata/pattern.h"

namespace pfio::test {

// A directory removed at the end of the test. PFIO_TEST_DIR picks where (default: the build
// tree's working directory, a real disk file system so O_DIRECT is exercised).
class ScratchDir {
 public:
  ScratchDir() {
    const char *base = std::getenv("PFIO_TEST_DIR");
    std::string tmpl = std::string(base && *base ? base : ".") + "/pfio-test-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    char *d = mkdtemp(buf.data());
    if (d == nullptr) ADD_FAILURE() << "mkdtemp(" << tmpl << ") failed";
    path_ = d ? d : ".";
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string &path() const { return path_; }

  // A pattern file of `size` bytes with `seed`.
  std::string MakeFile(const std::string &name, uint64_t size, uint64_t seed) {
    std::string p = path_ + "/" + name;
    bool reused = false;
    Status s = MakePatternFile(p, size, seed, false, &reused);
    EXPECT_TRUE(s.ok()) << s.message();
    return p;
  }

 private:
  std::string path_;
};

// Asserts buf holds the pattern bytes of [offset, offset+length).
inline ::testing::AssertionResult HoldsPattern(const void *buf, uint64_t offset, uint64_t length,
                                               uint64_t seed) {
  uint64_t bad = FirstMismatch(buf, offset, length, seed);
  if (bad == UINT64_MAX) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "byte at file offset " << bad << " is wrong (read of ["
                                       << offset << ", " << offset + length << "))";
}

}  // namespace pfio::test
