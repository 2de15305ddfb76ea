/* MPI-IO with a declared collective plan: tell pfio the next calls before making them.
 *
 *   mpirun -np 4 mpi_declared FILE   (FILE is made: 32 MiB, every 8-byte word holds its offset)
 *
 * Each rank reads one block per call in an order no prediction could follow (scattered), so it
 * declares its calls first with pfio_mpi_file_plan (pfio/pfio_mpi.h, header only): pfio's
 * collective layer then reads every declared call's bytes while the calls before it run. A
 * declaration that turns out wrong costs time, never bytes. Build: mpicc -I<pfio include> ...
 */
#include <pfio/pfio_mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define FILE_SIZE (32 << 20)
#define BLOCK (128 << 10)
#define CALLS 16

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 2) MPI_Abort(MPI_COMM_WORLD, 2);
  if (rank == 0) {
    FILE *out = fopen(argv[1], "w");
    for (uint64_t off = 0; out != NULL && off < FILE_SIZE; off += 8) fwrite(&off, 8, 1, out);
    if (out == NULL || fclose(out) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "prefetch", "enable");
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDONLY, info, &fh);
  MPI_Info_free(&info);

  /* The plan: call k reads block (k * size + rank) * 7 mod blocks, one extent per call. */
  int counts[CALLS];
  MPI_Offset offsets[CALLS], lengths[CALLS];
  const long blocks = FILE_SIZE / BLOCK;
  for (int k = 0; k < CALLS; ++k) {
    counts[k] = 1;
    offsets[k] = (MPI_Offset)(((long)k * size + rank) * 7 % blocks) * BLOCK;
    lengths[k] = BLOCK;
  }
  if (pfio_mpi_file_plan(fh, CALLS, counts, offsets, lengths) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1); /* MPI_File_get_info's "prefetch_plan_result" says why */

  uint64_t *buf = malloc(BLOCK);
  long bad = 0;
  for (int k = 0; k < CALLS; ++k) { /* the declared calls, every word checked */
    MPI_File_read_at_all(fh, offsets[k], buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE);
    for (int w = 0; w < BLOCK / 8; ++w) bad += buf[w] != (uint64_t)offsets[k] + 8u * w;
  }
  char result[MPI_MAX_INFO_VAL + 1] = "?";
  int found = 0;
  MPI_File_get_info(fh, &info);
  MPI_Info_get(info, "prefetch_plan_result", MPI_MAX_INFO_VAL, result, &found);
  MPI_Info_free(&info);
  MPI_File_close(&fh);
  long all_bad = 0;
  MPI_Reduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("mpi_declared: %d ranks, %d calls, %ld wrong words, plan: %s\n", size, CALLS, all_bad,
           found ? result : "(no result: the file was not read through pfio)");
    remove(argv[1]);
  }
  free(buf);
  MPI_Finalize();
  return all_bad != 0 || !found;
}
