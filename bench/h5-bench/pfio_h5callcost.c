/* pfio-h5callcost: what one H5Dread of one chunk costs a program, with its page cache hot, so
 * that what the preload adds to a call it passes on (a call of one chunk has nothing to overlap)
 * is measured, not estimated.
 *
 * usage: pfio-h5callcost FILE DATASET CALLS
 * FILE is pfio-h5bench's file (element i of a dataset holds seed << 40 | i, seeds 11, 12, 13 for
 * c8k, c128k, c1m); DATASET a chunked one of it. Reads CALLS chunks, each with its own H5Dread of
 * the chunk's hyperslab, at seeded random places, twice: the first pass brings the file's pages
 * and HDF5's index into memory, the second is timed. Every value read is checked. Prints one
 * JSON line: wall and CPU (user + system, the process) microseconds per call of the timed pass.
 * Run it with and without LD_PRELOAD=libpfio_hdf5_preload.so (scripts/bench.sh h5-call-cost);
 * linked against Debian's serial HDF5, as h5py and netCDF4 are. */
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_s(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return (double)r.ru_utime.tv_sec + (double)r.ru_utime.tv_usec * 1e-6 + (double)r.ru_stime.tv_sec +
         (double)r.ru_stime.tv_usec * 1e-6;
}

static int die(const char *what, const char *value, const char *expected) {
  fprintf(stderr, "pfio-h5callcost: %s %s: expected %s\n", what, value, expected);
  return 2;
}

int main(int argc, char **argv) {
  const char *names[] = {"c8k", "c128k", "c1m"};
  const uint64_t seeds[] = {11, 12, 13};
  uint64_t seed = 0, wrong = 0;
  hsize_t dims[2], chunk[2];
  double t0 = 0, c0 = 0;
  long calls;
  int i, pass;
  if (argc != 4) return die("arguments:", argc > 1 ? argv[1] : "(none)", "FILE DATASET CALLS");
  for (i = 0; i < 3; ++i)
    if (strcmp(argv[2], names[i]) == 0) seed = seeds[i];
  if (seed == 0) return die("DATASET", argv[2], "c8k, c128k or c1m");
  calls = strtol(argv[3], NULL, 10);
  if (calls < 1 || calls > 10000000) return die("CALLS", argv[3], "1 .. 10000000");
  hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = f < 0 ? -1 : H5Dopen2(f, argv[2], H5P_DEFAULT);
  if (d < 0) return die("FILE", argv[1], "pfio-h5bench's file (pfio-h5bench --rows 8192 makes it)");
  hid_t space = H5Dget_space(d), dcpl = H5Dget_create_plist(d);
  if (H5Sget_simple_extent_ndims(space) != 2 || H5Pget_chunk(dcpl, 2, chunk) != 2)
    return die("DATASET", argv[2], "a 2-D chunked dataset");
  H5Sget_simple_extent_dims(space, dims, NULL);
  uint64_t *buf = malloc(chunk[0] * chunk[1] * sizeof *buf);
  hid_t mem = H5Screate_simple(2, chunk, NULL);
  for (pass = 0; pass < 2; ++pass) {
    srand(7);
    if (pass == 1) {
      t0 = now_s();
      c0 = cpu_s();
    }
    for (long k = 0; k < calls; ++k) {
      hsize_t at[2] = {(hsize_t)(rand() % (int)(dims[0] / chunk[0])) * chunk[0],
                       (hsize_t)(rand() % (int)(dims[1] / chunk[1])) * chunk[1]};
      H5Sselect_hyperslab(space, H5S_SELECT_SET, at, NULL, chunk, NULL);
      if (H5Dread(d, H5T_NATIVE_UINT64, mem, space, H5P_DEFAULT, buf) < 0) {
        fprintf(stderr, "pfio-h5callcost: H5Dread of the chunk at (%llu, %llu) failed\n",
                (unsigned long long)at[0], (unsigned long long)at[1]);
        return 1;
      }
      for (hsize_t r = 0; r < chunk[0]; ++r)
        for (hsize_t c = 0; c < chunk[1]; ++c)
          wrong += buf[r * chunk[1] + c] != (seed << 40 | ((at[0] + r) * dims[1] + at[1] + c));
    }
  }
  const double wall = now_s() - t0, cpu = cpu_s() - c0;
  printf(
      "{\"dataset\": \"%s\", \"chunk_bytes\": %llu, \"calls\": %ld, \"wall_us\": %.3f, "
      "\"cpu_us\": %.3f, \"wrong\": %llu}\n",
      argv[2], (unsigned long long)(chunk[0] * chunk[1] * sizeof *buf), calls,
      wall / (double)calls * 1e6, cpu / (double)calls * 1e6, (unsigned long long)wrong);
  free(buf);
  H5Sclose(mem);
  H5Sclose(space);
  H5Pclose(dcpl);
  H5Dclose(d);
  H5Fclose(f);
  return wrong == 0 ? 0 : 1;
}
