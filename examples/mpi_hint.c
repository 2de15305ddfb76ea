/* MPI-IO through pfio with one hint: every rank reads its share of a file collectively.
 *
 *   mpirun -np 4 mpi_hint FILE   (FILE is made: 32 MiB whose every 8-byte word holds its offset)
 *
 * The only pfio line is the hint prefetch=enable (or name the file "prefetch:FILE"); the reads
 * are plain MPI_File_read_at_all calls. pfio sees that each call repeats the one before at the
 * next offset and reads the next call's bytes while this one is being used. With Open MPI, pfio's
 * io component must be on OMPI_MCA_mca_base_component_path (the .deb installs it where Open MPI
 * looks). Build: mpicc mpi_hint.c
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FILE_SIZE (32 << 20)
#define PIECE (256 << 10) /* each rank's piece of one call */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 2) MPI_Abort(MPI_COMM_WORLD, 2);
  if (rank == 0) { /* the file, whose every word says where it is */
    FILE *out = fopen(argv[1], "w");
    for (uint64_t off = 0; out != NULL && off < FILE_SIZE; off += 8) fwrite(&off, 8, 1, out);
    if (out == NULL || fclose(out) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "prefetch", "enable"); /* the one pfio line */
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDONLY, info, &fh);
  MPI_Info_free(&info);

  uint64_t *buf = malloc(PIECE);
  long bad = 0, calls = FILE_SIZE / ((long)PIECE * size);
  for (long call = 0; call < calls; ++call) { /* rank r reads piece r of each stripe */
    MPI_Offset at = ((MPI_Offset)call * size + rank) * PIECE;
    MPI_File_read_at_all(fh, at, buf, PIECE, MPI_BYTE, MPI_STATUS_IGNORE);
    for (int w = 0; w < PIECE / 8; ++w) bad += buf[w] != (uint64_t)at + 8u * w;
  }
  char value[MPI_MAX_INFO_VAL + 1] = "?";
  int found = 0;
  MPI_File_get_info(fh, &info); /* pfio reports itself in the file's info */
  MPI_Info_get(info, "prefetch", MPI_MAX_INFO_VAL, value, &found);
  MPI_Info_free(&info);
  MPI_File_close(&fh);
  long all_bad = 0;
  MPI_Reduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("mpi_hint: %d ranks, %ld calls each, %ld wrong words, prefetch=%s\n", size, calls,
           all_bad, found ? value : "(not set: the file was not read through pfio)");
    remove(argv[1]);
  }
  free(buf);
  MPI_Finalize();
  return all_bad != 0 || !found;
}
