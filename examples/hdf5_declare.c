/* HDF5 with pfio's driver and a declared plan: tiles of a chunked dataset in a shuffled order.
 *
 *   hdf5_declare FILE   (FILE is made: a 1024 x 1024 dataset of uint64, element (r, c) = r*1024+c,
 *                        in 128 x 128 chunks)
 *
 * H5Pset_fapl_prefetch puts the driver on the file; H5FD_prefetch_declare says which elements
 * will be read next, and the driver reads their chunks ahead of the H5Dread calls. Build:
 *   cc hdf5_declare.c $(pkg-config --cflags --libs hdf5-openmpi pfio) -lpfio_hdf5
 */
#include <pfio/H5FDprefetch.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024
#define T 128
#define TILES ((N / T) * (N / T))

static hid_t tile_space(hid_t dset, int t) { /* the selection of tile t */
  hsize_t start[2] = {(hsize_t)(t / (N / T)) * T, (hsize_t)(t % (N / T)) * T}, count[2] = {T, T};
  hid_t space = H5Dget_space(dset);
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
  return space;
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: hdf5_declare FILE\n"), 2;
  uint64_t *all = malloc(sizeof(uint64_t) * N * N), *tile = malloc(sizeof(uint64_t) * T * T);
  for (uint64_t i = 0; i < (uint64_t)N * N; ++i) all[i] = i;
  hsize_t dims[2] = {N, N}, chunk[2] = {T, T};
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), space = H5Screate_simple(2, dims, NULL);
  H5Pset_chunk(dcpl, 2, chunk);
  hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t dset = H5Dcreate2(file, "x", H5T_STD_U64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (dset < 0 || H5Dwrite(dset, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) < 0)
    return fprintf(stderr, "hdf5_declare: could not write %s\n", argv[1]), 1;
  H5Dclose(dset), H5Fclose(file), H5Sclose(space), H5Pclose(dcpl), free(all);

  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_prefetch(fapl, NULL); /* instead of H5Pset_fapl_sec2; settings from PFIO_* */
  file = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
  dset = H5Dopen2(file, "x", H5P_DEFAULT);
  int order[TILES];
  for (int k = 0; k < TILES; ++k) order[k] = k * 29 % TILES; /* a scattered order */
  for (int k = 0; k < TILES; ++k) { /* declare every tile first, in reading order */
    hid_t s = tile_space(dset, order[k]);
    if (H5FD_prefetch_declare(dset, s) < 0) return 1; /* HDF5's error stack says why */
    H5Sclose(s);
  }
  hsize_t count[2] = {T, T};
  hid_t mem = H5Screate_simple(2, count, NULL);
  long bad = 0;
  for (int k = 0; k < TILES; ++k) { /* then read them, checking every value */
    hid_t s = tile_space(dset, order[k]);
    hsize_t r0 = (hsize_t)(order[k] / (N / T)) * T, c0 = (hsize_t)(order[k] % (N / T)) * T;
    if (H5Dread(dset, H5T_NATIVE_UINT64, mem, s, H5P_DEFAULT, tile) < 0) return 1;
    for (int i = 0; i < T * T; ++i) bad += tile[i] != (r0 + i / T) * N + c0 + i % T;
    H5Sclose(s);
  }
  H5FD_prefetch_stats_t stats;
  H5FD_prefetch_get_stats(file, &stats);
  printf("hdf5_declare: %d tiles, %ld wrong values; %llu chunks declared, %llu reads unplanned\n",
         TILES, bad, (unsigned long long)stats.declared_extents,
         (unsigned long long)stats.unplanned_reads);
  H5Sclose(mem), H5Dclose(dset), H5Fclose(file), H5Pclose(fapl), free(tile);
  remove(argv[1]);
  return bad != 0 || stats.declared_extents != TILES;
}
