// CacheReader: dense runs, which extents are advised (and which are left to the kernel's
// readahead or were advised by the previous call), and reads into pieces checked byte by byte
// on a real pattern file, including short reads and a bad descriptor.
#include "collective/cache_reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <random>

#include "common/fs_type.h"
#include "test_util.h"

namespace pfio::collective {
namespace {

constexpr uint64_t kSeed = 31;
constexpr uint64_t kMiB = 1 << 20;

// A pattern file of `size` bytes in a scratch directory, open for reading (buffered) as long as
// this lives.
struct PatternFile {
  explicit PatternFile(uint64_t size)
      : fd(open(dir.MakeFile("f", size, kSeed).c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~PatternFile() {
    if (fd >= 0) close(fd);
  }
  test::ScratchDir dir;
  const int fd;
};

TEST(CacheReaderTest, WithoutKeepsThePartsOutsideTheOtherRanges) {
  const FileRanges ranges = {{0, 100}, {200, 100}, {400, 50}};
  // Cuts the first range twice, covers the second whole, and touches none of the third.
  const FileRanges minus = {{10, 20}, {50, 10}, {190, 120}, {450, 10}};
  EXPECT_EQ(CacheReader::Without(ranges, minus),
            (FileRanges{{0, 10}, {30, 20}, {60, 40}, {400, 50}}));
  EXPECT_EQ(CacheReader::Without(ranges, {}), ranges);
  EXPECT_TRUE(CacheReader::Without({}, minus).empty());
}

TEST(CacheReaderTest, DenseRunsJoinCloseRangesAndDropShortRuns) {
  const FileRanges runs = CacheReader::DenseRuns({
      {10 * kMiB, kMiB / 2},  // joined with the next: gap one page
      {10 * kMiB + kMiB / 2 + 4096, kMiB / 2},
      {0, kMiB - 1},                // one byte short of a run
      {3 * kMiB, kMiB},             // a run alone
      {3 * kMiB + kMiB / 4, kMiB},  // overlapping it
      {6 * kMiB, kMiB / 2},         // gap one page + 1: not joined
      {6 * kMiB + kMiB / 2 + 4096 + 1, kMiB / 2},
  });
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0], (FileRange{3 * kMiB, kMiB + kMiB / 4}));
  EXPECT_EQ(runs[1], (FileRange{10 * kMiB, kMiB + 4096}));
}

// A column of tiles read by every rank together (32 KiB of every 88 KiB row) is no dense run:
// no read meets the kernel's readahead marks there, so it must be advised (it was left to
// readahead and read 32 KiB at a time: tiles at 0.06-0.3x stock ROMIO on the 2 ms test bed).
TEST(CacheReaderTest, AColumnOfTilesIsNoDenseRun) {
  FileRanges column;
  for (uint64_t row = 0; row < 1024; ++row) column.push_back({row * 90112, 32768});
  EXPECT_TRUE(CacheReader::DenseRuns(column).empty());
  // The same rows read whole are one run.
  FileRanges rows;
  for (uint64_t row = 0; row < 1024; ++row) rows.push_back({row * 90112, 90112});
  EXPECT_EQ(CacheReader::DenseRuns(rows), (FileRanges{{0, 1024 * 90112}}));
}

// A file on this machine's disk is local storage: advice joins gaps up to kJoinGap; remote
// storage (FUSE, NFS, Lustre, ...) gets kRemoteJoinGap (the test bed exercises that path).
TEST(CacheReaderTest, JoinsLocalGapsUpToKJoinGap) {
  PatternFile file(kMiB);
  ASSERT_GE(file.fd, 0);
  EXPECT_FALSE(pfio::OnRemoteStorage(file.fd));
  EXPECT_EQ(CacheReader(file.fd).join_gap(), CacheReader::kJoinGap);
  EXPECT_GT(CacheReader::kRemoteJoinGap, CacheReader::kJoinGap);
}

TEST(CacheReaderTest, AdvisesSparseExtentsOnceAndLeavesDenseRunsToReadahead) {
  PatternFile file(64 * kMiB);
  ASSERT_GE(file.fd, 0);
  CacheReader reader(file.fd);
  const int32_t f = 0;
  // Three scattered 8 KiB extents, two 8 KiB extents 16 KiB apart (joined into one advice),
  // and a 2 MiB extent inside a dense run.
  std::vector<pfio_extent> plan = {{f, 0, 40 * kMiB, 8192},
                                   {f, 0, 20 * kMiB, 8192},
                                   {f, 0, 30 * kMiB, 8192},
                                   {f, 0, 30 * kMiB + 24576, 8192},
                                   {f, 0, 2 * kMiB, 2 * kMiB}};
  const FileRanges dense = {{kMiB, 4 * kMiB}};
  EXPECT_EQ(reader.Advise(plan, dense), 8192u + 8192u + (24576u + 8192u));
  EXPECT_EQ(reader.advise_calls(), 3u);
  // The next call: the same extents again plus a new one. Only the new one is advised.
  plan.push_back({f, 0, 50 * kMiB, 4096});
  EXPECT_EQ(reader.Advise(plan, dense), 4096u);
  EXPECT_EQ(reader.advise_calls(), 4u);
  // Without the dense run, the 2 MiB extent is advised too.
  EXPECT_EQ(reader.Advise(plan, {}), 2 * kMiB);
}

// Extents are advised in file order: pieces of several calls that lie side by side join into one
// range whatever order they are read in, and a range that grows past what the previous call
// advised is advised only for its new part.
TEST(CacheReaderTest, JoinsExtentsInFileOrderAndAdvisesOnlyWhatIsNew) {
  PatternFile file(64 * kMiB);
  ASSERT_GE(file.fd, 0);
  CacheReader reader(file.fd);
  const int32_t f = 0;
  // Read order: a, a far extent, then b 16 KiB after a: a and b are one range (the gap with
  // them), the far one another.
  std::vector<pfio_extent> plan = {
      {f, 0, kMiB, 8192}, {f, 0, 20 * kMiB, 8192}, {f, 0, kMiB + 16384, 8192}};
  EXPECT_EQ(reader.Advise(plan, {}), 24576u + 8192u);
  EXPECT_EQ(reader.advise_calls(), 2u);
  // The next call reaches two more pieces along: [1 MiB, 1 MiB + 40 KiB) as one range, of which
  // the last 16 KiB are new; the far extent again: nothing new.
  plan = {{f, 0, kMiB + 16384, 8192}, {f, 0, 20 * kMiB, 8192}, {f, 0, kMiB + 32768, 8192}};
  EXPECT_EQ(reader.Advise(plan, {}), 16384u);
  EXPECT_EQ(reader.advise_calls(), 3u);
}

TEST(CacheReaderTest, ReadsPiecesInAnyOrderWithMoreThanIovMaxAdjacentOnes) {
  PatternFile file(8 * kMiB + 123);
  ASSERT_GE(file.fd, 0);
  CacheReader reader(file.fd);
  // 3 x IOV_MAX adjacent 7-byte pieces from offset 5, then scattered odd ones, an empty one,
  // one ending at the file's last byte; shuffled.
  std::vector<pfio_read_piece> pieces;
  std::vector<std::vector<uint8_t>> bufs;
  auto add = [&](uint64_t offset, uint64_t length) {
    bufs.emplace_back(length + 1, 0xEE);
    pieces.push_back({bufs.back().data(), offset, length});
  };
  bufs.reserve(4 * IOV_MAX);
  for (uint64_t i = 0; i < 3 * IOV_MAX; ++i) add(5 + 7 * i, 7);
  add(3 * kMiB + 1, 100000);
  add(kMiB, 0);
  add(7 * kMiB, 4096);
  add(8 * kMiB + 100, 23);
  std::shuffle(pieces.begin(), pieces.end(), std::mt19937_64(9));
  ASSERT_EQ(reader.Read(pieces), "");
  for (const pfio_read_piece &p : pieces) {
    ASSERT_TRUE(test::HoldsPattern(static_cast<uint8_t *>(p.buf), p.offset, p.length, kSeed))
        << "offset " << p.offset;
    ASSERT_EQ(static_cast<uint8_t *>(p.buf)[p.length], 0xEE) << "written past the piece";
  }
}

TEST(CacheReaderTest, PiecesContiguousInFileAndMemoryLandWhereTheyBelong) {
  // A rank's contiguous request cut into rows by its view: 4 x IOV_MAX rows of 1600 bytes, one
  // after the other in the file and in one buffer, except that every 300th row goes to a
  // second buffer (contiguous in the file, not in memory), and the last row is shorter.
  PatternFile file(8 * kMiB);
  ASSERT_GE(file.fd, 0);
  CacheReader reader(file.fd);
  const uint64_t rows = 4 * IOV_MAX, row = 1600, start = 4096 + 3;
  std::vector<uint8_t> main_buf(rows * row + 1, 0xEE), side_buf(rows / 300 * row + row + 1, 0xEE);
  std::vector<pfio_read_piece> pieces;
  uint64_t in_main = 0, in_side = 0;
  for (uint64_t i = 0; i < rows; ++i) {
    const uint64_t length = i + 1 == rows ? 999 : row;
    if (i % 300 == 299) {
      pieces.push_back({side_buf.data() + in_side, start + i * row, length});
      in_side += length;
    } else {
      pieces.push_back({main_buf.data() + in_main, start + i * row, length});
      in_main += length;
    }
  }
  ASSERT_EQ(reader.Read(pieces), "");
  for (const pfio_read_piece &p : pieces)
    ASSERT_TRUE(test::HoldsPattern(static_cast<uint8_t *>(p.buf), p.offset, p.length, kSeed))
        << "offset " << p.offset;
  EXPECT_EQ(main_buf[in_main], 0xEE) << "written past the last row in the main buffer";
  EXPECT_EQ(side_buf[in_side], 0xEE) << "written past the last row in the side buffer";
}

TEST(CacheReaderTest, APiecePastTheEndIsAShortReadNamingTheOffset) {
  PatternFile file(100000);
  ASSERT_GE(file.fd, 0);
  CacheReader reader(file.fd);
  std::vector<uint8_t> buf(8192);
  const std::string why = reader.Read({{buf.data(), 96000, 8192}});
  EXPECT_NE(why.find("short read"), std::string::npos) << why;
  EXPECT_NE(why.find("100000"), std::string::npos) << "names where the file ends: " << why;
  EXPECT_TRUE(test::HoldsPattern(buf.data(), 96000, 4000, kSeed)) << "the bytes before the end";
}

TEST(CacheReaderTest, AFailedReadNamesOffsetAndErrno) {
  CacheReader reader(-1);
  std::vector<uint8_t> buf(16);
  const std::string why = reader.Read({{buf.data(), 4096, 16}});
  EXPECT_NE(why.find("offset 4096"), std::string::npos) << why;
  EXPECT_NE(why.find("errno " + std::to_string(EBADF)), std::string::npos) << why;
}

}  // namespace
}  // namespace pfio::collective
