/* What the MPI test programs share: the rank globals, "ok NAME" / "FAIL NAME: what" reporting
 * (the exit status counts failures on every rank), pattern files made by rank 0, and opening a
 * file the way MODE selects the driver (prefix: "prefetch:PATH"; hint: info prefetch=enable;
 * env: ROMIO_FSTYPE_FORCE or a ROMIO_HINTS file set by ctest). One program includes it once. */
#ifndef PFIO_TESTS_MPI_TEST_COMMON_H
#define PFIO_TESTS_MPI_TEST_COMMON_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"

static int rank, nprocs, failures;
static const char *mode, *dir;
static const char *read_path;     /* when set, every open passes hints prefetch_coll_path and
                                     prefetch_read_path = read_path ("engine" or "cache") */
static int path_from_environment; /* read_path is set by PFIO_* variables, not by hints */

#define SEED 11
#define SEED2 29
#define SENTINEL 0xEE

static void fail(const char *name, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "FAIL %s (rank %d of %d, mode %s): ", name, rank, nprocs, mode);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    ++failures;
}

/* Every rank's verdict, printed once on rank 0. */
static void report(const char *name, int my_failures_before)
{
    int bad = failures > my_failures_before, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any)
        printf("ok %s\n", name);
    fflush(stdout);
}

static void path_of(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", dir, name);
}

/* Rank 0 writes `size` pattern bytes with plain POSIX calls; everyone waits for it. */
static void make_file(const char *path, uint64_t size, uint64_t seed)
{
    if (rank == 0) {
        FILE *f = fopen(path, "wb");
        unsigned char *buf = malloc(1 << 20);
        uint64_t done = 0;
        if (f == NULL || buf == NULL) {
            fprintf(stderr, "cannot create %s\n", path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        while (done < size) {
            uint64_t n = size - done < (1 << 20) ? size - done : (1 << 20);
            pattern_fill(buf, done, n, seed);
            if (fwrite(buf, 1, n, f) != n)
                MPI_Abort(MPI_COMM_WORLD, 2);
            done += n;
        }
        fclose(f);
        free(buf);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Opens `path` the way MODE selects the driver; `info` may carry more hints. */
static int open_selected(const char *path, int amode, MPI_Info extra, MPI_File *fh)
{
    char name[1100];
    MPI_Info info;
    int rc;
    if (extra != MPI_INFO_NULL)
        MPI_Info_dup(extra, &info);
    else
        MPI_Info_create(&info);
    if (strcmp(mode, "prefix") == 0)
        snprintf(name, sizeof name, "prefetch:%s", path);
    else
        snprintf(name, sizeof name, "%s", path);
    if (strcmp(mode, "hint") == 0)
        MPI_Info_set(info, "prefetch", "enable");
    if (read_path != NULL && !path_from_environment) {
        MPI_Info_set(info, "prefetch_coll_path", (char *)read_path);
        MPI_Info_set(info, "prefetch_read_path", (char *)read_path);
    }
    rc = MPI_File_open(MPI_COMM_WORLD, name, amode, info, fh);
    MPI_Info_free(&info);
    return rc;
}

static void must_open(const char *test, const char *path, int amode, MPI_Info extra, MPI_File *fh)
{
    int rc = open_selected(path, amode, extra, fh);
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        fail(test, "MPI_File_open(%s): %s", path, msg);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

static void check_range(const char *test, const unsigned char *buf, long long offset, size_t n,
                        uint64_t seed)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        if (buf[i] != pattern_byte((uint64_t)(offset + (long long)i), seed)) {
            fail(test, "byte %zu (file offset %lld) is 0x%02x, expected 0x%02x", i,
                 offset + (long long)i, buf[i], pattern_byte((uint64_t)offset + i, seed));
            return;
        }
    }
}

/* ---- selection ------------------------------------------------------------------------- */

/* buf[i] must hold the file byte at off[i], or SENTINEL where off[i] < 0. */
__attribute__((unused)) static void check_bytes(const char *test, const unsigned char *buf,
                                                const long long *off, size_t n, uint64_t seed)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        unsigned char want = off[i] < 0 ? SENTINEL : pattern_byte((uint64_t)off[i], seed);
        if (buf[i] != want) {
            fail(test, "byte %zu (file offset %lld) is 0x%02x, expected 0x%02x", i, off[i], buf[i],
                 want);
            return;
        }
    }
}

__attribute__((unused)) static void check_count(const char *test, MPI_Status *st, MPI_Datatype type,
                                                int want)
{
    int got = -1;
    MPI_Get_count(st, type, &got);
    if (got != want)
        fail(test, "MPI_Get_count = %d, expected %d", got, want);
}

/* MPI_Init, and this rank and the rank count in the globals. */
static void start(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
}

/* Every rank's failures summed, the verdict on rank 0, MPI_Finalize; the exit status. */
static int finish(void)
{
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %d failure(s), %d rank(s), mode %s\n", all ? "FAILED" : "PASSED", all, nprocs,
               mode);
    MPI_Finalize();
    return all > 255 ? 255 : all;
}

#endif
