/* pfio-h5bench: the HDF5 file: made or checked, evicted from the page cache, warmed. */
#define _GNU_SOURCE
#include "h5bench.h"

/* ---- the file ------------------------------------------------------------------------------ */

/* 1: the file is a complete pfio-h5bench file of `rows`; 0: it is ours but of another size or
 * unfinished; -1: it is not ours (or not HDF5). */
int file_state(const char *path, hsize_t rows) {
  long long marked = -1;
  int state = -1;
  hid_t file, attr;
  H5E_BEGIN_TRY {
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    attr = file >= 0 ? H5Aopen(file, MARK, H5P_DEFAULT) : -1;
  }
  H5E_END_TRY;
  if (attr >= 0 && H5Aread(attr, H5T_NATIVE_LLONG, &marked) >= 0)
    state = marked == (long long)rows ? 1 : 0;
  if (attr >= 0) H5Aclose(attr);
  if (file >= 0) H5Fclose(file);
  return state;
}

int make_file(const Options *o) {
  hsize_t dims[2] = {o->rows, o->rows}, band = 256, r, c;
  uint64_t *buf = malloc(band * o->rows * sizeof *buf);
  hid_t file = H5Fcreate(o->file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), space, attr;
  long long marked = (long long)o->rows;
  int i;
  if (file < 0 || buf == NULL) return -1;
  space = H5Screate_simple(2, dims, NULL);
  for (i = 0; i < NDATASETS; ++i) {
    const Dataset *d = &datasets[i];
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), dset, fs, ms;
    if (d->chunk_rows > 0) {
      hsize_t chunk[2] = {d->chunk_rows, d->chunk_cols};
      H5Pset_chunk(dcpl, 2, chunk);
    }
    dset = H5Dcreate2(file, d->name, H5T_NATIVE_UINT64, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dset < 0) return -1;
    for (r = 0; r < o->rows; r += band) {
      hsize_t start[2] = {r, 0}, count[2] = {band < o->rows - r ? band : o->rows - r, o->rows};
      for (hsize_t k = 0; k < count[0]; ++k)
        for (c = 0; c < o->rows; ++c) buf[k * o->rows + c] = value_of(d, r + k, c, o->rows);
      fs = H5Dget_space(dset);
      H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
      ms = H5Screate_simple(2, count, NULL);
      if (H5Dwrite(dset, H5T_NATIVE_UINT64, ms, fs, H5P_DEFAULT, buf) < 0) return -1;
      H5Sclose(ms);
      H5Sclose(fs);
    }
    if (!o->quiet) fprintf(stderr, "pfio-h5bench: wrote dataset %s\n", d->name);
    H5Dclose(dset);
    H5Pclose(dcpl);
  }
  H5Sclose(space);
  space = H5Screate(H5S_SCALAR);
  attr = H5Acreate2(file, MARK, H5T_NATIVE_LLONG, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attr, H5T_NATIVE_LLONG, &marked); /* last: a file without it is unfinished */
  H5Aclose(attr);
  H5Sclose(space);
  free(buf);
  return H5Fclose(file) < 0 ? -1 : 0;
}

void evict(const char *path) {
  sync(); /* the counters files of the run before first (pybench.py's evict says why) */
  int fd = open(path, O_RDONLY);
  if (fd >= 0) {
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
  if (geteuid() == 0) {
    FILE *f = fopen("/proc/sys/vm/drop_caches", "w");
    if (f != NULL) {
      fputs("3\n", f);
      fclose(f);
    }
  }
}

/* Reads the whole file through the page cache, so that the next run finds every byte there. */
void warm(const char *path) {
  static char buf[1 << 20];
  int fd = open(path, O_RDONLY);
  if (fd < 0) return;
  while (read(fd, buf, sizeof buf) > 0) {
  }
  close(fd);
}
