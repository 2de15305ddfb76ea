// Helpers shared by the tests: a scratch directory on a real disk, self-verifying files, and the
// page cache's view of a file (residency, eviction, waiting for advice to land).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "testdata/pattern.h"

namespace pfio::test {

// A directory removed at the end of the test. PFIO_TEST_DIR picks where (default: the build
// tree's working directory, a real disk file system so O_DIRECT is exercised); it is made if
// missing. A directory that cannot be made stops the test with an exception naming it (never a
// fallback to "." that the destructor would then empty: that removed the build tree's tests
// once, PFIO_TEST_DIR naming a directory not made yet).
class ScratchDir {
 public:
  ScratchDir() {
    const char *env = std::getenv("PFIO_TEST_DIR");
    const std::string base = env && *env ? env : ".";
    std::error_code ec;
    std::filesystem::create_directories(base, ec);
    std::string tmpl = base + "/pfio-test-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) == nullptr)
      throw std::runtime_error("scratch directory: mkdtemp(" + tmpl +
                               ") failed: " + std::strerror(errno) + " (PFIO_TEST_DIR = '" + base +
                               "', expected a writable directory)");
    path_ = buf.data();
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

// Asserts a call succeeded, its message shown when it did not.
inline ::testing::AssertionResult IsOk(const Status &status) {
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << status.message();
}

// Asserts buf holds the pattern bytes of [offset, offset+length).
inline ::testing::AssertionResult HoldsPattern(const void *buf, uint64_t offset, uint64_t length,
                                               uint64_t seed) {
  uint64_t bad = FirstMismatch(buf, offset, length, seed);
  if (bad == UINT64_MAX) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "byte at file offset " << bad << " is wrong (read of ["
                                       << offset << ", " << offset + length << "))";
}

// The fraction of the pages of [offset, offset + length) of fd in the page cache (mincore),
// the range rounded out to whole pages; -1 when it cannot be mapped.
inline double ResidentFraction(int fd, uint64_t offset, uint64_t length) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t start = offset / page * page, end = (offset + length + page - 1) / page * page;
  void *map = mmap(nullptr, end - start, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(start));
  if (map == MAP_FAILED) return -1;
  std::vector<unsigned char> in((end - start) / page);
  double fraction = -1;
  if (mincore(map, end - start, in.data()) == 0) {
    size_t resident = 0;
    for (unsigned char c : in) resident += c & 1;
    fraction = static_cast<double>(resident) / static_cast<double>(in.size());
  }
  munmap(map, end - start);
  return fraction;
}

// Drops every page of fd's file from the page cache (written back first: dirty pages stay).
inline void EvictFile(int fd) {
  ASSERT_EQ(fdatasync(fd), 0);
  ASSERT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
}

// Whether `holds` becomes true within 10 s, polled every 10 ms: advice goes out from an advice
// thread, and the reads it submits complete after that.
template <typename F>
bool Eventually(F holds) {
  for (int i = 0; i < 1000; ++i) {
    if (holds()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return holds();
}

}  // namespace pfio::test
