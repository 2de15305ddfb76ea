/* pfio-mpi-bench: reads one shared file with MPI-IO, in calls of a fixed number of blocks per
 * rank, the way restart and analysis codes do, and reports the bandwidth. The same program runs
 * under every MPI-IO implementation being compared; which one serves the file is chosen by the
 * file name (prefetch:PATH for pfio's driver) and by the launcher (Open MPI's io component).
 *
 * usage: pfio-mpi-bench --file PATH [--size BYTES] [--block BYTES] [--per-call N]
 *                       [--pattern interleaved|random] [--mode collective|independent]
 *                       [--label NAME] [--prefix] [--make-only] [--json PATH]
 *   interleaved  block b belongs to rank b % P, and call c of every rank reads the rank's
 *                blocks c*N .. c*N+N-1 (IO500's ior-hard shape)
 *   random       a seeded permutation of all blocks dealt out to ranks and calls
 *   collective   each call is MPI_File_read_all through a file view of the call's blocks
 *   independent  each call is MPI_File_read through the same view
 * Before the run rank 0 writes the file if it is missing or has another size (self-verifying:
 * each 8-byte word encodes its offset), then evicts it from the page cache (fdatasync +
 * POSIX_FADV_DONTNEED). Every byte read is checked after the timed calls; a wrong byte fails
 * the run (exit 1). Two times are reported, each the slowest rank's: `elapsed`, from the first
 * call to the end of the last block's check (reads, views and checking, which a prefetcher may
 * overlap), and `in calls`, the time inside the read calls alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../tests/mpi/pattern.h"

#define SEED 17

typedef struct {
    const char *file, *pattern, *mode, *label, *json;
    unsigned long long size, block;
    int per_call, prefix, make_only;
} Options;

static int rank, nprocs;

static void die(const char *fmt, const char *what)
{
    if (rank == 0) {
        fprintf(stderr, "pfio-mpi-bench: ");
        fprintf(stderr, fmt, what);
        fprintf(stderr, "\n");
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static unsigned long long parse_size(const char *flag, const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        die("%s: expected a size such as 1G, 47008 or 64K", flag);
    switch (*end) {
    case 'K':
    case 'k':
        v <<= 10;
        break;
    case 'M':
    case 'm':
        v <<= 20;
        break;
    case 'G':
    case 'g':
        v <<= 30;
        break;
    case '\0':
        break;
    default:
        die("%s: expected a size such as 1G, 47008 or 64K", flag);
    }
    return v;
}

static Options parse(int argc, char **argv)
{
    Options o = {NULL, "interleaved", "collective", "", NULL, 1ULL << 30, 47008, 100, 0, 0};
    int i;
    for (i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--prefix")) {
            o.prefix = 1;
            continue;
        }
        if (!strcmp(a, "--make-only")) {
            o.make_only = 1;
            continue;
        }
        if (v == NULL)
            die("%s: expected a value after it", a);
        ++i;
        if (!strcmp(a, "--file"))
            o.file = v;
        else if (!strcmp(a, "--size"))
            o.size = parse_size(a, v);
        else if (!strcmp(a, "--block"))
            o.block = parse_size(a, v);
        else if (!strcmp(a, "--per-call"))
            o.per_call = atoi(v);
        else if (!strcmp(a, "--pattern"))
            o.pattern = v;
        else if (!strcmp(a, "--mode"))
            o.mode = v;
        else if (!strcmp(a, "--label"))
            o.label = v;
        else if (!strcmp(a, "--json"))
            o.json = v;
        else
            die("unknown option %s (see the usage at the top of pfio_mpi_bench.c)", a);
    }
    if (o.file == NULL)
        die("%s", "--file PATH is required");
    if (o.block == 0 || o.block % 8 != 0)
        die("%s", "--block: expected a positive multiple of 8");
    if (o.per_call < 1)
        die("%s", "--per-call: expected 1 or more");
    if (strcmp(o.pattern, "interleaved") && strcmp(o.pattern, "random"))
        die("--pattern = %s: expected interleaved or random", o.pattern);
    if (strcmp(o.mode, "collective") && strcmp(o.mode, "independent"))
        die("--mode = %s: expected collective or independent", o.mode);
    return o;
}

/* Rank 0 makes the file (unless it already has this size and its last word is right) and
 * drops it from the page cache. */
static void prepare(const Options *o)
{
    int ok = 1;
    if (rank == 0) {
        struct stat st;
        int fd;
        int fresh = stat(o->file, &st) != 0 || (unsigned long long)st.st_size != o->size;
        if (!fresh) {
            uint64_t w = 0;
            fd = open(o->file, O_RDONLY);
            fresh = fd < 0 || pread(fd, &w, 8, (off_t)(o->size - 8)) != 8 ||
                    w != pattern_word(o->size - 8, SEED);
            if (fd >= 0)
                close(fd);
        }
        if (fresh) {
            unsigned char *buf = malloc(1 << 20);
            unsigned long long done = 0;
            fprintf(stderr, "pfio-mpi-bench: writing %s (%llu bytes)\n", o->file, o->size);
            fd = open(o->file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            while (fd >= 0 && done < o->size) {
                size_t n = o->size - done < (1 << 20) ? (size_t)(o->size - done) : 1 << 20;
                pattern_fill(buf, done, n, SEED);
                if (write(fd, buf, n) != (ssize_t)n)
                    break;
                done += n;
            }
            ok = fd >= 0 && done == o->size;
            if (fd >= 0)
                close(fd);
            free(buf);
        }
        fd = open(o->file, O_RDONLY);
        ok = ok && fd >= 0 && fdatasync(fd) == 0 &&
             posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
        if (fd >= 0)
            close(fd);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok)
        die("%s: could not be written or evicted from the page cache", o->file);
}

/* blocks[c * per_call + k]: the k-th block of this rank's call c. */
static unsigned long long *assign_blocks(const Options *o, int *calls)
{
    unsigned long long nblocks = o->size / o->block, mine = nblocks / (unsigned long long)nprocs;
    unsigned long long i, *all = NULL, *out;
    *calls = (int)(mine / (unsigned long long)o->per_call);
    if (*calls == 0)
        die("%s: the file is too small for one call per rank", o->file);
    out = malloc(sizeof *out * (size_t)(*calls) * (size_t)o->per_call);
    if (!strcmp(o->pattern, "random")) {
        uint64_t s = SEED;
        all = malloc(sizeof *all * nblocks);
        for (i = 0; i < nblocks; ++i)
            all[i] = i;
        for (i = nblocks - 1; i > 0; --i) { /* Fisher-Yates, the same on every rank */
            unsigned long long j, t;
            s = pattern_word(s, SEED);
            j = s % (i + 1);
            t = all[i];
            all[i] = all[j];
            all[j] = t;
        }
    }
    for (i = 0; i < (unsigned long long)(*calls) * (unsigned long long)o->per_call; ++i) {
        unsigned long long b = i * (unsigned long long)nprocs + (unsigned long long)rank;
        out[i] = all != NULL ? all[b] : b;
    }
    free(all);
    return out;
}

static int cmp_ull(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    Options o;
    char name[4200];
    unsigned long long *blocks, bad = 0, all_bad = 0;
    unsigned char *buf;
    int calls, c, k;
    double t_read = 0, t_max = 0, t_begin, t_elapsed, t_elapsed_max = 0;
    MPI_File fh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    o = parse(argc, argv);
    prepare(&o);
    if (o.make_only) {
        MPI_Finalize();
        return 0;
    }
    blocks = assign_blocks(&o, &calls);
    buf = malloc((size_t)o.block * (size_t)o.per_call);
    snprintf(name, sizeof name, "%s%s", o.prefix ? "prefetch:" : "", o.file);
    MPI_Barrier(MPI_COMM_WORLD);
    if (MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        die("MPI_File_open(%s) failed", name);
    MPI_Barrier(MPI_COMM_WORLD);
    t_begin = MPI_Wtime();
    for (c = 0; c < calls; ++c) {
        /* a view of the call's blocks, in file order (MPI views must not go backwards) */
        unsigned long long *b = blocks + (size_t)c * (size_t)o.per_call;
        MPI_Aint *displs = malloc(sizeof *displs * (size_t)o.per_call);
        int *lens = malloc(sizeof *lens * (size_t)o.per_call);
        MPI_Datatype view;
        MPI_Status st;
        double t0;
        int got = 0;
        qsort(b, (size_t)o.per_call, sizeof *b, cmp_ull);
        for (k = 0; k < o.per_call; ++k) {
            displs[k] = (MPI_Aint)(b[k] * o.block);
            lens[k] = (int)o.block;
        }
        MPI_Type_create_hindexed(o.per_call, lens, displs, MPI_BYTE, &view);
        MPI_Type_commit(&view);
        MPI_File_set_view(fh, 0, MPI_BYTE, view, "native", MPI_INFO_NULL);
        t0 = MPI_Wtime();
        if (!strcmp(o.mode, "collective"))
            MPI_File_read_all(fh, buf, (int)(o.block * (unsigned long long)o.per_call), MPI_BYTE,
                              &st);
        else
            MPI_File_read(fh, buf, (int)(o.block * (unsigned long long)o.per_call), MPI_BYTE, &st);
        t_read += MPI_Wtime() - t0;
        MPI_Get_count(&st, MPI_BYTE, &got);
        if ((unsigned long long)got != o.block * (unsigned long long)o.per_call)
            ++bad;
        for (k = 0; k < o.per_call; ++k) {
            const unsigned char *p = buf + (size_t)k * o.block;
            unsigned long long w;
            for (w = 0; w < o.block; w += 8) {
                uint64_t v;
                memcpy(&v, p + w, 8);
                if (v != pattern_word(b[k] * o.block + w, SEED)) {
                    ++bad;
                    break;
                }
            }
        }
        MPI_Type_free(&view);
        free(displs);
        free(lens);
    }
    t_elapsed = MPI_Wtime() - t_begin;
    MPI_File_close(&fh);
    MPI_Reduce(&t_read, &t_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t_elapsed, &t_elapsed_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bad, &all_bad, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        unsigned long long bytes =
            (unsigned long long)nprocs * (unsigned long long)calls * o.per_call * o.block;
        double mibs = t_max > 0 ? (double)bytes / t_max / (1 << 20) : 0;
        double elapsed_mibs = t_elapsed_max > 0 ? (double)bytes / t_elapsed_max / (1 << 20) : 0;
        printf("%-12s %-11s %-11s %d ranks %llu bytes  elapsed %6.3f s %7.1f MiB/s  "
               "in calls %6.3f s %7.1f MiB/s  %s\n",
               o.label, o.pattern, o.mode, nprocs, bytes, t_elapsed_max, elapsed_mibs, t_max,
               mibs, all_bad ? "WRONG BYTES" : "verified");
        if (o.json != NULL) {
            FILE *f = fopen(o.json, "a");
            if (f != NULL) {
                fprintf(f,
                        "{\"label\": \"%s\", \"pattern\": \"%s\", \"mode\": \"%s\", "
                        "\"ranks\": %d, \"file_size\": %llu, \"block\": %llu, "
                        "\"per_call\": %d, \"calls\": %d, \"bytes\": %llu, \"seconds\": %.6f, "
                        "\"mib_per_s\": %.3f, \"elapsed_seconds\": %.6f, "
                        "\"elapsed_mib_per_s\": %.3f, \"verified\": %s}\n",
                        o.label, o.pattern, o.mode, nprocs, o.size, o.block, o.per_call, calls,
                        bytes, t_max, mibs, t_elapsed_max, elapsed_mibs,
                        all_bad ? "false" : "true");
                fclose(f);
            }
        }
    }
    free(buf);
    free(blocks);
    MPI_Finalize();
    return all_bad ? 1 : 0;
}
