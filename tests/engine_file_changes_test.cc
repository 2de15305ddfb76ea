// Files that change while the engine reads them, through the public C API on real files: a
// refresh drops what was prefetched and reads the size again, revalidate and pfio_file_check see
// rewrites (by size, mtime and ctime), a file that shrank is an error naming it, never a buffer
// left unfilled. Every byte read is checked against the self-verifying pattern.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "api_context.h"
#include "pfio/pfio.h"
#include "test_util.h"

namespace pfio {
namespace {

using namespace test;  // Context, RandomBlocks, ReadAll, Settings, kSeed, kMiB

// How long after a file's last change pfio's look at it stays racy (include/pfio/pfio.h), and a
// wait past it: a file older than this is vouched for by its times.
constexpr auto kPastRacyWindow = std::chrono::milliseconds(150);

// Rewrites `path` with `size` bytes of the pattern of `seed` (through its own descriptor).
void Rewrite(const std::string &path, uint64_t size, uint64_t seed) {
  std::vector<char> buf(size);
  FillPattern(buf.data(), 0, size, seed);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(buf.data(), static_cast<std::streamsize>(size));
  ASSERT_TRUE(out.good()) << path;
}

TEST(EngineRead, RefreshDropsPrefetchedBytesAndRereadsTheSize) {
  test::ScratchDir dir;
  const uint64_t size = 4 * kMiB, block = 16384;
  std::string path = dir.MakeFile("refresh", size, kSeed);
  Context c(8 * kMiB, "pipelined");
  int32_t f = c.Open(path);
  std::vector<pfio_extent> plan = RandomBlocks(f, size, block, 64, 3);
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK);
  ReadAll(c, {plan[0]});
  // The rest of the plan is being prefetched now (the pipeline's thread submits it, so wait).
  ASSERT_TRUE(Eventually([&] { return c.Stats().requests > 1u; })) << c.Stats().requests;

  Rewrite(path, 5 * kMiB, 7);  // new bytes everywhere, and a longer file
  ASSERT_EQ(pfio_file_refresh(c.ctx, f), PFIO_OK) << pfio_last_error();
  uint64_t now = 0;
  ASSERT_EQ(pfio_file_size(c.ctx, f, &now), PFIO_OK);
  EXPECT_EQ(now, 5 * kMiB);
  // The old plan is gone; the same extents planned again come back with the new bytes.
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data() + 1, plan.size() - 1), PFIO_OK);
  ReadAll(c, std::vector<pfio_extent>(plan.begin() + 1, plan.end()), 7);
  ReadAll(c, {pfio_extent{f, 0, size + 12345, 20000}}, 7);  // past the old end

  Rewrite(path, kMiB, 9);  // truncated
  ASSERT_EQ(pfio_file_refresh(c.ctx, f), PFIO_OK) << pfio_last_error();
  ASSERT_EQ(pfio_file_size(c.ctx, f, &now), PFIO_OK);
  EXPECT_EQ(now, kMiB);
  std::vector<char> buf(block);
  uint64_t n = 99;
  ASSERT_EQ(pfio_read(c.ctx, f, buf.data(), 2 * kMiB, block, &n), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(n, 0u);
  ReadAll(c, {pfio_extent{f, 0, kMiB - block, block}}, 9);
  EXPECT_EQ(pfio_file_refresh(c.ctx, 999), PFIO_EBADF);
  EXPECT_EQ(pfio_file_refresh(nullptr, f), PFIO_EINVAL);
}

// Writes the pattern of `seed` over the whole file in place, as another process rewriting it
// would (the same inode, a new mtime).
void RewriteInPlace(const std::string &path, uint64_t size, uint64_t seed) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a later mtime tick
  int fd = open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  std::vector<char> buf(kMiB);
  for (uint64_t off = 0; off < size; off += buf.size()) {
    FillPattern(buf.data(), off, buf.size(), seed);
    ASSERT_EQ(pwrite(fd, buf.data(), buf.size(), static_cast<off_t>(off)),
              static_cast<ssize_t>(buf.size()));
  }
  close(fd);
}

// A file rewritten while it is read. Without revalidate, prefetched blocks come back as the old
// bytes (documented: pfio serves bytes as they were when prefetched); with revalidate = on, the
// change is seen by the very next read (stats: files_changed), and from then on every read has
// the new bytes, although blocks prefetched before the change were still held. Every read,
// either way, holds one version or the other, never a mix or garbage.
TEST(EngineRead, FileRewrittenUnderTheReaderIsSeenWithRevalidate) {
  test::ScratchDir dir;
  const uint64_t size = 8 * kMiB, budget = kMiB, kNew = kSeed + 1;
  for (const std::string revalidate : {"off", "on"}) {
    std::string path = dir.MakeFile("rewritten-" + revalidate, size, kSeed);
    std::this_thread::sleep_for(kPastRacyWindow);  // else every look takes it as changed
    Settings settings = Context::Config(2 * budget, "pipelined", "auto");
    settings.push_back({"revalidate", revalidate});
    Context c(settings);
    int32_t f = c.Open(path);
    std::mt19937_64 rng(5);
    std::vector<pfio_extent> plan(4000);
    for (auto &e : plan) e = {f, 0, rng() % (size / 4096) * 4096, 4096};
    ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
    std::vector<char> buf(4096);
    size_t old_after = 0, seen_at = 0;
    const size_t change_at = 1000;
    for (size_t i = 0; i < plan.size(); ++i) {
      if (i == change_at) RewriteInPlace(path, size, kNew);
      uint64_t n = 0;
      ASSERT_EQ(pfio_read(c.ctx, f, buf.data(), plan[i].offset, 4096, &n), PFIO_OK)
          << pfio_last_error();
      ASSERT_EQ(n, 4096u);
      const bool is_old = test::HoldsPattern(buf.data(), plan[i].offset, n, kSeed);
      const bool is_new = test::HoldsPattern(buf.data(), plan[i].offset, n, kNew);
      ASSERT_TRUE(is_old || is_new) << "read " << i << " is neither version";
      ASSERT_TRUE(i < change_at ? is_old : true) << "read " << i;
      if (i >= change_at && is_old) ++old_after;
      if (seen_at == 0 && c.Stats().files_changed > 0) seen_at = i;
    }
    if (revalidate == "off") {
      EXPECT_GT(old_after, 0u) << "prefetched blocks are served as they were read";
      EXPECT_EQ(c.Stats().files_changed, 0u);
    } else {
      EXPECT_EQ(seen_at, change_at) << "the change is seen by the first read after it";
      EXPECT_EQ(old_after, 0u) << "old bytes served after the change";
      EXPECT_GE(c.Stats().files_changed, 1u);
    }
  }
}

// pfio_file_check: vouches for a file whose times did not move (nothing dropped), sees a
// rewrite of the same size, and one that put the old mtime back (ctime moved); a look within
// the racy window of the file's last change never vouches for it.
TEST(EngineRead, FileCheckSeesRewritesAndVouchesForAnUnchangedFile) {
  test::ScratchDir dir;
  const uint64_t size = 4 * kMiB, block = 16384;
  std::string path = dir.MakeFile("checked", size, kSeed);
  std::this_thread::sleep_for(kPastRacyWindow);
  Context c(8 * kMiB, "pipelined");
  int32_t f = c.Open(path);
  std::vector<pfio_extent> plan = RandomBlocks(f, size, block, 64, 3);
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK);
  ReadAll(c, {plan[0]});
  int changed = -1;
  ASSERT_EQ(pfio_file_check(c.ctx, f, &changed), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(changed, 0);
  ReadAll(c, {plan[1], plan[2]});  // the plan was kept
  EXPECT_EQ(c.Stats().files_changed, 0u);

  RewriteInPlace(path, size, 7);
  const auto rewritten = std::chrono::steady_clock::now();
  ASSERT_EQ(pfio_file_check(c.ctx, f, &changed), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(changed, 1);
  ASSERT_EQ(pfio_file_check(c.ctx, f, &changed), PFIO_OK);
  if (std::chrono::steady_clock::now() - rewritten < std::chrono::milliseconds(50)) {
    EXPECT_EQ(changed, 1) << "a look right after a change is racy";
  }
  // Dropped as by pfio_file_refresh: the same extents planned again have the new bytes.
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data() + 3, plan.size() - 3), PFIO_OK);
  ReadAll(c, std::vector<pfio_extent>(plan.begin() + 3, plan.end()), 7);

  std::this_thread::sleep_for(kPastRacyWindow);
  ASSERT_EQ(pfio_file_check(c.ctx, f, &changed), PFIO_OK);  // replaces a racy look, if any
  ASSERT_EQ(pfio_file_check(c.ctx, f, &changed), PFIO_OK);
  EXPECT_EQ(changed, 0) << "a file untouched for longer than the racy window";

  struct stat before {};
  ASSERT_EQ(stat(path.c_str(), &before), 0);
  RewriteInPlace(path, size, 8);
  const timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);  // as cp -p and rsync do
  std::this_thread::sleep_for(kPastRacyWindow);
  ASSERT_EQ(pfio_file_check(c.ctx, f, &changed), PFIO_OK);
  EXPECT_EQ(changed, 1) << "same size and mtime, but ctime moved";
  EXPECT_GE(c.Stats().files_changed, 2u);

  EXPECT_EQ(pfio_file_check(c.ctx, 999, &changed), PFIO_EBADF);
  EXPECT_EQ(pfio_file_check(c.ctx, f, nullptr), PFIO_EINVAL);
  EXPECT_EQ(pfio_file_check(nullptr, f, &changed), PFIO_EINVAL);
}

// A file truncated while it is read: once any direct read sees it shorter, its size is read again
// and blocks prefetched past the new end are no longer served (before, they came back as the old
// bytes with PFIO_OK); reads there give 0 bytes, as pread does.
TEST(EngineRead, ShrunkFileIsSeenByTheNextReadAfterADirectReadCameBackShort) {
  test::ScratchDir dir;
  const uint64_t size = 8 * kMiB;
  std::string path = dir.MakeFile("truncated", size, kSeed);
  Context c(16 * kMiB, "pipelined");  // the whole plan fits: every block is prefetched at once
  int32_t f = c.Open(path);
  std::vector<pfio_extent> plan;
  for (uint64_t off = size; off > 0; off -= 65536) plan.push_back({f, 0, off - 65536, 4096});
  ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
  ReadAll(c, {plan[0]});  // waits for the first block: the others are in flight or landed
  ASSERT_EQ(truncate(path.c_str(), 2 * kMiB), 0);
  // A read outside the plan, past the new end: a direct read that comes back short (0 bytes, as
  // pread gives at the end of a file).
  std::vector<char> buf(4096);
  uint64_t n = 1;
  EXPECT_EQ(pfio_read(c.ctx, f, buf.data(), 3 * kMiB + 8192, 4096, &n), PFIO_OK);
  EXPECT_EQ(n, 0u);
  // The next planned block (past the new end, prefetched before the truncation): the file ends
  // at 2 MiB now, so 0 bytes, as pread gives; not the old bytes.
  n = 1;
  EXPECT_EQ(pfio_read(c.ctx, f, buf.data(), plan[1].offset, 4096, &n), PFIO_OK);
  EXPECT_EQ(n, 0u) << "a block past the new end came back with the old bytes";
  uint64_t now_size = 0;
  EXPECT_EQ(pfio_file_size(c.ctx, f, &now_size), PFIO_OK);
  EXPECT_EQ(now_size, 2 * kMiB);
  EXPECT_EQ(c.Stats().files_changed, 1u);
  // Blocks below the new end still read correctly.
  std::vector<pfio_extent> low(plan.end() - 8, plan.end());
  ReadAll(c, low);
}

// A file that shrinks after it was opened: reads that go straight to the file (a sequential run
// left to readahead, an extent larger than the whole budget) fail naming the file, never return
// OK with a buffer they did not fill.
TEST(EngineRead, DirectReadsOfAShrunkFileAreErrorsNotUnfilledBuffers) {
  test::ScratchDir dir;
  const uint64_t size = 16 * kMiB;
  for (const char *shape : {"sequential run", "extent larger than the budget"}) {
    std::string path = dir.MakeFile("shrinks", size, kSeed);
    Context c(2 * kMiB, "pipelined");
    int32_t f = c.Open(path);
    std::vector<pfio_extent> plan;
    if (std::string(shape) == "sequential run") {
      for (uint64_t o = 0; o < size; o += 64 * 1024) plan.push_back({f, 0, o, 64 * 1024});
    } else {
      plan.push_back({f, 0, 4 * kMiB, 8 * kMiB});
    }
    ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
    ASSERT_EQ(truncate(path.c_str(), 1 * kMiB), 0);
    std::vector<char> buf(8 * kMiB, 'x');
    uint64_t n = 0;
    pfio_status st = PFIO_OK;
    for (size_t i = 0; i < plan.size() && st == PFIO_OK; ++i) {
      if (plan[i].offset < 1 * kMiB) {
        st = pfio_read(c.ctx, f, buf.data(), plan[i].offset, plan[i].length, &n);
        continue;
      }
      st = pfio_read(c.ctx, f, buf.data(), plan[i].offset, plan[i].length, &n);
      EXPECT_EQ(st, PFIO_EIO) << shape << ": read at " << plan[i].offset;
    }
    EXPECT_EQ(st, PFIO_EIO) << shape;
    EXPECT_NE(std::string(pfio_last_error()).find("shorter than when opened"), std::string::npos)
        << shape << ": " << pfio_last_error();
    EXPECT_NE(std::string(pfio_last_error()).find(path), std::string::npos) << pfio_last_error();
  }
}

// Issue 53 item 1: a front end opened the file, then a new checkpoint was renamed over its path,
// then pfio was started on the file (the HDF5 driver starts its context at the first declared
// read). pfio_file_open_fd reads the file the front end opened, in both buffer kinds; the path
// is never opened.
TEST(EngineRead, OpenFromADescriptorReadsThatFileAfterARenameOverItsPath) {
  test::ScratchDir dir;
  const uint64_t size = 4 * kMiB, block = 65536;
  for (const char *buffer : {"engine", "cache"}) {
    unlink((dir.path() + "/checkpoint").c_str());  // the last round's new file
    const std::string path = dir.MakeFile("checkpoint", size, kSeed);
    const int fd = open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    const std::string next = dir.MakeFile("checkpoint.new", size, kSeed + 1);
    ASSERT_EQ(rename(next.c_str(), path.c_str()), 0);
    Settings settings = Context::Config(8 * kMiB, "pipelined", "auto");
    settings.push_back({"buffer", buffer});
    settings.erase(settings.begin() + 1);  // the first "buffer"
    Context c(settings);
    int32_t f = -1;
    ASSERT_EQ(pfio_file_open_fd(c.ctx, fd, path.c_str(), &f), PFIO_OK) << pfio_last_error();
    close(fd);  // the caller's descriptor may go: pfio holds its own
    std::vector<pfio_extent> plan = RandomBlocks(f, size, block, 32, 5);
    ASSERT_EQ(pfio_plan_append(c.ctx, plan.data(), plan.size()), PFIO_OK) << pfio_last_error();
    ReadAll(c, plan, kSeed);
  }
  Context c(8 * kMiB, "pipelined");
  int32_t f = -1;
  EXPECT_EQ(pfio_file_open_fd(c.ctx, -1, "x", &f), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("fd = -1 for x: expected an open descriptor"),
            std::string::npos)
      << pfio_last_error();
}

}  // namespace
}  // namespace pfio
