/* An HDF5 program that knows nothing of pfio: it opens a file with H5Fopen and the default
 * property list and reads the 2-D dataset "x" (uint64, element (r, c) = r * cols + c, so every
 * value names its own place) in one pattern, checking every value. Built against Debian's serial
 * and Open MPI HDF5 alike; no_code_change_test.py runs it under libpfio_hdf5_preload.so.
 *
 *   plain_reader FILE create ROWS COLS CHUNK_ROWS CHUNK_COLS   (H5Fcreate: never through pfio)
 *   plain_reader FILE rows|columns|tiles|threads               (reads, exits 1 on a wrong value)
 * `threads`: two threads read every column of chunks at once, one forwards and one backwards;
 * for a thread-safe HDF5 only (Debian's serial build; its Open MPI build is not).
 */
#include <hdf5.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what) {
  fprintf(stderr, "plain_reader: %s failed\n", what);
  return 1;
}

static int create(const char *name, hsize_t rows, hsize_t cols, hsize_t crows, hsize_t ccols) {
  hsize_t dims[2] = {rows, cols}, chunk[2] = {crows, ccols};
  uint64_t *data = malloc(rows * cols * sizeof *data);
  hid_t file, space, dcpl, dset;
  herr_t written;
  if (data == NULL) return fail("malloc");
  for (hsize_t i = 0; i < rows * cols; ++i) data[i] = i;
  file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  space = H5Screate_simple(2, dims, NULL);
  dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 2, chunk);
  dset = H5Dcreate2(file, "x", H5T_STD_U64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  written = H5Dwrite(dset, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  free(data);
  if (file < 0 || dset < 0 || written < 0) return fail("creating the file");
  H5Dclose(dset);
  H5Pclose(dcpl);
  H5Sclose(space);
  return H5Fclose(file) < 0 ? fail("H5Fclose") : 0;
}

/* Reads the block at (r0, c0) of h x w and checks it. */
static int read_block(hid_t dset, hsize_t cols, hsize_t r0, hsize_t c0, hsize_t h, hsize_t w,
                      uint64_t *buf) {
  hsize_t start[2] = {r0, c0}, count[2] = {h, w};
  hid_t fspace = H5Dget_space(dset), mspace = H5Screate_simple(2, count, NULL);
  herr_t got;
  H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
  got = H5Dread(dset, H5T_NATIVE_UINT64, mspace, fspace, H5P_DEFAULT, buf);
  H5Sclose(mspace);
  H5Sclose(fspace);
  if (got < 0) return fail("H5Dread");
  for (hsize_t i = 0; i < h; ++i)
    for (hsize_t j = 0; j < w; ++j)
      if (buf[i * w + j] != (r0 + i) * cols + c0 + j) {
        fprintf(stderr, "plain_reader: (%llu, %llu) = %llu: expected %llu\n",
                (unsigned long long)(r0 + i), (unsigned long long)(c0 + j),
                (unsigned long long)buf[i * w + j], (unsigned long long)((r0 + i) * cols + c0 + j));
        return 1;
      }
  return 0;
}

typedef struct column_reader {
  hid_t dset;
  hsize_t dims[2], chunk[2];
  int backwards, bad;
} column_reader;

static void *read_columns(void *arg) {
  column_reader *r = arg;
  uint64_t *buf = malloc(r->dims[0] * r->chunk[1] * sizeof *buf);
  hsize_t n = r->dims[1] / r->chunk[1];
  if (buf == NULL) {
    r->bad = fail("malloc");
    return NULL;
  }
  for (hsize_t k = 0; k < n && !r->bad; ++k) {
    hsize_t c = (r->backwards ? n - 1 - k : k) * r->chunk[1];
    r->bad = read_block(r->dset, r->dims[1], 0, c, r->dims[0], r->chunk[1], buf);
  }
  free(buf);
  return NULL;
}

int main(int argc, char **argv) {
  hsize_t dims[2], chunk[2];
  hid_t file, dset, dcpl, space;
  uint64_t *buf;
  int bad = 0;
  if (argc == 7 && strcmp(argv[2], "create") == 0)
    return create(argv[1], strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10),
                  strtoull(argv[5], NULL, 10), strtoull(argv[6], NULL, 10));
  if (argc != 3) {
    fprintf(stderr, "usage: plain_reader FILE rows|columns|tiles | FILE create R C CR CC\n");
    return 2;
  }
  file = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return fail("H5Fopen");
  dset = H5Dopen2(file, "x", H5P_DEFAULT);
  space = H5Dget_space(dset);
  dcpl = H5Dget_create_plist(dset);
  if (dset < 0 || H5Sget_simple_extent_dims(space, dims, NULL) != 2 ||
      H5Pget_chunk(dcpl, 2, chunk) != 2)
    return fail("opening the chunked 2-D dataset x");
  buf = malloc(dims[0] * chunk[1] * sizeof *buf + dims[1] * chunk[0] * sizeof *buf);
  if (buf == NULL) return fail("malloc");
  if (strcmp(argv[2], "rows") == 0) {
    for (hsize_t r = 0; r < dims[0] && !bad; r += chunk[0])
      bad = read_block(dset, dims[1], r, 0, chunk[0], dims[1], buf);
  } else if (strcmp(argv[2], "columns") == 0) {
    for (hsize_t c = 0; c < dims[1] && !bad; c += chunk[1])
      bad = read_block(dset, dims[1], 0, c, dims[0], chunk[1], buf);
  } else if (strcmp(argv[2], "tiles") == 0) {
    hsize_t tiles_r = dims[0] / chunk[0], tiles_c = dims[1] / chunk[1];
    for (hsize_t k = 0; k < tiles_r * tiles_c && !bad; ++k) {
      hsize_t t = (k * 7919) % (tiles_r * tiles_c); /* every tile once, out of order */
      bad = read_block(dset, dims[1], (t / tiles_c) * chunk[0], (t % tiles_c) * chunk[1], chunk[0],
                       chunk[1], buf);
    }
  } else if (strcmp(argv[2], "threads") == 0) {
    column_reader readers[2];
    pthread_t threads[2];
    for (int i = 0; i < 2; ++i) {
      readers[i] = (column_reader){dset, {dims[0], dims[1]}, {chunk[0], chunk[1]}, i, 0};
      if (pthread_create(&threads[i], NULL, read_columns, &readers[i]) != 0)
        return fail("pthread_create");
    }
    for (int i = 0; i < 2; ++i) {
      pthread_join(threads[i], NULL);
      bad = bad || readers[i].bad;
    }
  } else {
    fprintf(stderr, "plain_reader: pattern %s: expected rows, columns, tiles or threads\n",
            argv[2]);
    bad = 2;
  }
  free(buf);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Dclose(dset);
  if (H5Fclose(file) < 0) return fail("H5Fclose");
  if (!bad)
    printf("plain_reader: %s %s: %llu x %llu values checked\n", argv[1], argv[2],
           (unsigned long long)dims[0], (unsigned long long)dims[1]);
  return bad;
}
