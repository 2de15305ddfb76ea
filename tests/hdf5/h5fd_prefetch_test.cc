// H5FDprefetch on real HDF5 files: every pattern x layout x method read value by value against
// the file's self-verifying values (element i of a dataset holds seed << 40 | i), declared plans,
// prediction, writes after prefetching. What it refuses: h5fd_refusals_test.cc.
#include "hdf5/h5fd_test_util.h"

namespace {

using namespace h5fdtest;

// Every pattern x dataset x method, value by value.
TEST_F(H5FDPrefetchTest, EveryPatternLayoutAndMethodReadsTheRightValues) {
  for (std::string method :
       {"sec2", "prefetch", "prefetch-declared", "page-cache", "page-cache-declared"}) {
    for (const DatasetSpec &d : kDatasets) {
      for (const char *pattern : {"tiles", "columns", "rows", "random-points"}) {
        SCOPED_TRACE(method + " " + d.name + " " + pattern);
        const bool engine = method.rfind("prefetch", 0) == 0;
        hid_t fapl = method == "sec2"
                         ? H5Pcreate(H5P_FILE_ACCESS)
                         : PrefetchFapl(true, engine ? 64 << 10 : H5FD_PREFETCH_ENGINE_NEVER);
        if (method == "sec2") H5Pset_fapl_sec2(fapl);
        hid_t file = Open(fapl);
        hid_t dset = H5Dopen2(file, d.name, H5P_DEFAULT);
        ASSERT_GE(dset, 0);
        std::vector<Slab> slabs = Pattern(pattern, d);
        const bool declared = method.find("declared") != std::string::npos;
        if (declared) {
          for (const Slab &s : slabs) {
            hid_t space = Select(dset, s);
            ASSERT_GE(H5FD_prefetch_declare(dset, space), 0) << ErrorStack();
            H5Sclose(space);
          }
        }
        size_t bad = 0;
        for (const Slab &s : slabs) bad += ReadAndCheck(dset, d, s);
        EXPECT_EQ(bad, 0u);
        if (declared) {
          H5FD_prefetch_stats_t st = Stats(dset);
          if (!engine) {
            EXPECT_EQ(st.advised_reads, st.engine.reads) << "every one read by the driver";
          }
          EXPECT_GT(st.declared_extents, 0u);
          // HDF5's chunk cache keeps chunks read once, so a declared chunk that a later
          // selection touches again is never read twice: no read strays off the plan.
          EXPECT_EQ(st.engine.misses + st.unplanned_reads, 0u) << "raw reads " << st.raw_reads;
          EXPECT_EQ(Planned(st), st.raw_reads);
        }
        H5Dclose(dset);
        H5Fclose(file);
        H5Pclose(fapl);
      }
    }
  }
}

// Two datasets declared and read interleaved: every read comes from the plan.
TEST_F(H5FDPrefetchTest, DeclaredPlansOfSeveralDatasetsInterleave) {
  hid_t fapl = PrefetchFapl();
  hid_t file = Open(fapl);
  hid_t a = H5Dopen2(file, "c8k", H5P_DEFAULT), b = H5Dopen2(file, "edge", H5P_DEFAULT);
  std::vector<Slab> sa = Pattern("tiles", kDatasets[1]), sb = Pattern("tiles", kDatasets[4]);
  size_t n = std::min(sa.size(), sb.size());
  for (size_t i = 0; i < n; ++i) {
    hid_t s1 = Select(a, sa[i]), s2 = Select(b, sb[i]);
    ASSERT_GE(H5FD_prefetch_declare(a, s1), 0) << ErrorStack();
    ASSERT_GE(H5FD_prefetch_declare(b, s2), 0) << ErrorStack();
    H5Sclose(s1);
    H5Sclose(s2);
  }
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    bad += ReadAndCheck(a, kDatasets[1], sa[i]);
    bad += ReadAndCheck(b, kDatasets[4], sb[i]);
  }
  EXPECT_EQ(bad, 0u);
  H5FD_prefetch_stats_t st = Stats(file);
  EXPECT_EQ(st.declared_extents, 2 * n);
  EXPECT_EQ(st.engine.misses + st.unplanned_reads, 0u);
  EXPECT_EQ(Planned(st), st.raw_reads);
  EXPECT_GT(st.advised_reads, 0u) << "8 KiB chunks go through the page cache";
  H5Dclose(a);
  H5Dclose(b);
  H5Fclose(file);
  H5Pclose(fapl);
}

// Compressed chunks are declared by their stored size: the plan holds exactly the bytes stored.
TEST_F(H5FDPrefetchTest, CompressedChunksAreDeclaredByStoredSize) {
  hid_t fapl = PrefetchFapl();
  hid_t file = Open(fapl);
  hid_t dset = H5Dopen2(file, "deflate", H5P_DEFAULT);
  hsize_t nchunks = 0, stored_total = 0;
  hid_t all = H5Dget_space(dset);
  ASSERT_GE(H5Dget_num_chunks(dset, all, &nchunks), 0);
  for (hsize_t i = 0; i < nchunks; ++i) {
    hsize_t offset[2], size = 0;
    unsigned mask = 0;
    haddr_t addr = 0;
    ASSERT_GE(H5Dget_chunk_info(dset, all, i, offset, &mask, &addr, &size), 0);
    stored_total += size;
  }
  H5Sclose(all);
  ASSERT_GE(H5FD_prefetch_declare(dset, H5S_ALL), 0) << ErrorStack();
  H5FD_prefetch_stats_t st = Stats(file);
  EXPECT_EQ(st.declared_bytes, stored_total);
  EXPECT_LT(stored_total, kRows * kCols * sizeof(uint64_t) / 2) << "the values should compress";
  EXPECT_EQ(ReadAndCheck(dset, kDatasets[5], {0, 0, kRows, kCols}), 0u);
  st = Stats(file);
  EXPECT_EQ(st.engine.misses + st.unplanned_reads, 0u);
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}

// Chunks never written hold the fill value and are skipped by declare (and counted).
TEST_F(H5FDPrefetchTest, UnallocatedChunksAreSkippedAndReadAsFillValues) {
  {
    hid_t file = H5Fopen(path_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    hsize_t dims[2] = {128, 128}, chunk[2] = {32, 32};
    hid_t space = H5Screate_simple(2, dims, nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    uint64_t fill = 7;
    H5Pset_fill_value(dcpl, H5T_NATIVE_UINT64, &fill);
    hid_t dset =
        H5Dcreate2(file, "sparse", H5T_NATIVE_UINT64, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    // Only the diagonal chunks are written.
    for (hsize_t k = 0; k < 4; ++k) {
      std::vector<uint64_t> data(32 * 32);
      for (hsize_t r = 0; r < 32; ++r)
        for (hsize_t c = 0; c < 32; ++c) data[r * 32 + c] = Value(9, 32 * k + r, 32 * k + c, 128);
      hsize_t start[2] = {32 * k, 32 * k};
      hid_t fs = H5Dget_space(dset);
      H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, nullptr, chunk, nullptr);
      hid_t ms = H5Screate_simple(2, chunk, nullptr);
      ASSERT_GE(H5Dwrite(dset, H5T_NATIVE_UINT64, ms, fs, H5P_DEFAULT, data.data()), 0);
      H5Sclose(ms);
      H5Sclose(fs);
    }
    H5Dclose(dset);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(file);
  }
  hid_t fapl = PrefetchFapl();
  hid_t file = Open(fapl);
  hid_t dset = H5Dopen2(file, "sparse", H5P_DEFAULT);
  ASSERT_GE(H5FD_prefetch_declare(dset, H5S_ALL), 0) << ErrorStack();
  H5FD_prefetch_stats_t st = Stats(file);
  EXPECT_EQ(st.skipped_chunks, 12u);
  EXPECT_EQ(st.declared_bytes, 4u * 32 * 32 * sizeof(uint64_t));
  std::vector<uint64_t> buf(128 * 128);
  ASSERT_GE(Hdf5Read(dset, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()), 0);
  size_t bad = 0;
  for (hsize_t r = 0; r < 128; ++r)
    for (hsize_t c = 0; c < 128; ++c)
      bad += buf[r * 128 + c] != (r / 32 == c / 32 ? Value(9, r, c, 128) : 7);
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(Stats(file).engine.misses + Stats(file).unplanned_reads, 0u);
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}

// Chunks larger than HDF5's chunk cache bypass it: only the selected runs are declared and read.
TEST_F(H5FDPrefetchTest, ChunksLargerThanTheCacheDeclareTheSelectedRuns) {
  hid_t fapl = PrefetchFapl();
  hid_t file = Open(fapl);
  hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
  ASSERT_GE(H5Pset_chunk_cache(dapl, 521, 64 * 1024, 0.75), 0);
  hid_t dset = H5Dopen2(file, "c1m", dapl);
  std::vector<Slab> slabs = Pattern("columns", kDatasets[3]);  // 512-wide strips: whole chunks
  slabs = {{0, 3, 300, 5}, {10, 100, 400, 2}, {200, 0, 30, 512}};
  uint64_t selected = 0;
  for (const Slab &s : slabs) {
    hid_t space = Select(dset, s);
    ASSERT_GE(H5FD_prefetch_declare(dset, space), 0) << ErrorStack();
    H5Sclose(space);
    selected += s.nr * s.nc * sizeof(uint64_t);
  }
  H5FD_prefetch_stats_t st = Stats(file);
  EXPECT_EQ(st.declared_bytes, selected);
  size_t bad = 0;
  for (const Slab &s : slabs) bad += ReadAndCheck(dset, kDatasets[3], s);
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(Stats(file).engine.misses + Stats(file).unplanned_reads, 0u);
  H5Dclose(dset);
  H5Pclose(dapl);
  H5Fclose(file);
  H5Pclose(fapl);
}

// A plan the application does not follow: right values, and the strays counted as misses.
TEST_F(H5FDPrefetchTest, APlanNotFollowedCostsMissesNotValues) {
  hid_t fapl = PrefetchFapl();
  hid_t file = Open(fapl);
  hid_t dset = H5Dopen2(file, "c8k", H5P_DEFAULT);
  std::vector<Slab> slabs = Pattern("tiles", kDatasets[1]);
  for (size_t i = 0; i < slabs.size() / 2; ++i) {
    hid_t space = Select(dset, slabs[i]);
    ASSERT_GE(H5FD_prefetch_declare(dset, space), 0);
    H5Sclose(space);
  }
  std::reverse(slabs.begin(), slabs.end());
  size_t bad = 0;
  for (const Slab &s : slabs) bad += ReadAndCheck(dset, kDatasets[1], s);
  EXPECT_EQ(bad, 0u);
  H5FD_prefetch_stats_t st = Stats(file);
  EXPECT_GE(st.engine.misses + st.unplanned_reads, slabs.size() / 4);
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}

// Writes through the driver after it prefetched: the new values are read, never the old ones.
TEST_F(H5FDPrefetchTest, WritesAfterPrefetchAreReadBack) {
  hid_t fapl = PrefetchFapl();
  hid_t file = Open(fapl, H5F_ACC_RDWR);
  hid_t dset = H5Dopen2(file, "contig", H5P_DEFAULT);
  ASSERT_GE(H5FD_prefetch_declare(dset, H5S_ALL), 0);
  EXPECT_EQ(ReadAndCheck(dset, kDatasets[0], {0, 0, 8, kCols}), 0u);  // prefetch under way
  std::vector<uint64_t> ones(64 * kCols, 1);
  hid_t fs = Select(dset, {100, 0, 64, kCols});
  hsize_t mdims[2] = {64, kCols};
  hid_t ms = H5Screate_simple(2, mdims, nullptr);
  ASSERT_GE(H5Dwrite(dset, H5T_NATIVE_UINT64, ms, fs, H5P_DEFAULT, ones.data()), 0);
  H5Sclose(ms);
  H5Sclose(fs);
  std::vector<uint64_t> buf(kRows * kCols);
  ASSERT_GE(Hdf5Read(dset, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()), 0);
  size_t bad = 0;
  for (hsize_t r = 0; r < kRows; ++r)
    for (hsize_t c = 0; c < kCols; ++c)
      bad += buf[r * kCols + c] != (r >= 100 && r < 164 ? 1 : Value(1, r, c));
  EXPECT_EQ(bad, 0u);
  EXPECT_GE(Stats(file).refreshes, 1u);
  H5Dclose(dset);
  ASSERT_GE(H5Fflush(file, H5F_SCOPE_GLOBAL), 0);
  H5Fclose(file);
  // The file written through the driver is a valid HDF5 file for sec2.
  hid_t plain = H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(plain, 0);
  dset = H5Dopen2(plain, "contig", H5P_DEFAULT);
  EXPECT_EQ(ReadAndCheck(dset, kDatasets[0], {0, 0, 100, kCols}), 0u);
  H5Dclose(dset);
  H5Fclose(plain);
  H5Pclose(fapl);
}

// A file created through the driver, written, closed and reopened through it.
TEST_F(H5FDPrefetchTest, CreateWriteReopen) {
  hid_t fapl = PrefetchFapl();
  std::string p = dir_.path() + "/new.h5";
  hid_t file = H5Fcreate(p.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  ASSERT_GE(file, 0) << ErrorStack();
  WriteDataset(file, kDatasets[1]);
  hid_t dset = H5Dopen2(file, "c8k", H5P_DEFAULT);
  EXPECT_EQ(ReadAndCheck(dset, kDatasets[1], {0, 0, kRows, kCols}), 0u);
  H5Dclose(dset);
  H5Fclose(file);
  file = H5Fopen(p.c_str(), H5F_ACC_RDONLY, fapl);
  ASSERT_GE(file, 0);
  dset = H5Dopen2(file, "c8k", H5P_DEFAULT);
  for (const Slab &s : Pattern("columns", kDatasets[1]))
    EXPECT_EQ(ReadAndCheck(dset, kDatasets[1], s), 0u);
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}

// Without a declaration: a column pass of small reads is predicted into the page cache; where pfio
// holds the file in its reorder buffer (buffer = engine), a pass of 64 KiB rows is predicted into
// pfio's plan and served from it; random small reads switch the prediction off after a few misses.
TEST_F(H5FDPrefetchTest, StridedReadsArePredictedAndRandomOnesSwitchPredictionOff) {
  const DatasetSpec wide = {"wide", 8, 512, 8192, 0, 0, false};
  {
    hid_t file = H5Fopen(path_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    WriteDataset(file, wide);
    H5Fclose(file);
  }
  hid_t fapl = PrefetchFapl(true, 64 << 10, "engine");
  hid_t file = Open(fapl);
  hid_t dset = H5Dopen2(file, "contig", H5P_DEFAULT);
  for (hsize_t c = 0; c < kCols; c += 8)
    EXPECT_EQ(ReadAndCheck(dset, kDatasets[0], {0, c, kRows, 8}), 0u);
  H5FD_prefetch_stats_t st = Stats(file);
  EXPECT_GT(st.predicted_extents, 0u);
  EXPECT_LT(st.unplanned_reads, st.raw_reads / 50) << "raw reads " << st.raw_reads;
  EXPECT_EQ(st.engine.reads, 0u) << "64-byte reads are not worth pfio's cost per read";
  H5Dclose(dset);

  dset = H5Dopen2(file, "wide", H5P_DEFAULT);
  for (hsize_t r = 0; r < wide.rows; ++r)
    EXPECT_EQ(ReadAndCheck(dset, wide, {r, 0, 1, wide.cols}), 0u);
  H5FD_prefetch_stats_t st2 = Stats(file);
  EXPECT_GE(st2.engine.hits + st2.engine.passthrough_reads, wide.rows - 8)
      << "reads through pfio " << st2.engine.reads;
  H5Dclose(dset);
  H5Fclose(file);

  file = Open(fapl);
  dset = H5Dopen2(file, "contig", H5P_DEFAULT);
  std::mt19937_64 rng(5);
  // 3 rows of 2 elements at random places: 3 reads at one stride start a prediction of 8 more
  // that the next selection breaks. Unchecked, that is 8 wasted extents per selection.
  for (int i = 0; i < 2000; ++i) {
    hsize_t r = rng() % (kRows - 2), c = rng() % (kCols - 1);
    EXPECT_EQ(ReadAndCheck(dset, kDatasets[0], {r, c, 3, 2}), 0u);
  }
  st = Stats(file);
  EXPECT_GE(st.prediction_offs, 3u);
  EXPECT_LT(st.predicted_extents, 2000u * 8 / 10) << "breaks " << st.prediction_breaks;
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}

// Random hyperslabs of 6 x 6 values: each predicts 8 rows after its third and reads 3 of them,
// more than a quarter (no miss by a count of extents read) but fewer bytes than it drops, so the
// prediction switches itself off and HDF5 sieves, as under sec2. The counters of bytes add up.
TEST_F(H5FDPrefetchTest, PredictionsThatDropMoreBytesThanTheyReadSwitchThemselvesOff) {
  hid_t fapl = PrefetchFapl(/*predict=*/true, H5FD_PREFETCH_ENGINE_NEVER);
  hid_t file = Open(fapl, H5F_ACC_RDONLY);
  hid_t dset = H5Dopen2(file, "contig", H5P_DEFAULT);
  std::mt19937_64 rng(11);
  const int slabs = 400;
  for (int i = 0; i < slabs; ++i)
    EXPECT_EQ(ReadAndCheck(dset, kDatasets[0], {rng() % (kRows - 5), rng() % (kCols - 5), 6, 6}),
              0u);
  const H5FD_prefetch_stats_t st = Stats(file);
  EXPECT_GE(st.prediction_offs, 1u);
  EXPECT_LT(st.predicted_extents, slabs * 8u / 4) << "8 a hyperslab while it stays on";
  EXPECT_GT(st.sieved_reads, 0u);
  EXPECT_LT(st.raw_reads, 6u * slabs * 3 / 4) << "sieve reads serve several rows each";
  EXPECT_EQ(st.predicted_bytes, st.predicted_extents * 6 * sizeof(uint64_t));
  EXPECT_GT(st.prediction_dropped_bytes, st.prediction_hit_bytes);
  EXPECT_GE(st.predicted_bytes, st.prediction_hit_bytes + st.prediction_dropped_bytes);
  EXPECT_LE(st.predicted_bytes - st.prediction_hit_bytes - st.prediction_dropped_bytes,
            8 * 6 * sizeof(uint64_t))
      << "what is not read or dropped is the one prediction still ahead";
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}

// 300 hyperslabs of 4 x 4 values at seeded random places of the test file's datasets.
std::vector<Slab> SmallRandomHyperslabs(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Slab> points;
  for (int i = 0; i < 300; ++i) points.push_back({rng() % (kRows - 3), rng() % (kCols - 3), 4, 4});
  return points;
}

// A reader of small random hyperslabs switches the prediction off; on a read-only file the driver
// then lets HDF5 sieve, as sec2 always does: the 4 rows of a 4 x 4 hyperslab (4 KiB apart) come
// from one 64 KiB read instead of four small ones. On a writable file it never does (a sieve
// buffer left while the sieve was off could be served stale after a write), and a declaration
// switches it off (the plan's reads are advised exactly).
TEST_F(H5FDPrefetchTest, RandomReadersOfReadOnlyFilesGetHdf5sSieveUntilTheyDeclare) {
  const std::vector<Slab> points = SmallRandomHyperslabs(9);
  hid_t fapl = PrefetchFapl(/*predict=*/true, H5FD_PREFETCH_ENGINE_NEVER);
  for (unsigned flags : {H5F_ACC_RDWR, H5F_ACC_RDONLY}) {
    SCOPED_TRACE(flags == H5F_ACC_RDONLY ? "read-only" : "writable");
    hid_t file = Open(fapl, flags);
    hid_t dset = H5Dopen2(file, "contig", H5P_DEFAULT);
    for (const Slab &p : points) EXPECT_EQ(ReadAndCheck(dset, kDatasets[0], p), 0u);
    const H5FD_prefetch_stats_t st = Stats(file);
    EXPECT_GE(st.prediction_offs, 2u) << "the reader was not found random";
    if (flags == H5F_ACC_RDWR) {
      EXPECT_EQ(st.sieve_switches, 0u);
      EXPECT_EQ(st.sieved_reads, 0u);
      EXPECT_EQ(st.raw_reads, 4 * points.size()) << "one read per row of each hyperslab";
    } else {
      EXPECT_GE(st.sieve_switches, 3u) << "on, off, on again";
      EXPECT_GT(st.sieved_reads, 0u);
      EXPECT_LT(st.raw_reads, 2 * points.size()) << "most hyperslabs cost one sieve read";
      // Declaring switches the sieve off, and the declared tile's reads are not sieved.
      const bool sieve_on = st.sieve_switches % 2 == 1;
      hid_t space = Select(dset, {64, 64, 32, 32});
      ASSERT_GE(H5FD_prefetch_declare(dset, space), 0) << ErrorStack();
      H5Sclose(space);
      EXPECT_EQ(ReadAndCheck(dset, kDatasets[0], {64, 64, 32, 32}), 0u);
      const H5FD_prefetch_stats_t after = Stats(file);
      EXPECT_EQ(after.sieve_switches, st.sieve_switches + (sieve_on ? 1 : 0));
      EXPECT_EQ(after.sieved_reads, st.sieved_reads);
      EXPECT_EQ(after.raw_reads, st.raw_reads + 32) << "a 32-row tile: one read per row";
    }
    H5Dclose(dset);
    H5Fclose(file);
  }
  H5Pclose(fapl);
}

// With the prediction off (predict = off), a read-only file lets HDF5 sieve from its open, as sec2
// does: without it every row of a small hyperslab was a read of its own (behind FUSE each a round
// trip, 0.02x sec2 on contiguous tiles). A writable file still never sieves.
TEST_F(H5FDPrefetchTest, WithThePredictionOffReadOnlyFilesGetHdf5sSieveFromTheOpen) {
  const std::vector<Slab> points = SmallRandomHyperslabs(10);
  hid_t fapl = PrefetchFapl(/*predict=*/false, H5FD_PREFETCH_ENGINE_NEVER);
  for (unsigned flags : {H5F_ACC_RDWR, H5F_ACC_RDONLY}) {
    SCOPED_TRACE(flags == H5F_ACC_RDONLY ? "read-only" : "writable");
    hid_t file = Open(fapl, flags);
    hid_t dset = H5Dopen2(file, "contig", H5P_DEFAULT);
    for (const Slab &p : points) EXPECT_EQ(ReadAndCheck(dset, kDatasets[0], p), 0u);
    const H5FD_prefetch_stats_t st = Stats(file);
    if (flags == H5F_ACC_RDWR)
      EXPECT_EQ(st.raw_reads, 4 * points.size()) << "one read per row of each hyperslab";
    else
      EXPECT_LT(st.raw_reads, 2 * points.size()) << "most hyperslabs cost one sieve read";
    H5Dclose(dset);
    H5Fclose(file);
  }
  H5Pclose(fapl);
}

// The file opened twice shares one driver file (cmp); the handle is the descriptor.
TEST_F(H5FDPrefetchTest, OpenedTwiceAndTheHandleIsADescriptor) {
  hid_t fapl = PrefetchFapl();
  hid_t f1 = Open(fapl), f2 = Open(fapl);
  void *handle = nullptr;
  ASSERT_GE(H5Fget_vfd_handle(f1, fapl, &handle), 0);
  struct stat a, b;
  ASSERT_EQ(fstat(*static_cast<int *>(handle), &a), 0);
  ASSERT_EQ(stat(path_.c_str(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino);
  hid_t d1 = H5Dopen2(f1, "c128k", H5P_DEFAULT), d2 = H5Dopen2(f2, "c128k", H5P_DEFAULT);
  EXPECT_EQ(ReadAndCheck(d1, kDatasets[2], {0, 0, 200, 300}), 0u);
  EXPECT_EQ(ReadAndCheck(d2, kDatasets[2], {100, 100, 300, 300}), 0u);
  H5Dclose(d1);
  H5Dclose(d2);
  H5Fclose(f1);
  H5Fclose(f2);
  H5Pclose(fapl);
}

// Issue 53 item 1: a checkpoint swapped in by rename(2) after H5Fopen and before the file's first
// declared read (where the driver starts its pfio context) is never read: pfio takes the file
// from the driver's descriptor, not the path. The new file has the same layout and other values,
// so any byte read from it shows. Both buffer kinds; before, every declared value came from the
// new file.
TEST_F(H5FDPrefetchTest, AFileRenamedOverThePathAfterOpenIsNeverRead) {
  for (const char *buffer : {"engine", "cache"}) {
    hid_t fapl = PrefetchFapl(true, 64 << 10, buffer);
    hid_t file = Open(fapl);
    hid_t dset = H5Dopen2(file, "c1m", H5P_DEFAULT);
    const std::string next = dir_.path() + "/next.h5";
    hid_t other = H5Fcreate(next.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(other, 0);
    for (DatasetSpec d : kDatasets) {
      d.seed += 100;
      WriteDataset(other, d);
    }
    ASSERT_GE(H5Fclose(other), 0);
    const std::string kept = dir_.path() + "/kept.h5";
    ASSERT_EQ(link(path_.c_str(), kept.c_str()), 0);  // the old file stays for the next round
    ASSERT_EQ(rename(next.c_str(), path_.c_str()), 0);
    ASSERT_GE(H5FD_prefetch_declare(dset, H5S_ALL), 0) << ErrorStack();
    EXPECT_EQ(ReadAndCheck(dset, kDatasets[3], {0, 0, kRows, kCols}), 0u) << buffer;
    EXPECT_GT(Planned(Stats(file)), 0u) << buffer;
    H5Dclose(dset);
    H5Fclose(file);
    H5Pclose(fapl);
    ASSERT_EQ(rename(kept.c_str(), path_.c_str()), 0);
  }
}

// Round 4, items 6 and 8: close is total, and the stats path writes over nothing that is not
// pfio's. A stats path that cannot be written (a missing directory) or that names the data file
// itself: H5Fclose succeeds (before, the driver's close failed after freeing its state and HDF5
// crashed at exit), and the data file is left as it was (before, 1,140 bytes of JSON).
TEST_F(H5FDPrefetchTest, CloseSucceedsAndTheDataIsKeptWhateverTheStatsPathNames) {
  for (const std::string &stats : {std::string("/nonexistent-dir/s.json"), path_}) {
    H5FD_prefetch_config_t config;
    ASSERT_GE(H5FD_prefetch_config_init(&config), 0);
    config.engine_min = 64 << 10;
    ASSERT_GE(H5FD_prefetch_config_set(&config, "stats_path", stats.c_str()), 0);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    ASSERT_GE(H5Pset_fapl_prefetch(fapl, &config), 0) << ErrorStack();
    hid_t file = Open(fapl);
    hid_t dset = H5Dopen2(file, "c1m", H5P_DEFAULT);
    ASSERT_GE(H5FD_prefetch_declare(dset, H5S_ALL), 0) << ErrorStack();
    EXPECT_EQ(ReadAndCheck(dset, kDatasets[3], {0, 0, kRows, kCols}), 0u);
    H5Dclose(dset);
    EXPECT_GE(H5Fclose(file), 0) << stats << ": " << ErrorStack();
    H5Pclose(fapl);
    hid_t plain = H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(plain, 0) << "the data file was written over";
    dset = H5Dopen2(plain, "c1m", H5P_DEFAULT);
    EXPECT_EQ(ReadAndCheck(dset, kDatasets[3], {0, 0, kRows, kCols}), 0u);
    H5Dclose(dset);
    H5Fclose(plain);
  }
}

}  // namespace
