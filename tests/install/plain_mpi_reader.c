/* An MPI-IO program that knows nothing of pfio: it opens argv[1] with MPI_INFO_NULL, reads it
 * in MPI_File_read_at_all calls (each rank its piece of every stripe) and checks every 8-byte word
 * (word i holds its offset 8 * i). Given the name "prefetch:PATH" it reads through pfio with no
 * change to its code. Prints whether the file's info says pfio read it.
 *   plain_mpi_reader NAME SIZE_MIB       (rank 0 makes PATH first)
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIECE (128 << 10)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 3) MPI_Abort(MPI_COMM_WORLD, 2);
  const char *path = strncmp(argv[1], "prefetch:", 9) == 0 ? argv[1] + 9 : argv[1];
  long bytes = atol(argv[2]) << 20;
  if (rank == 0) {
    FILE *out = fopen(path, "w");
    for (uint64_t off = 0; out != NULL && off < (uint64_t)bytes; off += 8) fwrite(&off, 8, 1, out);
    if (out == NULL || fclose(out) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File fh;
  if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  uint64_t *buf = malloc(PIECE);
  long bad = 0;
  for (long call = 0; call < bytes / ((long)PIECE * size); ++call) {
    MPI_Offset at = ((MPI_Offset)call * size + rank) * PIECE;
    MPI_File_read_at_all(fh, at, buf, PIECE, MPI_BYTE, MPI_STATUS_IGNORE);
    for (int w = 0; w < PIECE / 8; ++w) bad += buf[w] != (uint64_t)at + 8u * w;
  }
  MPI_Info info;
  char value[MPI_MAX_INFO_VAL + 1] = "";
  int found = 0;
  MPI_File_get_info(fh, &info);
  MPI_Info_get(info, "prefetch", MPI_MAX_INFO_VAL, value, &found);
  MPI_Info_free(&info);
  MPI_File_close(&fh);
  long all_bad = 0;
  MPI_Reduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("plain_mpi_reader: %ld wrong words, prefetch=%s\n", all_bad, found ? value : "-");
  free(buf);
  MPI_Finalize();
  return all_bad != 0;
}
