// H5FD_prefetch_auto_read, the per-call plans the preload gives each H5Dread, called directly with
// HDF5's own H5Dread: so that the sanitizer builds (which cannot preload into Debian's programs)
// run it too. Built twice: against the Open MPI build of HDF5 and against the serial build, which
// is thread-safe, where two threads also read through it at once.
#include <thread>

#include "hdf5/h5fd_test_util.h"

namespace {

using namespace h5fdtest;

// H5Dread through H5FD_prefetch_auto_read, as the preload makes it.
herr_t AutoRead(hid_t dset, hid_t mtype, hid_t mspace, hid_t fspace, hid_t dxpl, void *buf) {
  return H5FD_prefetch_auto_read(dset, mtype, mspace, fspace, dxpl, buf, Hdf5Read);
}

size_t AutoReadAndCheck(hid_t dset, const DatasetSpec &d, const Slab &s) {
  return ReadAndCheck(dset, d, s, AutoRead);
}

const DatasetSpec &Named(const char *name) {
  for (const DatasetSpec &d : kDatasets)
    if (std::strcmp(d.name, name) == 0) return d;
  return kDatasets[0];
}

using AutoReadTest = H5FDPrefetchTest;

TEST_F(AutoReadTest, EachColumnOfChunksIsItsOwnPlanAndCallsMovedByOneShiftArePlannedAhead) {
  // 128 KiB chunks, a column of 4 per call (512 KiB): planned on a local file system. After the
  // third column the calls move by one shift: the fourth is planned when the third returns.
  const DatasetSpec &d = Named("c128k");
  hid_t fapl = PrefetchFapl(true, H5FD_PREFETCH_ENGINE_NEVER);
  hid_t file = Open(fapl);
  hid_t dset = H5Dopen2(file, d.name, H5P_DEFAULT);
  ASSERT_GE(dset, 0);
  for (const Slab &s : Pattern("columns", d)) EXPECT_EQ(AutoReadAndCheck(dset, d, s), 0u);
  H5FD_prefetch_stats_t st = Stats(file);
  const uint64_t columns = d.cols / d.chunk_cols, per_column = d.rows / d.chunk_rows;
  EXPECT_EQ(st.call_plans, columns);
  EXPECT_EQ(st.calls_ahead_used, columns - 3);
  EXPECT_EQ(st.calls_unplanned, 0u);
  EXPECT_EQ(st.raw_reads, columns * per_column);
  EXPECT_EQ(st.unplanned_reads, 0u);
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}

// A program that links the driver ahead of HDF5 (this test does) and calls H5Dread calls the
// driver's: each call of a column of chunks is its own plan, as under the preload, and HDF5's
// error stack is as HDF5 leaves it. HDF5's own H5Dread (a program linking HDF5 first) plans none.
TEST_F(AutoReadTest, AProgramLinkedWithTheDriverHasEachH5DreadPlanned) {
  const DatasetSpec &d = Named("c128k");
  hid_t fapl = PrefetchFapl(true, H5FD_PREFETCH_ENGINE_NEVER);
  hid_t file = Open(fapl);
  hid_t dset = H5Dopen2(file, d.name, H5P_DEFAULT);
  ASSERT_GE(dset, 0);
  const std::vector<Slab> columns = Pattern("columns", d);
  for (const Slab &s : columns) EXPECT_EQ(ReadAndCheck(dset, d, s, H5Dread), 0u);
  H5FD_prefetch_stats_t st = Stats(file);
  EXPECT_EQ(st.call_plans, columns.size());
  EXPECT_EQ(st.unplanned_reads, 0u);
  for (const Slab &s : columns) EXPECT_EQ(ReadAndCheck(dset, d, s, Hdf5Read), 0u);
  EXPECT_EQ(Stats(file).call_plans, columns.size()) << "HDF5's own H5Dread was planned";
  Slab s = columns[0];
  hid_t fspace = Select(dset, s);
  hsize_t small[2] = {1, 1};  // a memory space of the wrong size: HDF5 refuses the read
  hid_t mspace = H5Screate_simple(2, small, nullptr);
  std::vector<uint64_t> buf(1);
  EXPECT_LT(Quietly([&] {
              return H5Dread(dset, H5T_NATIVE_UINT64, mspace, fspace, H5P_DEFAULT, buf.data());
            }),
            0);
  const std::string ours = ErrorStack();
  EXPECT_LT(Quietly([&] {
              return Hdf5Read(dset, H5T_NATIVE_UINT64, mspace, fspace, H5P_DEFAULT, buf.data());
            }),
            0);
  EXPECT_EQ(ours, ErrorStack());
  H5Sclose(mspace);
  H5Sclose(fspace);
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}

// A pass over every column, each call its own plan: the column sweep still follows the calls'
// reads (the plans' pages are the page cache's too) and advises the rows ahead of them, which a
// call's plan, ending with the call, does not.
TEST_F(AutoReadTest, PlannedColumnsStillMakeAColumnSweep) {
  const DatasetSpec &d = Named("c128k");  // its rows of chunks 512 KiB apart: a sweep's columns
  hid_t fapl = PrefetchFapl(true, H5FD_PREFETCH_ENGINE_NEVER);
  hid_t file = Open(fapl);
  hid_t dset = H5Dopen2(file, d.name, H5P_DEFAULT);
  ASSERT_GE(dset, 0);
  const std::vector<Slab> columns = Pattern("columns", d);
  for (const Slab &s : columns) EXPECT_EQ(AutoReadAndCheck(dset, d, s), 0u);
  H5FD_prefetch_stats_t st = Stats(file);
  EXPECT_EQ(st.call_plans, columns.size());
  EXPECT_EQ(st.sweeps, 1u);
  EXPECT_GT(st.sweep_advised, 0u);
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}

// Where pfio holds the file in its reorder buffer (storage behind FUSE or a network), a call is
// planned when its pieces average 64 KiB or more and are not one stream: columns of 128 KiB
// chunks are; columns of 8 KiB chunks, a contiguous dataset's narrow strips and a row of chunks
// (one stream, the kernel's readahead's) go to HDF5 unplanned, every value right either way.
TEST_F(AutoReadTest, OnTheReorderBufferSmallPiecesAndOneStreamAreLeftToThePageCache) {
  hid_t fapl = PrefetchFapl(true, H5FD_PREFETCH_ENGINE_NEVER, "engine");
  hid_t file = Open(fapl);
  struct Case {
    const char *dataset, *pattern;
    bool planned;
  };
  for (const Case &c : {Case{"c128k", "columns", true}, Case{"c8k", "columns", false},
                        Case{"contig", "columns", false}, Case{"c128k", "rows", false}}) {
    const DatasetSpec &d = Named(c.dataset);
    hid_t dset = H5Dopen2(file, d.name, H5P_DEFAULT);
    ASSERT_GE(dset, 0);
    const H5FD_prefetch_stats_t before = Stats(file);
    const std::vector<Slab> slabs = Pattern(c.pattern, d);
    for (const Slab &s : slabs) EXPECT_EQ(AutoReadAndCheck(dset, d, s), 0u);
    const H5FD_prefetch_stats_t after = Stats(file);
    EXPECT_EQ(after.call_plans - before.call_plans, c.planned ? slabs.size() : 0u)
        << c.dataset << " " << c.pattern;
    EXPECT_EQ(after.calls_unplanned - before.calls_unplanned, c.planned ? 0u : slabs.size())
        << c.dataset << " " << c.pattern;
    H5Dclose(dset);
  }
  H5Fclose(file);
  H5Pclose(fapl);
}

// The tiles of 128 x 128 values of a WideFile in a random order of `seed`, read through the
// driver's H5Dread (every value checked); the span one tile's rows cover in the file.
std::vector<Slab> ReadRandomTiles(const WideFile &w, uint64_t seed, uint64_t *span) {
  std::vector<Slab> tiles;
  for (hsize_t r = 0; r < w.spec.rows; r += 128)
    for (hsize_t c = 0; c < w.spec.cols; c += 128) tiles.push_back({r, c, 128, 128});
  std::mt19937_64 rng(seed);
  std::shuffle(tiles.begin(), tiles.end(), rng);
  *span = (127 * w.spec.cols + 128) * sizeof(uint64_t);
  for (const Slab &s : tiles) EXPECT_EQ(ReadAndCheck(w.dset, w.spec, s, AutoRead), 0u);
  return tiles;
}

// Behind FUSE or a network (the reorder buffer) a contiguous dataset's tiles of 128 x 128 values
// are 128 runs of 1 KiB, too small to plan one by one: each call's span (2 MiB, whole rows) is
// advised at its start, as HDF5's sieve would read it under sec2, and the stride prediction
// advises nothing past a tile into rows the next (random) tile does not read. Every value right.
TEST_F(AutoReadTest, OnTheReorderBufferContiguousTilesAreAdvisedAsTheirSpanAndNoFurther) {
  const WideFile w(dir_.path(), "wide-tiles.h5", 26, "128M", /*predict=*/true, "engine");
  ASSERT_TRUE(w.ok) << ErrorStack();
  uint64_t span = 0;
  const std::vector<Slab> tiles = ReadRandomTiles(w, 26, &span);
  const H5FD_prefetch_stats_t st = Stats(w.file);
  EXPECT_EQ(st.call_plans, 0u);
  EXPECT_EQ(st.calls_unplanned, tiles.size());
  // The first call starts the file's pfio context (through its prediction); the rest are advised.
  EXPECT_EQ(st.call_spans, tiles.size() - 1);
  EXPECT_EQ(st.call_span_bytes, st.call_spans * span);
  // The first tile's prediction and the tiles that go on below the one before: within a quarter
  // more than the spans (a prediction running past every tile advised about twice them).
  EXPECT_LE(st.engine.advised_now_bytes, st.call_span_bytes + st.call_span_bytes / 4);
}

// In the page-cache kind (the driver's own plans, buffer = auto) the same tiles are advised as
// their span too once the file's context runs: the first call is planned (it starts the context),
// each later one advised whole at its start, with no plan entry per 1 KiB run. Every value right.
TEST_F(AutoReadTest, InThePageCacheKindContiguousTilesAreAdvisedAsTheirSpan) {
  const WideFile w(dir_.path(), "wide-tiles-cache.h5", 27, "128M", /*predict=*/true);
  ASSERT_TRUE(w.ok) << ErrorStack();
  uint64_t span = 0;
  const std::vector<Slab> tiles = ReadRandomTiles(w, 27, &span);
  const H5FD_prefetch_stats_t st = Stats(w.file);
  EXPECT_EQ(st.call_plans, 1u);
  EXPECT_EQ(st.calls_unplanned, tiles.size() - 1);
  EXPECT_EQ(st.call_spans, tiles.size() - 1);
  EXPECT_EQ(st.call_span_bytes, st.call_spans * span);
}

// Random hyperslabs of 16 x 16 values of a contiguous dataset: runs of 128 bytes 16 KiB apart,
// a span (240 KiB) too small to advise whole. Each call is read as sec2 reads it, through HDF5's
// sieve (a 64 KiB read serves 4 rows), with nothing predicted inside it: the prediction advised
// pieces of such spans and dropped half of each past the call's end. Every value right.
TEST_F(AutoReadTest, SmallHyperslabsOfAContiguousDatasetAreReadThroughHdf5sSieve) {
  const WideFile w(dir_.path(), "wide-hyperslabs.h5", 28, "128M", /*predict=*/true);
  ASSERT_TRUE(w.ok) << ErrorStack();
  std::mt19937_64 rng(28);
  const size_t slabs = 100;
  for (size_t i = 0; i < slabs; ++i) {
    const Slab s = {rng() % (w.spec.rows - 15), rng() % (w.spec.cols - 15), 16, 16};
    EXPECT_EQ(ReadAndCheck(w.dset, w.spec, s, AutoRead), 0u);
  }
  const H5FD_prefetch_stats_t st = Stats(w.file);
  EXPECT_EQ(st.calls_unplanned, slabs);
  EXPECT_EQ(st.predicted_extents, 0u);
  EXPECT_EQ(st.sieved_reads, st.raw_reads);
  EXPECT_LE(st.raw_reads, slabs * 5) << "4 or 5 sieve reads a hyperslab, not 16 rows";
  EXPECT_EQ(st.prediction_offs, 0u) << "no prediction to switch off";
}

// A band read down a contiguous dataset 4 rows per call: each call's span is as small as a small
// hyperslab's, but the reads go on from one call into the next. The first calls are sieved
// (nothing ran into them); once the sieve's reads make a run that goes on into the next call,
// the calls are predicted across, as before there was a sieve for small calls. Every value right.
TEST_F(AutoReadTest, ABandReadAFewRowsPerCallIsPredictedAcrossTheCalls) {
  const WideFile w(dir_.path(), "wide-band.h5", 29, "128M", /*predict=*/true);
  ASSERT_TRUE(w.ok) << ErrorStack();
  for (hsize_t r = 0; r + 4 <= w.spec.rows; r += 4)
    EXPECT_EQ(ReadAndCheck(w.dset, w.spec, {r, 100, 4, 16}, AutoRead), 0u);
  const H5FD_prefetch_stats_t st = Stats(w.file);
  EXPECT_LE(st.sieved_reads, 8u) << "only the first calls are sieved";
  EXPECT_GT(st.predicted_extents, w.spec.rows / 2);
  EXPECT_GT(st.prediction_hit_bytes, 4 * st.prediction_dropped_bytes);
}

// Rows of chunks in the order HDF5 allocated them are one stream in the file, left to the
// kernel's readahead: mapping such a call only searched the chunk index. After a mapped call of
// rows the dataset's next calls of that shape pass on unmapped, 1, 2, 4 ... of them after each
// mapped one (of 16 rows: calls 1, 3, 6 and 11 mapped, 12 not); columns, another shape and not one
// stream, are mapped and planned each. Every value right.
TEST_F(AutoReadTest, CallsOfAShapeThatWasOneStreamAreNotMappedAgainAndAgain) {
  const DatasetSpec &d = Named("c8k");
  hid_t fapl = PrefetchFapl(true, H5FD_PREFETCH_ENGINE_NEVER);
  hid_t file = Open(fapl);
  hid_t dset = H5Dopen2(file, d.name, H5P_DEFAULT);
  ASSERT_GE(dset, 0);
  const std::vector<Slab> rows = Pattern("rows", d), columns = Pattern("columns", d);
  ASSERT_EQ(rows.size(), 16u);
  for (const Slab &s : rows) EXPECT_EQ(AutoReadAndCheck(dset, d, s), 0u);
  H5FD_prefetch_stats_t st = Stats(file);
  EXPECT_EQ(st.call_plans, 0u);
  EXPECT_EQ(st.calls_unplanned, rows.size());
  EXPECT_EQ(st.calls_unmapped, 12u);
  for (const Slab &s : columns) EXPECT_EQ(AutoReadAndCheck(dset, d, s), 0u);
  st = Stats(file);
  EXPECT_EQ(st.call_plans, columns.size());
  EXPECT_EQ(st.calls_unmapped, 12u);
  for (const Slab &s : rows) EXPECT_EQ(AutoReadAndCheck(dset, d, s), 0u);  // mapped afresh
  EXPECT_EQ(Stats(file).calls_unmapped, 24u);
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}

// Mapping a call searches the chunk index for the call's chunks; of an internal node the search
// reads, only the children whose keys can name one of those chunks are advised: a row of chunks
// (16 of the 256) is named in one or two leaves, a column (a chunk of every row) in all of them.
// A program's declaration still advises every child (its searches go on through the index).
// Advising every child for every call put the index of later calls in the page cache ahead of the
// kernel's readahead of rows (docs/hdf5-driver.md, "Per-call plans").
TEST_F(AutoReadTest, ACallsPlanAdvisesOnlyTheIndexNodesThatCanNameItsChunks) {
  const DatasetSpec &d = Named("c8k");
  const Slab row = Pattern("rows", d)[5], column = Pattern("columns", d)[5];
  hid_t fapl = PrefetchFapl(true, H5FD_PREFETCH_ENGINE_NEVER);
  // Index nodes advised by one read (or declaration) on a file object of its own: HDF5 keeps
  // the nodes it has read in its metadata cache, per file object.
  auto advised = [&](const Slab &s, bool declare) -> uint64_t {
    hid_t file = Open(fapl);
    hid_t dset = H5Dopen2(file, d.name, H5P_DEFAULT);
    EXPECT_GE(dset, 0);
    if (declare) {
      hid_t space = Select(dset, s);
      EXPECT_GE(H5FD_prefetch_declare(dset, space), 0) << ErrorStack();
      H5Sclose(space);
    }
    EXPECT_EQ(AutoReadAndCheck(dset, d, s), 0u);
    const H5FD_prefetch_stats_t st = Stats(file);
    EXPECT_GT(st.index_reads, 0u) << "nothing searched the index";
    H5Dclose(dset);
    H5Fclose(file);
    return st.index_advised;
  };
  const uint64_t row_declared = advised(row, true), row_call = advised(row, false),
                 column_call = advised(column, false);
  H5Pclose(fapl);
  EXPECT_GE(row_declared, 4u) << "a declaration advised less than every child of the root";
  EXPECT_GE(row_call, 1u) << "the row's leaf was not advised";
  EXPECT_LE(row_call, 2u) << "a row's call advised leaves of other rows";
  EXPECT_EQ(column_call, row_declared) << "a column's call needs every leaf";
}

TEST_F(AutoReadTest, CallsOfOneChunkAndOtherDriversFilesArePassedOn) {
  const DatasetSpec &d = Named("c128k");
  hid_t fapl = PrefetchFapl();
  hid_t file = Open(fapl);
  hid_t dset = H5Dopen2(file, d.name, H5P_DEFAULT);
  for (const Slab &s : Pattern("tiles", d)) EXPECT_EQ(AutoReadAndCheck(dset, d, s), 0u);
  H5FD_prefetch_stats_t st = Stats(file);
  EXPECT_EQ(st.call_plans, 0u);
  EXPECT_EQ(st.calls_unplanned, Pattern("tiles", d).size());
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
  // A file of HDF5's own sec2 driver: read as HDF5 reads it, twice (the second time the dataset
  // is known to be foreign).
  hid_t plain = Open(H5P_DEFAULT);
  dset = H5Dopen2(plain, d.name, H5P_DEFAULT);
  for (int i = 0; i < 2; ++i)
    for (const Slab &s : Pattern("columns", d)) EXPECT_EQ(AutoReadAndCheck(dset, d, s), 0u);
  H5Dclose(dset);
  H5Fclose(plain);
}

TEST_F(AutoReadTest, AFailedReadKeepsHdf5sErrorAndTheFileReadsOn) {
  const DatasetSpec &d = Named("c128k");
  hid_t fapl = PrefetchFapl();
  hid_t file = Open(fapl);
  hid_t dset = H5Dopen2(file, d.name, H5P_DEFAULT);
  Slab s = Pattern("columns", d)[0];
  hid_t fspace = Select(dset, s);
  hsize_t small[2] = {1, 1};  // a memory space of the wrong size: HDF5 refuses the read
  hid_t mspace = H5Screate_simple(2, small, nullptr);
  std::vector<uint64_t> buf(1);
  herr_t rc = Quietly(
      [&] { return AutoRead(dset, H5T_NATIVE_UINT64, mspace, fspace, H5P_DEFAULT, buf.data()); });
  EXPECT_LT(rc, 0);
  const std::string ours = ErrorStack();
  rc = Quietly(
      [&] { return Hdf5Read(dset, H5T_NATIVE_UINT64, mspace, fspace, H5P_DEFAULT, buf.data()); });
  EXPECT_LT(rc, 0);
  const std::string hdf5s = ErrorStack();  // HDF5's own error for the same read
  EXPECT_FALSE(hdf5s.empty());
  EXPECT_EQ(ours, hdf5s);
  H5Sclose(mspace);
  H5Sclose(fspace);
  EXPECT_EQ(AutoReadAndCheck(dset, d, s), 0u);  // the file reads on as before
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}

#ifdef H5_HAVE_THREADSAFE
TEST_F(AutoReadTest, TwoThreadsReadingAtOnceGetEveryValue) {
  // One thread forwards over the columns, one backwards, several passes: planned calls, calls
  // passed on because the other thread is planning, and raw reads of one thread while the other
  // plans, all on one file.
  const DatasetSpec &d = Named("c8k");
  hid_t fapl = PrefetchFapl();
  hid_t file = Open(fapl);
  hid_t dset = H5Dopen2(file, d.name, H5P_DEFAULT);
  std::vector<Slab> columns = Pattern("columns", d);
  size_t bad[2] = {0, 0};
  std::thread readers[2];
  for (int t = 0; t < 2; ++t)
    readers[t] = std::thread([&, t] {
      for (int pass = 0; pass < 4; ++pass)
        for (size_t k = 0; k < columns.size(); ++k)
          bad[t] += AutoReadAndCheck(dset, d, columns[t ? columns.size() - 1 - k : k]);
    });
  for (std::thread &r : readers) r.join();
  EXPECT_EQ(bad[0] + bad[1], 0u);
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}
#endif

}  // namespace
