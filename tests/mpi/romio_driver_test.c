/* The ad_prefetch ROMIO driver under mpirun/mpiexec: every byte read is checked against the
 * self-verifying pattern, for contiguous, vector, subarray, indexed and struct file views,
 * independent and collective, at and past EOF, zero-length, odd sizes and offsets; read after
 * write (same rank, and another rank after sync-barrier-sync); files truncated and extended;
 * hints round trip, bad values and values differing between ranks; stats files.
 *
 * usage: romio_driver_test MODE DIR
 *   MODE prefix    files are opened as "prefetch:PATH"
 *        hint      files are opened with info prefetch=enable
 *        env       ROMIO_FSTYPE_FORCE=prefetch: or a ROMIO_HINTS file selects (set by ctest)
 *        engine    prefix, with reads through pfio's engine instead of the page cache
 *                  (hints prefetch_read_path=engine, prefetch_coll_path=engine)
 * Each check prints "ok NAME" or "FAIL NAME: what"; the exit status is the number of failures
 * (on any rank), so ctest fails when one check does.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pattern.h"
#include "test_common.h"

static void test_selection(void)
{
    const char *test = "selection";
    int before = failures;
    char path[1024], value[64];
    MPI_File fh;
    path_of(path, sizeof path, "select.dat");
    make_file(path, 4096, SEED);
    must_open(test, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    if (!info_value(fh, "prefetch", value, sizeof value) || strcmp(value, "enable") != 0)
        fail(test, "the file did not reach ad_prefetch (info key prefetch absent)");
    MPI_File_close(&fh);
    if (strcmp(mode, "env") != 0) {
        /* a plain file in the same process keeps its stock driver */
        if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) !=
            MPI_SUCCESS) {
            fail(test, "plain open of %s failed", path);
        } else {
            if (info_value(fh, "prefetch", value, sizeof value))
                fail(test, "a plain file went to ad_prefetch (prefetch = %s)", value);
            MPI_File_close(&fh);
        }
    }
    report(test, before);
}

/* ---- contiguous ------------------------------------------------------------------------ */

static void test_contiguous(void)
{
    const char *test = "contiguous reads (odd offsets, at and past EOF, zero length)";
    int before = failures;
    const long long size = (1 << 20) + 13;
    char path[1024];
    unsigned char *buf = malloc(100000);
    MPI_File fh;
    MPI_Status st;
    long long off = 12345 + 1000LL * rank;
    path_of(path, sizeof path, "contig.dat");
    make_file(path, (uint64_t)size, SEED);
    must_open(test, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_read_at(fh, off, buf, 77777, MPI_BYTE, &st);
    check_count(test, &st, MPI_BYTE, 77777);
    check_range(test, buf, off, 77777, SEED);
    MPI_File_read_at(fh, size - 100, buf, 1000, MPI_BYTE, &st);
    check_count(test, &st, MPI_BYTE, 100);
    check_range(test, buf, size - 100, 100, SEED);
    MPI_File_read_at(fh, size + 5, buf, 1000, MPI_BYTE, &st);
    check_count(test, &st, MPI_BYTE, 0);
    MPI_File_read_at(fh, 8, buf, 0, MPI_BYTE, &st);
    check_count(test, &st, MPI_BYTE, 0);
    /* the individual pointer: sequential reads of an odd size to the end of the file */
    {
        long long pos = 0;
        int got = 0;
        MPI_File_seek(fh, 0, MPI_SEEK_SET);
        do {
            MPI_File_read(fh, buf, 4093, MPI_BYTE, &st);
            MPI_Get_count(&st, MPI_BYTE, &got);
            check_range(test, buf, pos, (size_t)got, SEED);
            pos += got;
        } while (got == 4093 && failures == before);
        if (pos != size)
            fail(test, "sequential reads delivered %lld bytes, expected %lld", pos, size);
    }
    /* a strided run the history predictor plans ahead, then a break in the pattern */
    {
        int k;
        for (k = 0; k < 60 && failures == before; ++k) {
            long long o = 3LL * 4096 * k + 8 * rank;
            if (k == 40)
                o = 5000 + rank; /* the prediction is wrong here: bytes stay right */
            MPI_File_read_at(fh, o, buf, 4096, MPI_BYTE, &st);
            check_count(test, &st, MPI_BYTE, 4096);
            check_range(test, buf, o, 4096, SEED);
        }
    }
    MPI_File_close(&fh);
    free(buf);
    report(test, before);
}

/* ---- file views ------------------------------------------------------------------------ */

/* Reads `count` elements of `memtype` through the view set on fh, independently and
 * collectively, and checks them against off[] (one entry per byte of the memory extent). */
static void read_view_both_ways(const char *test, MPI_File fh, int count, MPI_Datatype memtype,
                                size_t mem_bytes, const long long *off, int data_bytes)
{
    unsigned char *buf = malloc(mem_bytes);
    MPI_Status st;
    MPI_Request rq;
    int pass;
    for (pass = 0; pass < 4; ++pass) {
        memset(buf, SENTINEL, mem_bytes);
        if (pass == 0) {
            MPI_File_read_at(fh, 0, buf, count, memtype, &st);
        } else if (pass == 1) {
            MPI_File_read_at_all(fh, 0, buf, count, memtype, &st);
        } else if (pass == 2) {
            MPI_File_seek(fh, 0, MPI_SEEK_SET);
            MPI_File_read_all(fh, buf, count, memtype, &st);
        } else {
            MPI_File_iread_at(fh, 0, buf, count, memtype, &rq);
            MPI_Wait(&rq, &st);
        }
        {
            static const char *const how[] = {"read_at", "read_at_all", "read_all", "iread_at"};
            int got = -1;
            MPI_Get_count(&st, MPI_BYTE, &got);
            if (got != data_bytes)
                fail(test, "%s: MPI_Get_count = %d bytes, expected %d", how[pass], got, data_bytes);
            check_bytes(test, buf, off, mem_bytes, SEED);
        }
    }
    free(buf);
}

/* A vector view of `nblocks` blocks of B bytes, rank r's every (spread * P)-th block from
 * displacement 7 + r * B, read both ways, then through the individual pointer in two reads. */
static void check_vector_view(MPI_File fh, const char *test, int B, int nblocks, int spread)
{
    const int stride = spread * nprocs * B;
    MPI_Datatype vec, ftype;
    long long *off = malloc(sizeof *off * (size_t)B * nblocks);
    int k, before = failures;
    MPI_Type_vector(nblocks, B, stride, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)nblocks * stride, &ftype);
    MPI_Type_commit(&ftype);
    MPI_File_set_view(fh, 7 + (MPI_Offset)rank * B, MPI_BYTE, ftype, "native", MPI_INFO_NULL);
    for (k = 0; k < B * nblocks; ++k)
        off[k] = 7 + (long long)rank * B + (long long)(k / B) * stride + k % B;
    read_view_both_ways(test, fh, B * nblocks, MPI_BYTE, (size_t)B * nblocks, off, B * nblocks);
    { /* two reads through the individual pointer continue where the first stopped */
        unsigned char *buf = malloc((size_t)B * nblocks);
        MPI_Status st;
        int half = B * nblocks / 2 + 333;
        MPI_File_seek(fh, 0, MPI_SEEK_SET);
        MPI_File_read(fh, buf, half, MPI_BYTE, &st);
        MPI_File_read(fh, buf + half, B * nblocks - half, MPI_BYTE, &st);
        check_count(test, &st, MPI_BYTE, B * nblocks - half);
        check_bytes(test, buf, off, (size_t)B * nblocks, SEED);
        free(buf);
    }
    MPI_Type_free(&ftype);
    MPI_Type_free(&vec);
    free(off);
    report(test, before);
}

static void test_views(void)
{
    int before;
    char path[1024];
    const long long size = (4 << 20) + 7;
    MPI_File fh;
    path_of(path, sizeof path, "views.dat");
    make_file(path, (uint64_t)size, SEED);
    must_open("views", path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);

    /* vector: blocks of B bytes, rank r owns every P-th block, displacement 7 */
    check_vector_view(fh, "vector view", 1000, 300, 1);
    /* the same, sparse: 64-byte blocks 40 * P blocks apart (read piece by piece, not sieved) */
    check_vector_view(fh, "sparse vector view", 64, 200, 40);
    { /* subarray: a G x C matrix of doubles split by column blocks */
        const char *test = "subarray view (column blocks of a matrix of doubles)";
        int gsizes[2] = {256, 64 * nprocs}, subs[2] = {256, 64}, starts[2] = {0, 64 * rank};
        MPI_Datatype ftype;
        size_t nbytes = (size_t)256 * 64 * 8, k;
        long long *off = malloc(sizeof *off * nbytes);
        before = failures;
        MPI_Type_create_subarray(2, gsizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &ftype);
        MPI_Type_commit(&ftype);
        MPI_File_set_view(fh, 0, MPI_DOUBLE, ftype, "native", MPI_INFO_NULL);
        for (k = 0; k < nbytes; ++k) {
            size_t e = k / 8, row = e / 64, col = (size_t)64 * rank + e % 64;
            off[k] = (long long)((row * (size_t)gsizes[1] + col) * 8 + k % 8);
        }
        read_view_both_ways(test, fh, 256 * 64, MPI_DOUBLE, nbytes, off, (int)nbytes);
        MPI_Type_free(&ftype);
        free(off);
        report(test, before);
    }
    { /* indexed file type, every-other-byte memory type */
        const char *test = "indexed view into a noncontiguous memory type";
        int lens[3] = {3, 5, 11}, displs[3] = {0, 10, 40};
        MPI_Datatype idx, ftype, mtype;
        const int tiles = 500, per = 19;
        size_t mem_extent = (size_t)(2 * per - 1), mem_bytes = mem_extent * tiles, j;
        long long *off = malloc(sizeof *off * mem_bytes);
        before = failures;
        MPI_Type_indexed(3, lens, displs, MPI_BYTE, &idx);
        MPI_Type_create_resized(idx, 0, 64, &ftype);
        MPI_Type_commit(&ftype);
        MPI_Type_vector(per, 1, 2, MPI_BYTE, &mtype);
        MPI_Type_commit(&mtype);
        MPI_File_set_view(fh, 5 + 7 * (MPI_Offset)rank, MPI_BYTE, ftype, "native", MPI_INFO_NULL);
        for (j = 0; j < mem_bytes; ++j)
            off[j] = -1;
        for (j = 0; j < (size_t)per * tiles; ++j) {
            size_t t = j / per, w = j % per, in = w < 3 ? w : w < 8 ? 10 + (w - 3) : 40 + (w - 8);
            off[t * mem_extent + (j % per) * 2] = 5 + 7LL * rank + (long long)(t * 64 + in);
        }
        read_view_both_ways(test, fh, tiles, mtype, mem_bytes, off, per * tiles);
        MPI_Type_free(&mtype);
        MPI_Type_free(&ftype);
        MPI_Type_free(&idx);
        free(off);
        report(test, before);
    }
    { /* struct file type: 4 bytes at 0 and 8 bytes at 16 of every 32 */
        const char *test = "struct view";
        int lens[2] = {4, 8};
        MPI_Aint displs[2] = {0, 16};
        MPI_Datatype types[2] = {MPI_BYTE, MPI_BYTE}, st, ftype;
        const int n = 12 * 2000;
        long long *off = malloc(sizeof *off * n);
        int k;
        before = failures;
        MPI_Type_create_struct(2, lens, displs, types, &st);
        MPI_Type_create_resized(st, 0, 32, &ftype);
        MPI_Type_commit(&ftype);
        MPI_File_set_view(fh, 32LL * 2000 * rank, MPI_BYTE, ftype, "native", MPI_INFO_NULL);
        for (k = 0; k < n; ++k)
            off[k] = 32LL * 2000 * rank + 32LL * (k / 12) + (k % 12 < 4 ? k % 12 : 16 + k % 12 - 4);
        read_view_both_ways(test, fh, n, MPI_BYTE, (size_t)n, off, n);
        MPI_Type_free(&ftype);
        MPI_Type_free(&st);
        free(off);
        report(test, before);
    }
    { /* a view that runs past the end of the file: the count says how much came */
        const char *test = "view reaching past EOF";
        MPI_Datatype vec, ftype;
        unsigned char *buf = malloc(1 << 20);
        MPI_Status st;
        int got = 0, k;
        before = failures;
        MPI_Type_vector(2, 4096, 8192, MPI_BYTE, &vec);
        MPI_Type_create_resized(vec, 0, 16384, &ftype);
        MPI_Type_commit(&ftype);
        MPI_File_set_view(fh, size - 20000, MPI_BYTE, ftype, "native", MPI_INFO_NULL);
        MPI_File_read_at(fh, 0, buf, 1 << 16, MPI_BYTE, &st);
        MPI_Get_count(&st, MPI_BYTE, &got);
        /* bytes at size-20000 + {0..4095, 8192..12287, 16384..20479 (cut at 20000)} */
        if (got != 4096 + 4096 + (20000 - 16384))
            fail(test, "MPI_Get_count = %d, expected %d", got, 4096 + 4096 + 20000 - 16384);
        for (k = 0; k < got && failures == before; ++k) {
            long long o = size - 20000 + (k / 4096) * 8192LL + k % 4096;
            if (buf[k] != pattern_byte((uint64_t)o, SEED))
                fail(test, "byte %d (file offset %lld) is wrong", k, o);
        }
        MPI_Type_free(&ftype);
        MPI_Type_free(&vec);
        free(buf);
        report(test, before);
    }
    MPI_File_close(&fh);
}

/* ---- shared pointers and nonblocking --------------------------------------------------- */

static void test_shared_and_nonblocking(void)
{
    const char *test = "read_ordered, read_shared, iread, iread_all";
    int before = failures;
    char path[1024];
    const int L = 70001;
    unsigned char *buf = malloc((size_t)L);
    MPI_File fh;
    MPI_Status st;
    MPI_Request rq;
    path_of(path, sizeof path, "shared.dat");
    make_file(path, (uint64_t)L * (uint64_t)nprocs * 3, SEED);
    must_open(test, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_read_ordered(fh, buf, L, MPI_BYTE, &st);
    check_count(test, &st, MPI_BYTE, L);
    check_range(test, buf, (long long)L * rank, (size_t)L, SEED);
    MPI_Barrier(MPI_COMM_WORLD);
    /* read_shared: each rank gets some L bytes at the shared pointer; order is not fixed */
    {
        MPI_Offset pos;
        MPI_File_get_position_shared(fh, &pos);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_read_shared(fh, buf, 10, MPI_BYTE, &st);
        check_count(test, &st, MPI_BYTE, 10);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_iread_at(fh, 2LL * L * nprocs + 3 + rank, buf, L / 2, MPI_BYTE, &rq);
    MPI_Wait(&rq, &st);
    check_count(test, &st, MPI_BYTE, L / 2);
    check_range(test, buf, 2LL * L * nprocs + 3 + rank, (size_t)L / 2, SEED);
    MPI_File_seek(fh, (MPI_Offset)L * (nprocs + rank), MPI_SEEK_SET);
    MPI_File_iread_all(fh, buf, L, MPI_BYTE, &rq);
    MPI_Wait(&rq, &st);
    check_count(test, &st, MPI_BYTE, L);
    check_range(test, buf, (long long)L * (nprocs + rank), (size_t)L, SEED);
    MPI_File_close(&fh);
    free(buf);
    report(test, before);
}

/* ---- writes and consistency ------------------------------------------------------------ */

static void test_read_after_write(void)
{
    const char *test = "read after write (same rank; other rank after sync-barrier-sync)";
    int before = failures;
    char path[1024];
    const int L = 1 << 16;
    unsigned char *buf = malloc((size_t)L), *w = malloc((size_t)L);
    long long mine = (long long)L * 4 * rank;
    MPI_File fh;
    MPI_Status st;
    int k;
    path_of(path, sizeof path, "raw.dat");
    make_file(path, (uint64_t)L * 4 * (uint64_t)nprocs, SEED);
    must_open(test, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    /* read it all (sequentially, so pfio plans and prefetches ahead), then overwrite a part */
    for (k = 0; k < 4; ++k)
        MPI_File_read_at(fh, mine + (long long)k * L, buf, L, MPI_BYTE, &st);
    pattern_fill(w, (uint64_t)mine + L, (uint64_t)L, SEED2);
    MPI_File_write_at(fh, mine + L, w, L, MPI_BYTE, &st);
    MPI_File_read_at(fh, mine + L, buf, L, MPI_BYTE, &st);
    check_range(test, buf, mine + L, (size_t)L, SEED2);
    MPI_File_read_at(fh, mine + 2 * L, buf, L, MPI_BYTE, &st);
    check_range(test, buf, mine + 2 * L, (size_t)L, SEED);
    /* another rank's write: rank r+1 reads (and prefetches) r's block 3, r rewrites it */
    if (nprocs > 1) {
        int right = (rank + 1) % nprocs, left = (rank + nprocs - 1) % nprocs;
        long long theirs = (long long)L * 4 * left + 3LL * L;
        for (k = 0; k < 3; ++k) /* a sequential run into the block: planned ahead */
            MPI_File_read_at(fh, theirs - 2LL * L + (long long)k * L, buf, L, MPI_BYTE, &st);
        pattern_fill(w, (uint64_t)(mine + 3LL * L), (uint64_t)L, SEED2);
        MPI_File_write_at(fh, mine + 3LL * L, w, L, MPI_BYTE, &st);
        MPI_File_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_sync(fh);
        MPI_File_read_at(fh, theirs, buf, L, MPI_BYTE, &st);
        check_count(test, &st, MPI_BYTE, L);
        check_range(test, buf, theirs, (size_t)L, SEED2);
        (void)right;
    }
    /* a collective write over what was prefetched, then a collective read */
    pattern_fill(w, (uint64_t)mine, (uint64_t)L, SEED2);
    MPI_File_write_at_all(fh, mine, w, L, MPI_BYTE, &st);
    MPI_File_read_at_all(fh, mine, buf, L, MPI_BYTE, &st);
    check_range(test, buf, mine, (size_t)L, SEED2);
    MPI_File_close(&fh);
    free(buf);
    free(w);
    report(test, before);
}

static void test_create_write_read(void)
{
    const char *test = "create through the driver, write_all, read back";
    int before = failures;
    char path[1024];
    const int L = 123457;
    unsigned char *w = malloc((size_t)L), *r = malloc((size_t)L);
    MPI_File fh;
    MPI_Status st;
    path_of(path, sizeof path, "created.dat");
    if (rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    must_open(test, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    pattern_fill(w, (uint64_t)L * rank, (uint64_t)L, SEED);
    MPI_File_write_at_all(fh, (MPI_Offset)L * rank, w, L, MPI_BYTE, &st);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    /* every rank reads its right neighbour's part */
    MPI_File_read_at(fh, (MPI_Offset)L * ((rank + 1) % nprocs), r, L, MPI_BYTE, &st);
    check_count(test, &st, MPI_BYTE, L);
    check_range(test, r, (long long)L * ((rank + 1) % nprocs), (size_t)L, SEED);
    MPI_File_close(&fh);
    free(w);
    free(r);
    report(test, before);
}

static void test_size_changes(void)
{
    const char *test = "file truncated and extended (between opens and by set_size)";
    int before = failures;
    char path[1024];
    const long long small = 100000, big = 300001;
    unsigned char *buf = malloc((size_t)big);
    MPI_File fh;
    MPI_Status st;
    path_of(path, sizeof path, "resize.dat");
    make_file(path, (uint64_t)small, SEED);
    must_open(test, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_read_at(fh, 0, buf, (int)big, MPI_BYTE, &st);
    check_count(test, &st, MPI_BYTE, (int)small);
    MPI_File_close(&fh);
    make_file(path, (uint64_t)big, SEED); /* extended between opens */
    must_open(test, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_read_at(fh, small - 10, buf, 20000, MPI_BYTE, &st);
    check_count(test, &st, MPI_BYTE, 20000);
    check_range(test, buf, small - 10, 20000, SEED);
    MPI_File_set_size(fh, 5000); /* truncated while open */
    MPI_File_read_at(fh, 4000, buf, 20000, MPI_BYTE, &st);
    check_count(test, &st, MPI_BYTE, 1000);
    check_range(test, buf, 4000, 1000, SEED);
    /* preallocate keeps the bytes there and the size grows; the new bytes read as zeros */
    MPI_File_preallocate(fh, 70000);
    MPI_File_read_at(fh, 0, buf, 80000, MPI_BYTE, &st);
    check_count(test, &st, MPI_BYTE, 70000);
    check_range(test, buf, 0, 5000, SEED);
    {
        int k;
        for (k = 5000; k < 70000; ++k)
            if (buf[k] != 0) {
                fail(test, "byte %d after MPI_File_preallocate is 0x%02x, expected 0", k, buf[k]);
                break;
            }
    }
    MPI_File_close(&fh);
    /* MPI_File_delete of a prefetch file removes it */
    if (rank == 0) {
        char name[1100];
        struct stat sb;
        snprintf(name, sizeof name, "%s%s", strcmp(mode, "prefix") == 0 ? "prefetch:" : "", path);
        if (MPI_File_delete(name, MPI_INFO_NULL) != MPI_SUCCESS)
            fail(test, "MPI_File_delete(%s) failed", name);
        else if (stat(path, &sb) == 0)
            fail(test, "%s still exists after MPI_File_delete", path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    report(test, before);
}

/* How many of this process's descriptors are open on `path`. */
static int descriptors_on(const char *path)
{
    char fds[320], target[PATH_MAX], real[PATH_MAX];
    struct dirent *e;
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL || realpath(path, real) == NULL) {
        if (d != NULL)
            closedir(d);
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        ssize_t len;
        if (e->d_name[0] == '.')
            continue;
        snprintf(fds, sizeof fds, "/proc/self/fd/%s", e->d_name);
        len = readlink(fds, target, sizeof target - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        n += strcmp(target, real) == 0;
    }
    closedir(d);
    return n;
}

/* pfio's context and its own read-only descriptor start at a file's first read: an open the
 * program never reads through (a write, a look at the size) costs none of it. */
static void test_context_at_first_read(void)
{
    const char *test = "context at the first read: an open never read opens nothing of pfio's";
    int before = failures, after_open, after_read;
    char path[1024];
    unsigned char buf[8192];
    MPI_File fh;
    MPI_Offset size = 0;
    MPI_Status st;
    path_of(path, sizeof path, "first-read.dat");
    make_file(path, 1 << 20, SEED);
    must_open(test, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_get_size(fh, &size);
    after_open = descriptors_on(path);
    MPI_File_read_at(fh, 8192LL * rank, buf, sizeof buf, MPI_BYTE, &st);
    check_range(test, buf, 8192LL * rank, sizeof buf, SEED);
    after_read = descriptors_on(path);
    if (size != 1 << 20 || after_open != 1 || after_read < 2)
        fail(test,
             "size %lld, descriptors on %s: %d after open, %d after the first read: expected "
             "%d, 1 (ROMIO's) and at least 2 (pfio's own from the first read on)",
             (long long)size, path, after_open, after_read, 1 << 20);
    MPI_File_close(&fh);
    report(test, before);
}

/* ---- hints and stats: romio_driver_hints.c ---------------------------------------------- */

void test_hints(void);
void test_stats(void);
void test_interleaved_blocks(void);
void test_stock_path_extents(void);

int main(int argc, char **argv)
{
    start(&argc, &argv);
    if (argc != 3 || (strcmp(argv[1], "prefix") && strcmp(argv[1], "hint") &&
                      strcmp(argv[1], "env") && strcmp(argv[1], "engine"))) {
        if (rank == 0)
            fprintf(stderr, "usage: %s prefix|hint|env|engine DIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    mode = strcmp(argv[1], "engine") == 0 ? "prefix" : argv[1];
    if (strcmp(argv[1], "engine") == 0)
        read_path = "engine";
    dir = argv[2];
    test_selection();
    test_contiguous();
    test_views();
    test_shared_and_nonblocking();
    test_read_after_write();
    test_create_write_read();
    test_size_changes();
    test_context_at_first_read();
    test_hints();
    test_stats();
    test_interleaved_blocks();
    test_stock_path_extents();
    return finish();
}
