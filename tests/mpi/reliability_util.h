/* What reliability_test.c's cases share: changing a file as another process would, waiting
 * past pfio's racy window, a read's byte count, and what an open printed on rank 0's stderr.
 * Included once, after test_common.h (rank, fail, path_of, open_selected). */
#ifndef PFIO_TESTS_MPI_RELIABILITY_UTIL_H
#define PFIO_TESTS_MPI_RELIABILITY_UTIL_H

#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "pattern.h"

/* Longer than the window after a file's last change in which pfio's look at it never vouches
 * for it (pfio/pfio.h: 100 ms on local file systems). */
static void wait_past_racy_window(void)
{
    struct timespec ts = {0, 200 * 1000 * 1000};
    MPI_Barrier(MPI_COMM_WORLD);
    nanosleep(&ts, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0 rewrites [0, size) with `seed` through POSIX (another process, as far as the reader's
 * handle knows), keeping the size; everyone waits. */
static void rewrite_posix(const char *path, uint64_t size, uint64_t seed)
{
    if (rank == 0) {
        int fd = open(path, O_WRONLY);
        unsigned char *buf = malloc(1 << 20);
        uint64_t off;
        for (off = 0; fd >= 0 && off < size; off += 1 << 20) {
            uint64_t n = size - off < (1 << 20) ? size - off : (1 << 20);
            pattern_fill(buf, off, n, seed);
            if (pwrite(fd, buf, n, (off_t)off) != (ssize_t)n)
                MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (fd < 0 || fsync(fd) != 0)
            MPI_Abort(MPI_COMM_WORLD, 2);
        close(fd);
        free(buf);
    }
}

/* Rank 0 rewrites the file through a second MPI handle of its own (plain UFS), then syncs it. */
static void rewrite_mpi(const char *path, uint64_t size, uint64_t seed)
{
    if (rank == 0) {
        MPI_File w;
        MPI_Status st;
        unsigned char *buf = malloc(size);
        pattern_fill(buf, 0, size, seed);
        if (MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &w) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 2);
        MPI_File_write_at(w, 0, buf, (int)size, MPI_BYTE, &st);
        MPI_File_sync(w);
        MPI_File_close(&w);
        free(buf);
    }
}

static void expect_count(const char *test, const char *call, long long off, MPI_Status *st,
                         int want)
{
    int got = -1;
    MPI_Get_count(st, MPI_BYTE, &got);
    if (got != want)
        fail(test, "%s at %lld: %d bytes, expected %d", call, off, got, want);
}

/* What rank 0's stderr received while `path` was opened (prefix) with `key` = `value`. */
static void stderr_of_open(const char *path, const char *key, const char *value, char *out,
                           size_t size)
{
    char capture[1100];
    int saved = -1, fd;
    MPI_File fh;
    MPI_Info info;
    out[0] = '\0';
    path_of(capture, sizeof capture, "stderr.txt");
    if (rank == 0) {
        fflush(stderr);
        saved = dup(2);
        fd = open(capture, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        close(fd);
    }
    MPI_Info_create(&info);
    MPI_Info_set(info, (char *)key, (char *)value);
    if (open_selected(path, MPI_MODE_RDONLY, info, &fh) == MPI_SUCCESS)
        MPI_File_close(&fh);
    MPI_Info_free(&info);
    if (rank == 0) {
        FILE *f;
        size_t n = 0;
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        f = fopen(capture, "r");
        if (f != NULL) {
            n = fread(out, 1, size - 1, f);
            fclose(f);
        }
        out[n] = '\0';
    }
}

#endif
