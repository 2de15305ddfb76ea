// H5FDprefetch's declared plan in the engine's page-cache kind, by its shape: a dense run in the
// order it is read, the plan's one stream, is left to the kernel's readahead; several such runs,
// runs read out of file order and single extents, however large, are advised.
#include "hdf5/h5fd_test_util.h"

namespace {

using namespace h5fdtest;

// Declares the 1 MiB strips `strips` of `w` (64 rows of 16 KiB each), in that order.
void DeclareStrips(const WideFile &w, const std::vector<hsize_t> &strips) {
  for (hsize_t s : strips) {
    hid_t space = Select(w.dset, {s * 64, 0, 64, 2048});
    ASSERT_GE(H5FD_prefetch_declare(w.dset, space), 0) << ErrorStack();
    H5Sclose(space);
  }
}

// After `n` strips were read: every one was served through pfio's plan and none was left to the
// kernel's readahead. The reads do not wait for their advice to land: its completions may still
// be on their way.
void ExpectEveryStripAdvised(const WideFile &w, size_t n) {
  EXPECT_TRUE(Eventually([&] { return Stats(w.file).engine.requests >= 1; }));
  const H5FD_prefetch_stats_t st = Stats(w.file);
  EXPECT_EQ(st.engine.bytes_passthrough, 0u) << "left to readahead";
  EXPECT_EQ(st.engine.hits, n);
}

// Declared ranges the plan reads out of file order are advised even when dense: tiles of a
// contiguous dataset declared column of tiles by column (32 x 32 tiles: 256 B of each 16 KiB
// row). Each row's four tiles are one dense 1 KiB range 15 KiB after the last, which the kernel's
// readahead never fetches (the reads jump a column of tiles at a time); the driver's former
// advice path left these to it with a budget too small to join the pass's gaps (4 MiB), so the
// second half of the first column's rows were not cached when read. The budget here (32 MiB,
// AIMD off) holds the whole column's advice as the engine counts it: whole pages and the gaps
// joined between them, 16 KiB a row (the former path counted 256 B a row).
TEST_F(H5FDPrefetchTest, DenseRangesReadOutOfFileOrderAreAdvised) {
  const WideFile w(dir_.path(), "wide-tiles.h5", 22, "32M", /*predict=*/false);
  ASSERT_TRUE(w.ok) << ErrorStack();
  const DatasetSpec &wide = w.spec;
  const hid_t dset = w.dset;
  for (hsize_t c = 0; c < 4; ++c) {  // 4 columns of 32 tiles, 4,096 rows of 256 B (1 MiB)
    for (hsize_t r = 0; r < 32; ++r) {
      hid_t space = Select(dset, {r * 32, c * 32, 32, 32});
      ASSERT_GE(H5FD_prefetch_declare(dset, space), 0) << ErrorStack();
      H5Sclose(space);
    }
  }
  ASSERT_EQ(ReadAndCheck(dset, wide, {0, 0, 32, 32}), 0u);  // the first tile starts the advice
  // The first 256 B of rows 512-1023 (the first column's last 16 tiles): cached ahead once the
  // advice has landed.
  size_t cached = 0;
  EXPECT_TRUE(Eventually([&] {
    cached = 0;
    for (hsize_t row = 512; row < 1024; ++row)
      cached += Resident(w.path, w.base + row * 16384, 256) ? 1 : 0;
    return cached >= 500;
  })) << cached
      << " of 512 rows ahead cached";
  for (hsize_t r = 1; r < 32; ++r) ASSERT_EQ(ReadAndCheck(dset, wide, {r * 32, 0, 32, 32}), 0u);
}

// A single extent is one read, with nothing for the kernel's readahead to follow: 1 MiB strips of
// a contiguous dataset (64 rows of 16 KiB) declared last to first (no two in file order) are
// advised, each one, not left to readahead (taken for dense runs, 1 MiB chunks in random order
// read at 0.39-0.56x).
TEST_F(H5FDPrefetchTest, SingleExtentsAreAdvisedHoweverLarge) {
  const WideFile w(dir_.path(), "wide-strips.h5", 23, "64M", /*predict=*/false);
  ASSERT_TRUE(w.ok) << ErrorStack();
  std::vector<hsize_t> strips(16);
  for (hsize_t i = 0; i < strips.size(); ++i) strips[i] = strips.size() - 1 - i;
  ASSERT_NO_FATAL_FAILURE(DeclareStrips(w, strips));
  ASSERT_EQ(ReadAndCheck(w.dset, w.spec, {strips[0] * 64, 0, 64, 2048}), 0u);
  const hsize_t last = strips.back();
  EXPECT_TRUE(ResidentSoon(w.path, w.base + last * 64 * 16384, 64 * 16384))
      << "the plan's last strip was not advised";
  for (size_t i = 1; i < strips.size(); ++i)
    ASSERT_EQ(ReadAndCheck(w.dset, w.spec, {strips[i] * 64, 0, 64, 2048}), 0u);
  ExpectEveryStripAdvised(w, strips.size());
}

// Two extents side by side, read one after the other, are too short a run to leave to the
// kernel's readahead, which starts only at the run's first read: 1 MiB strips declared in pairs
// in file order, the pairs last to first (2 MiB runs; 1 MiB chunks in random order whose
// neighbours read one after the other were left to readahead as such runs: 0.89-0.91x the
// advice) are advised, each one. Runs from 4 MiB go to the readahead
// (IndexPagesReadWhileDeclaringAreDroppedAheadOfADenseRun, h5fd_page_cache_test.cc).
TEST_F(H5FDPrefetchTest, RunsShorterThanFourMiBAreAdvised) {
  const WideFile w(dir_.path(), "wide-pairs.h5", 24, "64M", /*predict=*/false);
  ASSERT_TRUE(w.ok) << ErrorStack();
  std::vector<hsize_t> strips;
  for (hsize_t pair = 8; pair-- > 0;) {
    strips.push_back(2 * pair);
    strips.push_back(2 * pair + 1);
  }
  ASSERT_NO_FATAL_FAILURE(DeclareStrips(w, strips));
  for (hsize_t s : strips) ASSERT_EQ(ReadAndCheck(w.dset, w.spec, {s * 64, 0, 64, 2048}), 0u);
  ExpectEveryStripAdvised(w, strips.size());
}

// Several streams are advised, all of them, so that the device reads them side by side: two dense
// runs of 5 MiB (1 MiB strips declared in file order, 5 MiB apart), each of which alone would be
// left to the kernel's readahead. A block of 16 x 16 chunks of 512 KiB in one h5py call (16 rows
// of chunks, 8 MiB each) read at 0.95x sec2 with the rows left to readahead and 1.39x with all of
// them advised (docs/hdf5-driver.md, "How each read is served").
TEST_F(H5FDPrefetchTest, SeveralDenseRunsAreAllAdvised) {
  const WideFile w(dir_.path(), "wide-streams.h5", 25, "64M", /*predict=*/false);
  ASSERT_TRUE(w.ok) << ErrorStack();
  const std::vector<hsize_t> strips = {0, 1, 2, 3, 4, 10, 11, 12, 13, 14};
  ASSERT_NO_FATAL_FAILURE(DeclareStrips(w, strips));
  ASSERT_EQ(ReadAndCheck(w.dset, w.spec, {0, 0, 64, 2048}), 0u);
  EXPECT_TRUE(ResidentSoon(w.path, w.base + 14 * 64 * 16384, 64 * 16384))
      << "the second run's last strip was not advised";
  for (size_t i = 1; i < strips.size(); ++i)
    ASSERT_EQ(ReadAndCheck(w.dset, w.spec, {strips[i] * 64, 0, 64, 2048}), 0u);
  ExpectEveryStripAdvised(w, strips.size());
}

}  // namespace
