// Helpers of the HDF5 driver's tests: datasets of self-verifying values (element i of a
// dataset holds seed << 40 | i), selections, reads checked value by value, the driver's fapl and
// stats, and the page cache's view of a file (residency, eviction). Test-only.
#pragma once

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

namespace h5fdtest {

inline constexpr hsize_t kRows = 512, kCols = 512;

inline uint64_t Value(uint64_t seed, hsize_t row, hsize_t col, hsize_t cols = kCols) {
  return seed << 40 | (row * cols + col);
}

// The messages on HDF5's default error stack, joined (and the stack cleared).
inline std::string ErrorStack() {
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

inline const DatasetSpec kDatasets[] = {
    {"contig", 1, kRows, kCols, 0, 0, false},    {"c8k", 2, kRows, kCols, 32, 32, false},
    {"c128k", 3, kRows, kCols, 128, 128, false}, {"c1m", 4, kRows, kCols, 256, 512, false},
    {"edge", 5, 100, 70, 32, 32, false},         {"deflate", 6, kRows, kCols, 64, 64, true},
};

inline void WriteDataset(hid_t file, const DatasetSpec &d) {
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
inline std::vector<Slab> Pattern(const std::string &name, const DatasetSpec &d) {
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

inline hid_t Select(hid_t dset, const Slab &s) {
  hid_t space = H5Dget_space(dset);
  hsize_t start[2] = {s.r0, s.c0}, count[2] = {s.nr, s.nc};
  EXPECT_GE(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr), 0);
  return space;
}

// HDF5's H5Dread, or a call with its signature that reads the same way.
using DatasetRead = herr_t (*)(hid_t, hid_t, hid_t, hid_t, hid_t, void *);

// HDF5's own H5Dread (H5FD_prefetch_hdf5_read): a test linked with the driver ahead of HDF5 that
// names H5Dread calls the driver's, each call its own plan; this is a program that links HDF5
// first, whose reads the driver sees one by one.
inline constexpr DatasetRead Hdf5Read = H5FD_prefetch_hdf5_read;

// Reads `s` of `dset` with `read` and checks every value; returns the number of wrong values.
inline size_t ReadAndCheck(hid_t dset, const DatasetSpec &d, const Slab &s,
                           DatasetRead read = Hdf5Read) {
  hid_t fspace = Select(dset, s);
  hsize_t mdims[2] = {s.nr, s.nc};
  hid_t mspace = H5Screate_simple(2, mdims, nullptr);
  std::vector<uint64_t> buf(s.nr * s.nc, 0);
  herr_t rc = read(dset, H5T_NATIVE_UINT64, mspace, fspace, H5P_DEFAULT, buf.data());
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
// driver's own default sends everything through the page cache; both routes are tested);
// `buffer`: the engine's buffer kind when set ("cache": its page-cache kind).
// `aimd` "off": the budget stays as given, whatever the machine's memory signals say meanwhile.
inline hid_t PrefetchFapl(bool predict = true, uint64_t engine_min = 64 << 10,
                          const char *buffer = nullptr, const char *aimd = nullptr) {
  H5FD_prefetch_config_t config;
  EXPECT_GE(H5FD_prefetch_config_init(&config), 0);
  EXPECT_EQ(config.engine_min, H5FD_PREFETCH_ENGINE_NEVER);
  config.predict = predict;
  config.engine_min = engine_min;
  // Half of it is the page-cache path's whole window (H5FD_PREFETCH_ADVISE_AHEAD, 64 MiB): the
  // advice of these tests' files (32 MiB of chunks) is not held back by the budget.
  EXPECT_GE(H5FD_prefetch_config_set(&config, "budget", "128M"), 0);
  if (buffer != nullptr) {
    EXPECT_GE(H5FD_prefetch_config_set(&config, "buffer", buffer), 0);
  }
  if (aimd != nullptr) {
    EXPECT_GE(H5FD_prefetch_config_set(&config, "aimd", aimd), 0);
  }
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

inline H5FD_prefetch_stats_t Stats(hid_t id) {
  H5FD_prefetch_stats_t s;
  std::memset(&s, 0, sizeof s);
  EXPECT_GE(H5FD_prefetch_get_stats(id, &s), 0) << ErrorStack();
  return s;
}

// Raw reads served from a declared plan, every one followed by pfio's plan: hits (read by pfio,
// or by the driver from the page cache and told to pfio), and sequential runs left to the kernel.
inline uint64_t Planned(const H5FD_prefetch_stats_t &st) {
  return st.engine.hits + st.engine.passthrough_reads;
}

using pfio::test::Eventually;

// Whether every page of [offset, offset + length) of `path` is in the page cache.
inline bool Resident(const std::string &path, uint64_t offset, uint64_t length) {
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool all = pfio::test::ResidentFraction(fd, offset, length) == 1.0;
  close(fd);
  return all;
}

inline bool ResidentSoon(const std::string &path, uint64_t offset, uint64_t length) {
  return Eventually([&] { return Resident(path, offset, length); });
}

// Drops every page of `path` from the page cache.
inline void Evict(const std::string &path) {
  int fd = open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  pfio::test::EvictFile(fd);
  close(fd);
}

// Writes a file at `path` holding the one dataset `d` (through sec2); false if it could not.
inline bool WriteFile(const std::string &path, const DatasetSpec &d) {
  hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0) return false;
  WriteDataset(file, d);
  return H5Fclose(file) >= 0;
}

// A contiguous 1024 x 2048 uint64 dataset of its own (16 KiB rows, 16 MiB), written, evicted and
// opened through the driver with `budget`, AIMD off and the buffer kind `buffer` (nullptr: the
// driver's default); `ok` when all of that worked.
struct WideFile {
  WideFile(const std::string &dir, const char *name, uint64_t seed, const char *budget,
           bool predict, const char *buffer = nullptr)
      : spec{"wide", seed, 1024, 2048, 0, 0, false}, path(dir + "/" + name) {
    if (!WriteFile(path, spec)) return;
    Evict(path);
    H5FD_prefetch_config_t config;
    if (H5FD_prefetch_config_init(&config) < 0) return;
    config.predict = predict;
    if (H5FD_prefetch_config_set(&config, "budget", budget) < 0 ||
        H5FD_prefetch_config_set(&config, "aimd", "off") < 0 ||
        (buffer != nullptr && H5FD_prefetch_config_set(&config, "buffer", buffer) < 0))
      return;
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (H5Pset_fapl_prefetch(fapl, &config) < 0) return;
    file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl);
    if (file < 0) return;
    dset = H5Dopen2(file, spec.name, H5P_DEFAULT);
    base = dset < 0 ? HADDR_UNDEF : H5Dget_offset(dset);
    ok = base != HADDR_UNDEF;
  }
  ~WideFile() {
    if (dset >= 0) H5Dclose(dset);
    if (file >= 0) H5Fclose(file);
    if (fapl >= 0) H5Pclose(fapl);
  }
  const DatasetSpec spec;
  const std::string path;
  hid_t fapl = H5I_INVALID_HID, file = H5I_INVALID_HID, dset = H5I_INVALID_HID;
  haddr_t base = HADDR_UNDEF;
  bool ok = false;
};

}  // namespace h5fdtest
