/* pfio_mpi.h: one call an MPI application may add to declare its future collective reads.
 *
 * Contract. pfio_mpi_file_plan is collective over the communicator `fh` was opened with. Each
 * rank gives the extents of its next `ncalls` collective reads of `fh` (MPI_File_read_all,
 * MPI_File_read_at_all, MPI_File_read_ordered, ...): counts[k] extents for call k, as absolute
 * file offsets and lengths in bytes, in the order the call's file view visits them; offsets
 * and lengths hold the calls one after the other. Every rank gives the same ncalls (a rank
 * with nothing to read in a call gives counts[k] = 0). pfio's collective layer plans the
 * declared calls ahead of the application, so each call's bytes are read while the calls
 * before it run; declarations add to the ones not yet used. A declaration that turns out wrong
 * costs reading time, never bytes: each call still reads exactly what it asks for.
 * Returns MPI_SUCCESS, or MPI_ERR_ARG when pfio refused the declaration (ranks declaring
 * different numbers of calls, a negative offset or length, more extents than half the budget
 * holds: every rank holds every rank's declared extents, 16 bytes each, until its call is made,
 * within half the least budget of any rank); then nothing is declared on any
 * rank, and MPI_File_get_info's "prefetch_plan_result" says why ("declared N calls" when it
 * was taken). On a file that is not read through
 * pfio (opened without the prefix or hint), or with hint prefetch_collective=disable, the call
 * changes nothing and returns MPI_SUCCESS.
 * Header only, nothing to link: the calls are written to an unlinked temporary file (tmpfile),
 * whose descriptor, inode and device reach the driver (inside the MPI library) through
 * MPI_File_set_info, key "prefetch_plan" ("fd=N ino=I dev=D"); the driver reads and checks
 * every field before MPI_File_set_info returns, and the file is closed then. No address ever
 * travels in an info value: any other "prefetch_plan" value is refused with a message, a copy
 * of the value used later names a closed descriptor (or another file), and MPI_File_get_info
 * never returns the key. Needs POSIX's fileno and fstat, as every MPI platform has.
 */
#ifndef PFIO_MPI_H_INCLUDED
#define PFIO_MPI_H_INCLUDED

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define PFIO_MPI_PLAN_MAGIC 0x32706c6e616c6670ull /* "pflanlp2" little-endian */
#define PFIO_MPI_PLAN_VERSION 2

/* The file's layout, native byte order: this head, then counts[ncalls] (int32), offsets[total]
 * and lengths[total] (int64). */
typedef struct pfio_mpi_plan_head {
  uint64_t magic;  /* PFIO_MPI_PLAN_MAGIC */
  int32_t version; /* PFIO_MPI_PLAN_VERSION */
  int32_t ncalls;
  int64_t total; /* sum of counts */
} pfio_mpi_plan_head;

static inline int pfio_mpi_file_plan(MPI_File fh, int ncalls, const int counts[],
                                     const MPI_Offset offsets[], const MPI_Offset lengths[]) {
  pfio_mpi_plan_head head;
  MPI_Info info;
  char value[MPI_MAX_INFO_VAL + 1];
  struct stat sb;
  int rc, flag = 0, k;
  int64_t i;
  FILE *f = tmpfile();
  head.magic = PFIO_MPI_PLAN_MAGIC;
  head.version = PFIO_MPI_PLAN_VERSION;
  head.ncalls = ncalls < 0 ? -1 : ncalls;
  head.total = 0;
  for (k = 0; k < ncalls; ++k) head.total += counts[k] < 0 ? 0 : counts[k];
  /* A negative count, offset or length is written as it is: the driver refuses it by name. */
  rc = f != NULL && fwrite(&head, sizeof head, 1, f) == 1;
  for (k = 0; rc && k < ncalls; ++k) {
    int32_t c = counts[k];
    rc = fwrite(&c, sizeof c, 1, f) == 1;
  }
  for (i = 0; rc && i < head.total; ++i) {
    int64_t v = (int64_t)offsets[i];
    rc = fwrite(&v, sizeof v, 1, f) == 1;
  }
  for (i = 0; rc && i < head.total; ++i) {
    int64_t v = (int64_t)lengths[i];
    rc = fwrite(&v, sizeof v, 1, f) == 1;
  }
  rc = rc && fflush(f) == 0 && fstat(fileno(f), &sb) == 0;
  if (rc)
    snprintf(value, sizeof value, "fd=%d ino=%llu dev=%llu", fileno(f),
             (unsigned long long)sb.st_ino, (unsigned long long)sb.st_dev);
  else /* the driver refuses this value, on this rank; every other rank refuses with it */
    snprintf(value, sizeof value, "unwritten: no temporary file for the plan");
  MPI_Info_create(&info);
  MPI_Info_set(info, "prefetch_plan", value);
  rc = MPI_File_set_info(fh, info);
  MPI_Info_free(&info);
  if (f != NULL) fclose(f);
  if (rc != MPI_SUCCESS) return rc;
  /* Open MPI 4.1 does not pass set_info's errors on: the driver's verdict is in the info. */
  if (MPI_File_get_info(fh, &info) != MPI_SUCCESS) return MPI_SUCCESS;
  MPI_Info_get(info, "prefetch_plan_result", MPI_MAX_INFO_VAL, value, &flag);
  MPI_Info_free(&info);
  return flag && strncmp(value, "refused", 7) == 0 ? MPI_ERR_ARG : MPI_SUCCESS;
}

#endif
