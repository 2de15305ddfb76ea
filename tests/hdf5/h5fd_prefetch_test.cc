// H5FDprefetch on real HDF5 files: every pattern x layout x method read value by value against
// the file's self-verifying values (element i of a dataset holds seed << 40 | i), declared plans,
// prediction, writes after prefetching, bad configs and the driver's errors.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "H5FDprefetch.h"
#include "test_util.h"

namespace {

constexpr hsize_t kRows = 512, kCols = 512;

uint64_t Value(uint64_t seed, hsize_t row, hsize_t col, hsize_t cols = kCols) {
  return seed << 40 | (row * cols + col);
}

// The messages on HDF5's default error stack, joined (and the stack cleared).
std::string ErrorStack() {
  std::string all;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned, const H5E_error2_t *e, void *data) -> herr_t {
        *static_cast<std::string *>(data) += std::string(e->desc ? e->desc : "") + "\n";
        return 0;
      },
      &all);
  H5Eclear2(H5E_DEFAULT);
  return all;
}

// Runs `f` with HDF5's automatic error printing off.
template <class F>
auto Quietly(F f) {
  H5E_auto2_t func = nullptr;
  void *data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &func, &data);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  auto r = f();
  H5Eset_auto2(H5E_DEFAULT, func, data);
  return r;
}

struct DatasetSpec {
  const char *name;
  uint64_t seed;
  hsize_t rows, cols;
  hsize_t chunk_rows, chunk_cols;  // 0: contiguous
  bool deflate;
};

const DatasetSpec kDatasets[] = {
    {"contig", 1, kRows, kCols, 0, 0, false},    {"c8k", 2, kRows, kCols, 32, 32, false},
    {"c128k", 3, kRows, kCols, 128, 128, false}, {"c1m", 4, kRows, kCols, 256, 512, false},
    {"edge", 5, 100, 70, 32, 32, false},         {"deflate", 6, kRows, kCols, 64, 64, true},
};

void WriteDataset(hid_t file, const DatasetSpec &d) {
  hsize_t dims[2] = {d.rows, d.cols};
  hid_t space = H5Screate_simple(2, dims, nullptr);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (d.chunk_rows > 0) {
    hsize_t chunk[2] = {d.chunk_rows, d.chunk_cols};
    ASSERT_GE(H5Pset_chunk(dcpl, 2, chunk), 0);
  }
  if (d.deflate) {
    ASSERT_GE(H5Pset_shuffle(dcpl), 0);
    ASSERT_GE(H5Pset_deflate(dcpl, 4), 0);
  }
  hid_t dset = H5Dcreate2(file, d.name, H5T_NATIVE_UINT64, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ASSERT_GE(dset, 0);
  std::vector<uint64_t> data(d.rows * d.cols);
  for (hsize_t r = 0; r < d.rows; ++r)
    for (hsize_t c = 0; c < d.cols; ++c) data[r * d.cols + c] = Value(d.seed, r, c, d.cols);
  ASSERT_GE(H5Dwrite(dset, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), 0);
  H5Dclose(dset);
  H5Pclose(dcpl);
  H5Sclose(space);
}

// A hyperslab: start and count in rows and columns.
struct Slab {
  hsize_t r0, c0, nr, nc;
};

// The selections of a pattern, in reading order, on a rows x cols dataset with tile th x tw.
std::vector<Slab> Pattern(const std::string &name, const DatasetSpec &d) {
  hsize_t th = d.chunk_rows ? d.chunk_rows : 32, tw = d.chunk_cols ? d.chunk_cols : 32;
  std::vector<Slab> out;
  std::mt19937_64 rng(d.seed * 7 + name.size());
  if (name == "tiles") {
    for (hsize_t r = 0; r < d.rows; r += th)
      for (hsize_t c = 0; c < d.cols; c += tw)
        out.push_back({r, c, std::min(th, d.rows - r), std::min(tw, d.cols - c)});
    std::shuffle(out.begin(), out.end(), rng);
  } else if (name == "columns") {
    for (hsize_t c = 0; c < d.cols; c += tw)
      out.push_back({0, c, d.rows, std::min(tw, d.cols - c)});
  } else if (name == "rows") {
    for (hsize_t r = 0; r < d.rows; r += th)
      out.push_back({r, 0, std::min(th, d.rows - r), d.cols});
  } else if (name == "random-points") {
    for (int i = 0; i < 64; ++i) {
      hsize_t r = rng() % (d.rows - 3), c = rng() % (d.cols - 3);
      out.push_back({r, c, 4, 4});
    }
  }
  return out;
}

hid_t Select(hid_t dset, const Slab &s) {
  hid_t space = H5Dget_space(dset);
  hsize_t start[2] = {s.r0, s.c0}, count[2] = {s.nr, s.nc};
  EXPECT_GE(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr), 0);
  return space;
}

// Reads `s` of `dset` and checks every value; returns the number of wrong values.
size_t ReadAndCheck(hid_t dset, const DatasetSpec &d, const Slab &s) {
  hid_t fspace = Select(dset, s);
  hsize_t mdims[2] = {s.nr, s.nc};
  hid_t mspace = H5Screate_simple(2, mdims, nullptr);
  std::vector<uint64_t> buf(s.nr * s.nc, 0);
  herr_t rc = H5Dread(dset, H5T_NATIVE_UINT64, mspace, fspace, H5P_DEFAULT, buf.data());
  H5Sclose(mspace);
  H5Sclose(fspace);
  if (rc < 0) return buf.size();
  size_t bad = 0;
  for (hsize_t r = 0; r < s.nr; ++r)
    for (hsize_t c = 0; c < s.nc; ++c)
      bad += buf[r * s.nc + c] != Value(d.seed, s.r0 + r, s.c0 + c, d.cols);
  return bad;
}

// A fapl for the driver: by default extents of 64 KiB and more go through pfio's engine (the
// driver's own default sends everything through the page cache; both routes are tested).
hid_t PrefetchFapl(bool predict = true, uint64_t engine_min = 64 << 10) {
  H5FD_prefetch_config_t config;
  EXPECT_GE(H5FD_prefetch_config_init(&config), 0);
  EXPECT_EQ(config.engine_min, H5FD_PREFETCH_ENGINE_NEVER);
  config.predict = predict;
  config.engine_min = engine_min;
  EXPECT_GE(H5FD_prefetch_config_set(&config, "budget", "32M"), 0);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  EXPECT_GE(H5Pset_fapl_prefetch(fapl, &config), 0) << ErrorStack();
  return fapl;
}

class H5FDPrefetchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/data.h5";
    hid_t file = H5Fcreate(path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    for (const DatasetSpec &d : kDatasets) WriteDataset(file, d);
    H5Fclose(file);
  }
  hid_t Open(hid_t fapl, unsigned flags = H5F_ACC_RDONLY) {
    hid_t file = H5Fopen(path_.c_str(), flags, fapl);
    EXPECT_GE(file, 0) << ErrorStack();
    return file;
  }
  pfio::test::ScratchDir dir_;
  std::string path_;
};

H5FD_prefetch_stats_t Stats(hid_t id) {
  H5FD_prefetch_stats_t s;
  std::memset(&s, 0, sizeof s);
  EXPECT_GE(H5FD_prefetch_get_stats(id, &s), 0) << ErrorStack();
  return s;
}

// Raw reads served from a declared plan: by pfio (hits, and sequential runs it left to the
// kernel), or from the page cache after advice (small extents).
uint64_t Planned(const H5FD_prefetch_stats_t &st) {
  return st.engine.hits + st.engine.passthrough_reads + st.advised_reads;
}

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
            EXPECT_EQ(st.engine.reads, 0u) << "everything through the page cache";
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
  ASSERT_GE(H5Dread(dset, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()), 0);
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
  ASSERT_GE(H5Dread(dset, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()), 0);
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

// Without a declaration: a column pass of small reads is predicted into the page cache; a pass
// of 64 KiB rows is predicted into pfio's plan and served from it; random small reads switch the
// prediction off after a few misses.
TEST_F(H5FDPrefetchTest, StridedReadsArePredictedAndRandomOnesSwitchPredictionOff) {
  const DatasetSpec wide = {"wide", 8, 512, 8192, 0, 0, false};
  {
    hid_t file = H5Fopen(path_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    WriteDataset(file, wide);
    H5Fclose(file);
  }
  hid_t fapl = PrefetchFapl();
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

// A reader of small random hyperslabs switches the prediction off; on a read-only file the driver
// then lets HDF5 sieve, as sec2 always does: the 4 rows of a 4 x 4 hyperslab (4 KiB apart) come
// from one 64 KiB read instead of four small ones. On a writable file it never does (a sieve
// buffer left while the sieve was off could be served stale after a write), and a declaration
// switches it off (the plan's reads are advised exactly).
TEST_F(H5FDPrefetchTest, RandomReadersOfReadOnlyFilesGetHdf5sSieveUntilTheyDeclare) {
  std::mt19937_64 rng(9);
  std::vector<Slab> points;
  for (int i = 0; i < 300; ++i) points.push_back({rng() % (kRows - 3), rng() % (kCols - 3), 4, 4});
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

// SWMR readers are refused: data fetched ahead could be older than what a writer appends.
TEST_F(H5FDPrefetchTest, SwmrReadIsRefused) {
  hid_t fapl = PrefetchFapl();
  hid_t file =
      Quietly([&] { return H5Fopen(path_.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, fapl); });
  EXPECT_LT(file, 0);
  std::string errors = ErrorStack();
  EXPECT_NE(errors.find("SWMR"), std::string::npos) << errors;
  if (file >= 0) H5Fclose(file);
  H5Pclose(fapl);
}

// Bad configs are refused with a message that names the field and its value.
TEST(H5FDPrefetchConfig, BadConfigsAreRefusedByName) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5FD_prefetch_config_t config;
  ASSERT_GE(H5FD_prefetch_config_init(&config), 0);
  config.magic = 0x1234;
  EXPECT_LT(Quietly([&] { return H5Pset_fapl_prefetch(fapl, &config); }), 0);
  EXPECT_NE(ErrorStack().find("config magic = 0x00001234"), std::string::npos);

  H5FD_prefetch_config_init(&config);
  config.version = 99;
  EXPECT_LT(Quietly([&] { return H5Pset_fapl_prefetch(fapl, &config); }), 0);
  EXPECT_NE(ErrorStack().find("config version = 99: expected 1"), std::string::npos);

  H5FD_prefetch_config_init(&config);
  EXPECT_LT(Quietly([&] { return H5FD_prefetch_config_set(&config, "budget", "lots"); }), 0);
  std::string e = ErrorStack();
  EXPECT_NE(e.find("budget"), std::string::npos) << e;
  EXPECT_NE(e.find("lots"), std::string::npos) << e;
  EXPECT_EQ(config.nsettings, 0);

  EXPECT_LT(Quietly([&] { return H5FD_prefetch_config_set(&config, "budgte", "1G"); }), 0);
  e = ErrorStack();
  EXPECT_NE(e.find("budget"), std::string::npos) << "the nearest key is named: " << e;

  H5FD_prefetch_config_init(&config);
  config.nsettings = 1;
  std::strcpy(config.settings[0].key, "queue_depth");
  std::strcpy(config.settings[0].value, "0");
  EXPECT_LT(Quietly([&] { return H5Pset_fapl_prefetch(fapl, &config); }), 0);
  e = ErrorStack();
  EXPECT_NE(e.find("settings[0]"), std::string::npos) << e;
  EXPECT_NE(e.find("queue_depth"), std::string::npos) << e;

  H5FD_prefetch_config_init(&config);
  config.predict = 2;
  EXPECT_LT(Quietly([&] { return H5Pset_fapl_prefetch(fapl, &config); }), 0);
  EXPECT_NE(ErrorStack().find("config predict = 2: expected 0 or 1"), std::string::npos);

  // A good one round-trips through the fapl.
  H5FD_prefetch_config_init(&config);
  ASSERT_GE(H5FD_prefetch_config_set(&config, "budget", "64M"), 0);
  ASSERT_GE(H5FD_prefetch_config_set(&config, "budget", "48M"), 0);
  ASSERT_GE(H5Pset_fapl_prefetch(fapl, &config), 0);
  H5FD_prefetch_config_t back;
  ASSERT_GE(H5Pget_fapl_prefetch(fapl, &back), 0);
  EXPECT_EQ(back.nsettings, 1);
  EXPECT_STREQ(back.settings[0].value, "48M");
  H5Pclose(fapl);
}

// Whether the pages of [offset, offset + length) of `path` are in the page cache.
bool Resident(const std::string &path, uint64_t offset, uint64_t length) {
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t start = offset / page * page, end = (offset + length + page - 1) / page * page;
  void *map = mmap(nullptr, end - start, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(start));
  close(fd);
  if (map == MAP_FAILED) return false;
  std::vector<unsigned char> in((end - start) / page);
  bool all = mincore(map, end - start, in.data()) == 0;
  for (unsigned char c : in) all = all && (c & 1);
  munmap(map, end - start);
  return all;
}

// Whether `holds` becomes true within 10 s: the driver's advice goes out from its advisor
// thread, and the reads it submits complete after that.
template <typename F>
bool Eventually(F holds) {
  for (int i = 0; i < 1000; ++i) {
    if (holds()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return holds();
}

bool ResidentSoon(const std::string &path, uint64_t offset, uint64_t length) {
  return Eventually([&] { return Resident(path, offset, length); });
}

// Drops every page of `path` from the page cache.
void Evict(const std::string &path) {
  int fd = open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(fdatasync(fd), 0);  // dirty pages would stay
  ASSERT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
  close(fd);
}

// Small declared extents are advised in batches sorted by offset: two chunks a batch declares
// with one chunk between them are advised as one range (the chunk between them with it), even
// though a far chunk lies between them in the plan. In plan order, the three would be three
// ranges (the far chunk breaks the run) and the chunk between never advised. This is what makes
// a declared column pass over row-major chunks read whole rows of the batch's columns at once.
TEST_F(H5FDPrefetchTest, DeclaredExtentsAreAdvisedInFileOrderWithinABatch) {
  // One row of 64 chunks of 8 KiB, far from the file's metadata at its start.
  const DatasetSpec row = {"row", 9, 32, 32 * 64, 32, 32, false};
  const std::string path = dir_.path() + "/row.h5";
  {
    hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    WriteDataset(file, row);
    H5Fclose(file);
  }
  haddr_t addr[64];
  {
    hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t dset = H5Dopen2(file, row.name, H5P_DEFAULT);
    for (hsize_t c = 0; c < 64; ++c) {
      hsize_t coord[2] = {0, c * 32}, size = 0;
      unsigned mask = 0;
      ASSERT_GE(H5Dget_chunk_info_by_coord(dset, coord, &mask, &addr[c], &size), 0);
    }
    H5Dclose(dset);
    H5Fclose(file);
  }
  const int lead = 20, a = 40, between = 41, b = 42, far = 10, untouched = 52;
  ASSERT_EQ(addr[between], addr[a] + 8192) << "chunks written in order lie side by side";
  ASSERT_EQ(addr[b], addr[between] + 8192);
  ASSERT_GT(addr[a] - addr[far], uint64_t{64} << 10) << "the far chunk must not join the run";
  Evict(path);
  ASSERT_FALSE(Resident(path, addr[between], 8192)) << "the file was not evicted";

  hid_t fapl = PrefetchFapl(/*predict=*/false, H5FD_PREFETCH_ENGINE_NEVER);
  hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl);
  ASSERT_GE(file, 0) << ErrorStack();
  hid_t dset = H5Dopen2(file, row.name, H5P_DEFAULT);
  for (int c : {lead, a, far, b}) {  // the plan: lead, a, the far chunk, b
    hid_t space = Select(dset, {0, static_cast<hsize_t>(c) * 32, 32, 32});
    ASSERT_GE(H5FD_prefetch_declare(dset, space), 0) << ErrorStack();
    H5Sclose(space);
  }
  // The first read (lead, read as it comes) advises the rest of the plan: one batch.
  EXPECT_EQ(ReadAndCheck(dset, row, {0, lead * 32, 32, 32}), 0u);
  EXPECT_TRUE(ResidentSoon(path, addr[between], 8192)) << "a and b were not advised as one range";
  EXPECT_FALSE(Resident(path, addr[untouched], 8192)) << "more than the plan was read";
  for (int c : {a, far, b}) EXPECT_EQ(ReadAndCheck(dset, row, {0, c * 32ull, 32, 32}), 0u);
  H5FD_prefetch_stats_t st = Stats(file);
  EXPECT_EQ(st.advised_extents, 3u);
  EXPECT_EQ(st.advised_reads, 4u);
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}

// A file with 4,096 chunks of 8 KiB (32 MiB) written in order, with HDF5's chunk index (a
// version 1 B-tree) in nodes between the chunks; node_pages_ are the pages that hold something
// other than chunks (the nodes) 8 MiB and more past the first chunk.
class H5FDPrefetchIndexTest : public H5FDPrefetchTest {
 protected:
  void SetUp() override {
    H5FDPrefetchTest::SetUp();
    hid_t file = H5Fcreate(path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    WriteDataset(file, kRowsSpec);
    H5Fclose(file);
    std::vector<std::pair<uint64_t, uint64_t>> chunks;  // [address, end) of every chunk
    file = H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t dset = H5Dopen2(file, kRowsSpec.name, H5P_DEFAULT);
    for (hsize_t r = 0; r < 64; ++r)
      for (hsize_t c = 0; c < 64; ++c) {
        hsize_t coord[2] = {r * 32, c * 32}, size = 0;
        haddr_t addr = 0;
        unsigned mask = 0;
        ASSERT_GE(H5Dget_chunk_info_by_coord(dset, coord, &mask, &addr, &size), 0);
        chunks.emplace_back(addr, addr + size);
      }
    H5Dclose(dset);
    H5Fclose(file);
    std::sort(chunks.begin(), chunks.end());
    for (size_t i = 1; i < chunks.size(); ++i) {
      const uint64_t gap = chunks[i - 1].second, gap_end = chunks[i].first;
      if (gap_end > gap && gap >= chunks[0].first + (8u << 20))
        for (uint64_t p = gap / page_ * page_; p < gap_end; p += page_) node_pages_.push_back(p);
    }
    ASSERT_GE(node_pages_.size(), 16u) << "HDF5 put no index nodes between the chunks";
    Evict(path_);
    ASSERT_EQ(ResidentNodePages(), 0u) << "the file was not evicted";
  }
  size_t ResidentNodePages() const {
    size_t n = 0;
    for (uint64_t p : node_pages_) n += Resident(path_, p, page_);
    return n;
  }
  // Declares the rows of chunks [first, last) of the dataset open as dset.
  static void DeclareRows(hid_t dset, hsize_t first, hsize_t last) {
    for (hsize_t r = first; r < last; ++r) {
      hid_t space = Select(dset, {r * 32, 0, 32, 2048});
      ASSERT_GE(H5FD_prefetch_declare(dset, space), 0) << ErrorStack();
      H5Sclose(space);
    }
  }
  static constexpr DatasetSpec kRowsSpec = {"rows", 10, 2048, 2048, 32, 32, false};
  const uint64_t page_ = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  std::vector<uint64_t> node_pages_;
};

// Declaring chunks makes HDF5 read its chunk index, whose nodes lie between the chunks. Left in
// the page cache, those pages break the kernel's readahead of a sequential pass over the chunks
// (each cached page costs the stream its readahead mark). The driver drops them where a dense
// declared run is left to readahead, at the first read, before the reader gets there.
TEST_F(H5FDPrefetchIndexTest, IndexPagesReadWhileDeclaringAreDroppedAheadOfADenseRun) {
  hid_t fapl = PrefetchFapl(/*predict=*/false, H5FD_PREFETCH_ENGINE_NEVER);
  hid_t file = Open(fapl);
  hid_t dset = H5Dopen2(file, kRowsSpec.name, H5P_DEFAULT);
  DeclareRows(dset, 0, 64);  // a row pass: one chunk tall, full width, top to bottom
  ASSERT_TRUE(Eventually([&] { return ResidentNodePages() == node_pages_.size(); }))
      << ResidentNodePages() << " of " << node_pages_.size() << " node pages cached by declaring";
  H5FD_prefetch_stats_t st = Stats(file);
  EXPECT_GT(st.index_reads, 0u);
  EXPECT_EQ(st.index_drops, 0u) << "nothing is dropped before the first read";

  // The first strip (512 KiB at the start) starts the advice: the rest is left to readahead,
  // and the node pages in it are dropped before the reader reaches them.
  EXPECT_EQ(ReadAndCheck(dset, kRowsSpec, {0, 0, 32, 2048}), 0u);
  EXPECT_EQ(ResidentNodePages(), 0u);
  st = Stats(file);
  EXPECT_GT(st.index_drops, 0u);
  for (hsize_t r = 1; r < 64; ++r)
    EXPECT_EQ(ReadAndCheck(dset, kRowsSpec, {r * 32, 0, 32, 2048}), 0u);
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}

// An internal node of the chunk index names its children: when declaring makes HDF5 read one,
// the driver advises the children at once, so that the searches after it find them cached
// instead of reading one node at a time. Declaring the first row of chunks reads the nodes on a
// few paths from the root; the children of those nodes become resident by the advice alone,
// most of them far past that row (without the advice: only the nodes read).
TEST_F(H5FDPrefetchIndexTest, DeclaringAdvisesTheChildrenOfTheIndexNodesItReads) {
  hid_t fapl = PrefetchFapl(/*predict=*/false, H5FD_PREFETCH_ENGINE_NEVER);
  hid_t file = Open(fapl);
  hid_t dset = H5Dopen2(file, kRowsSpec.name, H5P_DEFAULT);
  DeclareRows(dset, 0, 1);
  H5FD_prefetch_stats_t st = Stats(file);
  EXPECT_GE(st.index_advised, 16u);
  EXPECT_LT(st.index_reads, 8u) << "one row's search reads more than one path of nodes";
  EXPECT_TRUE(Eventually([&] { return 2 * ResidentNodePages() >= node_pages_.size(); }))
      << ResidentNodePages() << " of " << node_pages_.size() << " node pages resident";
  DeclareRows(dset, 1, 64);
  for (hsize_t r = 0; r < 64; r += 9)
    EXPECT_EQ(ReadAndCheck(dset, kRowsSpec, {r * 32, 0, 32, 2048}), 0u);
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}

// Declaring on a file another driver opened fails and says which driver is needed.
TEST_F(H5FDPrefetchTest, DeclareOnAnotherDriversFileIsRefused) {
  hid_t file = Open(H5P_DEFAULT);
  hid_t dset = H5Dopen2(file, "c8k", H5P_DEFAULT);
  EXPECT_LT(Quietly([&] { return H5FD_prefetch_declare(dset, H5S_ALL); }), 0);
  std::string e = ErrorStack();
  EXPECT_NE(e.find("not open with the prefetch driver"), std::string::npos) << e;
  H5Dclose(dset);
  H5Fclose(file);
}

}  // namespace
