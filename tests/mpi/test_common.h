/* What the MPI test programs share: the rank globals, "ok NAME" / "FAIL NAME: what" reporting
 * (the exit status counts failures on every rank), pattern files made by rank 0, and opening a
 * file the way MODE selects the driver (prefix: "prefetch:PATH"; hint: info prefetch=enable;
 * env: ROMIO_FSTYPE_FORCE or a ROMIO_HINTS file set by ctest). Defined in test_common.c, which
 * every program links. */
#ifndef PFIO_TESTS_MPI_TEST_COMMON_H
#define PFIO_TESTS_MPI_TEST_COMMON_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"

extern int rank, nprocs, failures;
extern const char *mode, *dir;
extern const char *read_path;     /* when set, every open passes hints prefetch_coll_path and
                                     prefetch_read_path = read_path ("engine" or "cache") */
extern int path_from_environment; /* read_path is set by PFIO_* variables, not by hints */

#define SEED 11
#define SEED2 29
#define SENTINEL 0xEE

/* A failure of check `name` on this rank, printed to stderr and counted. */
void fail(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Every rank's verdict on check `name`, printed once on rank 0 ("ok NAME" when none failed). */
void report(const char *name, int my_failures_before);
/* DIR/name into out. */
void path_of(char *out, size_t size, const char *name);
/* Rank 0 writes `size` pattern bytes with plain POSIX calls; everyone waits for it. */
void make_file(const char *path, uint64_t size, uint64_t seed);
/* Opens `path` the way MODE selects the driver; `extra` may carry more hints. */
int open_selected(const char *path, int amode, MPI_Info extra, MPI_File *fh);
/* open_selected, aborting the job (after a failure of `test`) when the open fails. */
void must_open(const char *test, const char *path, int amode, MPI_Info extra, MPI_File *fh);
/* buf[0 .. n) must hold the pattern bytes of [offset, offset + n). */
void check_range(const char *test, const unsigned char *buf, long long offset, size_t n,
                 uint64_t seed);
/* buf[i] must hold the file byte at off[i], or SENTINEL where off[i] < 0. */
void check_bytes(const char *test, const unsigned char *buf, const long long *off, size_t n,
                 uint64_t seed);
/* The status must count `want` elements of `type`. */
void check_count(const char *test, MPI_Status *st, MPI_Datatype type, int want);
/* MPI_File_get_info's value of `key` into value[0 .. size): 1 when set, 0 when absent or when
 * get_info fails. */
int info_value(MPI_File fh, const char *key, char *value, int size);
/* A counter of the job summary (prefetch_stats) rank 0 wrote at close; -1 when absent. */
long long summary_value(const char *path, const char *key);
/* The same inside the summary's object `object` (e.g. "collective"). */
long long summary_value_in(const char *path, const char *object, const char *key);
/* On rank 0: the summary's `key` must be `want`. */
void expect_summary(const char *test, const char *stats, const char *key, long long want);
/* MPI_Init, and this rank and the rank count in the globals. */
void start(int *argc, char ***argv);
/* Every rank's failures summed, the verdict on rank 0, MPI_Finalize; the exit status. */
int finish(void);

#endif
