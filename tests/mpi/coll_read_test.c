/* Collective reads through pfio's collective layer (ad_prefetch_rdcoll.c over romio-adio/collective)
 * under mpirun/mpiexec: every byte checked against the self-verifying pattern.
 *   interleaved   ior-hard's shape (a strided view, one segment per MPI_File_read_all): bytes,
 *                 and the job summary's collective counters (calls, predictions right)
 *   random        a permutation of blocks dealt to ranks and calls (hindexed views)
 *   overlap       odd-sized requests that overlap between ranks, into a strided memory type
 *   breaks        a pattern that breaks after 4 calls: right bytes, counted mispredictions
 *   alone         IOR's calls (one 64 KiB block per rank per call at explicit offsets): read
 *                 alone, every rank its own block with no exchange, between checks; right bytes,
 *                 and no hang with one rank's shared file pointer open (the others' not)
 *   eof           requests across the end of the file: the bytes up to it, counted right (also
 *                 across the end of a file grown since open, through ROMIO's two-phase)
 *   cb_nodes=1, prefetch_collective=disable, striping hints: the same bytes
 *   declared      pfio_mpi_file_plan (pfio/pfio_mpi.h): every declared call planned, and ranks
 *                 declaring different call counts refused on every rank
 *   record/replay prefetch_record, then prefetch_replay: every call declared and right; a
 *                 replay for another file or rank count refused at open
 * usage: coll_read_test MODE DIR          MODE: prefix | hint (see test_common.h) | engine
 *                                         (prefix, prefetch_coll_path=engine: the reorder buffer)
 *                                         | engine-env (the same, chosen by ctest's environment:
 *                                         PFIO_COLL_PATH=engine PFIO_READ_PATH=engine)
 *        coll_read_test mismatch DIR      rank 0 reads once more than the others: an error
 *                                         naming the bound, not a hang (stderr or error string)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pattern.h"
#include "pfio/pfio_mpi.h"
#include "test_common.h"

#define BLOCK 4701 /* odd: blocks straddle words and stripe units */
#define PER_CALL 24

/* ior-hard: block b of segment s belongs to rank b mod nprocs; one segment per call. */
static void read_interleaved(const char *test, const char *path, MPI_Info info, int calls)
{
    MPI_File fh;
    MPI_Datatype block, filetype;
    MPI_Status st;
    unsigned char *buf = malloc((size_t)PER_CALL * BLOCK);
    int call, i;
    must_open(test, path, MPI_MODE_RDONLY, info, &fh);
    MPI_Type_contiguous(BLOCK, MPI_BYTE, &block);
    MPI_Type_create_resized(block, 0, (MPI_Aint)BLOCK * nprocs, &filetype);
    MPI_Type_commit(&filetype);
    MPI_File_set_view(fh, (MPI_Offset)rank * BLOCK, MPI_BYTE, filetype, "native", info);
    for (call = 0; call < calls; ++call) {
        memset(buf, SENTINEL, (size_t)PER_CALL * BLOCK);
        if (MPI_File_read_all(fh, buf, PER_CALL * BLOCK, MPI_BYTE, &st) != MPI_SUCCESS) {
            fail(test, "MPI_File_read_all call %d failed", call);
            break;
        }
        check_count(test, &st, MPI_BYTE, PER_CALL * BLOCK);
        for (i = 0; i < PER_CALL; ++i) {
            long long b = ((long long)call * PER_CALL + i) * nprocs + rank;
            check_range(test, buf + (size_t)i * BLOCK, b * BLOCK, BLOCK, SEED);
        }
    }
    MPI_Type_free(&filetype);
    MPI_Type_free(&block);
    MPI_File_close(&fh);
    free(buf);
}

static void test_interleaved(void)
{
    const char *test = "collective: interleaved segments, predicted after two calls";
    int before = failures;
    char path[1024], stats[1024];
    MPI_Info info;
    path_of(path, sizeof path, "interleaved.dat");
    path_of(stats, sizeof stats, "interleaved.json");
    make_file(path, (uint64_t)BLOCK * PER_CALL * nprocs * 6 + 333, SEED);
    MPI_Info_create(&info);
    MPI_Info_set(info, "prefetch_stats", stats);
    MPI_Info_set(info, "striping_unit", "65536");   /* many aggregators per call */
    MPI_Info_set(info, "prefetch_budget", "8M");    /* rounds sized to it, not to cb_buffer_size */
    MPI_Info_set(info, "prefetch_step_aside", "0"); /* every call through the layer */
    read_interleaved(test, path, info, 6);
    expect_summary(test, stats, "calls", 6);
    expect_summary(test, stats, "stock_calls", 0);
    expect_summary(test, stats, "predicted_hits", 4);
    expect_summary(test, stats, "predicted_misses", 0);
    /* plan exchange: 24 strided blocks per rank and call travel as one record of a few bytes */
    /* every requested byte read once by an aggregator; with one rank nothing is shipped */
    expect_summary(test, stats, "bytes_read_by_aggregators",
                   (long long)BLOCK * PER_CALL * nprocs * 6);
    if (nprocs == 1)
        expect_summary(test, stats, "bytes_shipped", 0);
    else if (rank == 0 && summary_value(stats, "bytes_shipped") <= 0)
        fail(test, "interleaved blocks of %d ranks shipped no bytes between ranks", nprocs);
    /* prefetched bytes and the exchange buffers charged to the budget stay within it */
    if (rank == 0 &&
        (summary_value(stats, "memory_held_max_rank") <= 0 ||
         summary_value(stats, "memory_held_max_rank") > summary_value(stats, "budget_min_rank")))
        fail(test, "a rank held %lld bytes (prefetch + exchange buffers) over a budget of %lld",
             summary_value(stats, "memory_held_max_rank"), summary_value(stats, "budget_min_rank"));
    if (rank == 0 && nprocs > 1 &&
        (summary_value(stats, "exchange_peak_max_rank") <= 0 ||
         summary_value(stats, "exchange_peak_max_rank") >
             summary_value(stats, "budget_min_rank") / 4))
        fail(test, "exchange buffers peaked at %lld bytes, expected at most a quarter of %lld",
             summary_value(stats, "exchange_peak_max_rank"),
             summary_value(stats, "budget_min_rank"));
    /* the aggregators read through their engines: every rank's file of the page-cache kind by
     * default, of the reorder buffer's with prefetch_coll_path=engine */
    if (rank == 0 &&
        summary_value(stats, "bytes_served") < summary_value(stats, "bytes_read_by_aggregators"))
        fail(test, "pfio's engines served %lld bytes, expected the aggregators' %lld",
             summary_value(stats, "bytes_served"),
             summary_value(stats, "bytes_read_by_aggregators"));
    expect_summary(test, stats, "page_cache_kind_ranks", read_path != NULL ? 0 : nprocs);
    if (rank == 0 && summary_value(stats, "plan_bytes") > 16LL * 6 * nprocs)
        fail(test, "plans took %lld bytes on the wire for 6 calls of %d ranks, expected <= %d",
             summary_value(stats, "plan_bytes"), nprocs, 16 * 6 * nprocs);
    MPI_Info_free(&info);
    report(test, before);
}

static void test_variants(void)
{
    const char *test = "collective: cb_nodes=1, two-phase when disabled, striping hints";
    int before = failures;
    char path[1024], stats[1024];
    MPI_Info info;
    path_of(path, sizeof path, "variants.dat");
    path_of(stats, sizeof stats, "variants.json");
    make_file(path, (uint64_t)BLOCK * PER_CALL * nprocs * 3, SEED);
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "1");
    read_interleaved(test, path, info, 3);
    MPI_Info_free(&info);
    MPI_Info_create(&info);
    MPI_Info_set(info, "prefetch_collective", "disable");
    MPI_Info_set(info, "prefetch_stats", stats);
    read_interleaved(test, path, info, 3);
    expect_summary(test, stats, "calls", 0);
    MPI_Info_free(&info);
    MPI_Info_create(&info);
    MPI_Info_set(info, "striping_unit", "4096");
    MPI_Info_set(info, "striping_factor", "3");
    MPI_Info_set(info, "cb_buffer_size", "10000"); /* many rounds */
    read_interleaved(test, path, info, 3);
    MPI_Info_free(&info);
    report(test, before);
}

/* Reads the given blocks (sorted) with one read_at_all through a hindexed view. */
static void read_blocks(const char *test, MPI_File fh, const long long *blocks, int n)
{
    MPI_Aint *displs = malloc((size_t)n * sizeof *displs);
    int *lens = malloc((size_t)n * sizeof *lens), i;
    unsigned char *buf = malloc((size_t)n * BLOCK);
    MPI_Datatype filetype;
    MPI_Status st;
    for (i = 0; i < n; ++i) {
        displs[i] = (MPI_Aint)(blocks[i] * BLOCK);
        lens[i] = BLOCK;
    }
    MPI_Type_create_hindexed(n, lens, displs, MPI_BYTE, &filetype);
    MPI_Type_commit(&filetype);
    MPI_File_set_view(fh, 0, MPI_BYTE, filetype, "native", MPI_INFO_NULL);
    if (MPI_File_read_at_all(fh, 0, buf, n * BLOCK, MPI_BYTE, &st) != MPI_SUCCESS)
        fail(test, "MPI_File_read_at_all failed");
    check_count(test, &st, MPI_BYTE, n * BLOCK);
    for (i = 0; i < n; ++i)
        check_range(test, buf + (size_t)i * BLOCK, blocks[i] * BLOCK, BLOCK, SEED);
    MPI_Type_free(&filetype);
    free(displs);
    free(lens);
    free(buf);
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

static void test_random(void)
{
    const char *test = "collective: a random permutation over ranks and calls";
    int before = failures, calls = 4, call, i;
    long long total = (long long)PER_CALL * nprocs * calls, *perm = malloc(total * sizeof *perm);
    long long mine[PER_CALL];
    char path[1024];
    MPI_File fh;
    unsigned int s = 12345;
    path_of(path, sizeof path, "random.dat");
    make_file(path, (uint64_t)BLOCK * total, SEED);
    for (i = 0; i < total; ++i)
        perm[i] = i;
    for (i = (int)total - 1; i > 0; --i) { /* the same shuffle on every rank */
        long long t;
        int j;
        s = s * 1103515245u + 12345u;
        j = (int)((s >> 8) % (unsigned)(i + 1));
        t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    must_open(test, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    for (call = 0; call < calls; ++call) {
        memcpy(mine, perm + ((long long)call * nprocs + rank) * PER_CALL, sizeof mine);
        qsort(mine, PER_CALL, sizeof mine[0], cmp_ll);
        read_blocks(test, fh, mine, PER_CALL);
    }
    MPI_File_close(&fh);
    free(perm);
    report(test, before);
}

static void test_overlap(void)
{
    const char *test = "collective: odd-sized overlapping requests into a strided memory type";
    int before = failures, call;
    char path[1024];
    MPI_File fh;
    MPI_Datatype memtype;
    MPI_Status st;
    const int count = 5001; /* 3 bytes every 5 */
    unsigned char *buf = malloc((size_t)count * 5);
    long long *want = malloc((size_t)count * 5 * sizeof *want);
    path_of(path, sizeof path, "overlap.dat");
    make_file(path, 200003, SEED);
    MPI_Type_vector(count, 3, 5, MPI_BYTE, &memtype);
    MPI_Type_commit(&memtype);
    must_open(test, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    for (call = 0; call < 3; ++call) {
        long long offset = 7 + 1013LL * rank + 333LL * call, i, k = 0;
        memset(buf, SENTINEL, (size_t)count * 5);
        if (MPI_File_read_at_all(fh, offset, buf, 1, memtype, &st) != MPI_SUCCESS)
            fail(test, "MPI_File_read_at_all failed");
        check_count(test, &st, memtype, 1);
        for (i = 0; i < (long long)count * 5; ++i)
            want[i] = (i % 5) < 3 && i < (long long)(count - 1) * 5 + 3 ? offset + k++ : -1;
        check_bytes(test, buf, want, (size_t)(count - 1) * 5 + 3, SEED);
    }
    MPI_File_close(&fh);
    MPI_Type_free(&memtype);
    free(buf);
    free(want);
    report(test, before);
}

/* The same shuffle of `total` block numbers on every rank. */
static long long *shuffled(long long total, unsigned int s)
{
    long long *perm = malloc((size_t)total * sizeof *perm), i;
    for (i = 0; i < total; ++i)
        perm[i] = i;
    for (i = total - 1; i > 0; --i) {
        long long t, j;
        s = s * 1103515245u + 12345u;
        j = (long long)((s >> 8) % (unsigned)(i + 1));
        t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    return perm;
}

/* This rank's sorted blocks of call `call` of the permutation. */
static void blocks_of_call(const long long *perm, int call, long long *mine)
{
    memcpy(mine, perm + ((long long)call * nprocs + rank) * PER_CALL, PER_CALL * sizeof *mine);
    qsort(mine, PER_CALL, sizeof mine[0], cmp_ll);
}

/* Round 4: a declaration is held to half the budget (every rank holds every rank's extents):
 * one rank's own plan beyond it is refused before it is read, a job's beyond the least rank's
 * allowance is refused on every rank; nothing is declared (24 M extents under a 64 MiB budget
 * were held before: +870 MB). */
static void declared_beyond_the_budget(const char *test, const char *path)
{
    const int many = 600000, some = 200000; /* 9.6 MB alone; 3.2 MB a rank, 6.4 MB with two */
    MPI_Offset *offsets = malloc(many * sizeof *offsets), *lengths = malloc(many * sizeof *lengths);
    char verdict[MPI_MAX_INFO_VAL + 1];
    int i, rc, flag, count;
    MPI_File fh;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "prefetch_budget", "8M");
    must_open(test, path, MPI_MODE_RDONLY, info, &fh);
    for (i = 0; i < many; ++i) {
        offsets[i] = (MPI_Offset)(i * nprocs + rank) * 16;
        lengths[i] = 8;
    }
    for (count = many; count >= some; count -= many - some) {
        if (count == some && nprocs == 1)
            break; /* one rank's 3.2 MB fits: the job's sum needs two */
        rc = pfio_mpi_file_plan(fh, 1, &count, offsets, lengths);
        flag = info_value(fh, "prefetch_plan_result", verdict, sizeof verdict);
        if (rc != MPI_ERR_ARG || !flag || !strstr(verdict, "half the"))
            fail(test,
                 "%d extents a rank under an 8M budget: pfio_mpi_file_plan returned %d, "
                 "prefetch_plan_result = \"%s\": expected MPI_ERR_ARG naming half the budget",
                 count, rc, flag ? verdict : "(not set)");
    }
    MPI_File_close(&fh);
    MPI_Info_free(&info);
    free(offsets);
    free(lengths);
}

static void test_declared(void)
{
    const char *test = "collective: a plan declared with pfio_mpi_file_plan";
    int before = failures, calls = 5, call, i, counts[5], rc, flag = 0;
    long long total = (long long)PER_CALL * nprocs * calls, *perm = shuffled(total, 777);
    long long mine[PER_CALL];
    MPI_Offset offsets[5 * PER_CALL], lengths[5 * PER_CALL];
    char path[1024], stats[1024], verdict[MPI_MAX_INFO_VAL + 1];
    MPI_File fh;
    MPI_Info info;
    path_of(path, sizeof path, "declared.dat");
    path_of(stats, sizeof stats, "declared.json");
    make_file(path, (uint64_t)BLOCK * total, SEED);
    MPI_Info_create(&info);
    MPI_Info_set(info, "prefetch_stats", stats);
    must_open(test, path, MPI_MODE_RDONLY, info, &fh);
    for (call = 0; call < calls; ++call) {
        counts[call] = PER_CALL;
        blocks_of_call(perm, call, mine);
        for (i = 0; i < PER_CALL; ++i) {
            offsets[call * PER_CALL + i] = mine[i] * BLOCK;
            lengths[call * PER_CALL + i] = BLOCK;
        }
    }
    rc = pfio_mpi_file_plan(fh, calls, counts, offsets, lengths);
    if (rc != MPI_SUCCESS)
        fail(test, "pfio_mpi_file_plan returned %d", rc);
    flag = info_value(fh, "prefetch_plan_result", verdict, sizeof verdict);
    if (!flag || strcmp(verdict, "declared 5 calls") != 0)
        fail(test, "MPI_File_get_info prefetch_plan_result = \"%s\", expected \"declared 5 calls\"",
             flag ? verdict : "(not set)");
    for (call = 0; call < calls; ++call) {
        blocks_of_call(perm, call, mine);
        read_blocks(test, fh, mine, PER_CALL);
    }
    /* ranks declaring different numbers of calls: refused on every rank */
    counts[0] = 1;
    rc = nprocs > 1 ? pfio_mpi_file_plan(fh, rank == 0 ? 1 : 2, counts, offsets, lengths)
                    : MPI_ERR_ARG;
    if (rc != MPI_ERR_ARG)
        fail(test,
             "ranks declaring 1 and 2 calls: pfio_mpi_file_plan returned %d, expected "
             "MPI_ERR_ARG",
             rc);
    flag = info_value(fh, "prefetch_plan_result", verdict, sizeof verdict);
    if (nprocs > 1 && (!flag || !strstr(verdict, "declared 2 collective calls, rank 0 declared 1")))
        fail(test, "prefetch_plan_result = \"%s\", expected the refusal naming both call counts",
             flag ? verdict : "(not set)");
    MPI_File_close(&fh);
    declared_beyond_the_budget(test, path);
    MPI_Info_free(&info);
    expect_summary(test, stats, "declared_calls", 5);
    expect_summary(test, stats, "predicted_hits", 5);
    expect_summary(test, stats, "predicted_misses", 0);
    free(perm);
    report(test, before);
}

static void test_record_replay(void)
{
    const char *test = "collective: prefetch_record, then prefetch_replay (and its refusals)";
    int before = failures, calls = 4, call, pass, rc;
    long long total = (long long)PER_CALL * nprocs * calls, *perm = shuffled(total, 4242);
    long long mine[PER_CALL];
    char path[1024], other[1024], record[1024], stats[1024];
    MPI_File fh;
    MPI_Info info;
    path_of(path, sizeof path, "replay.dat");
    path_of(other, sizeof other, "replay-other.dat");
    path_of(record, sizeof record, "replay.plan");
    path_of(stats, sizeof stats, "replay.json");
    make_file(path, (uint64_t)BLOCK * total, SEED);
    make_file(other, (uint64_t)BLOCK * total, SEED);
    for (pass = 0; pass < 2; ++pass) {
        MPI_Info_create(&info);
        MPI_Info_set(info, pass == 0 ? "prefetch_record" : "prefetch_replay", record);
        MPI_Info_set(info, "prefetch_stats", stats);
        must_open(test, path, MPI_MODE_RDONLY, info, &fh);
        for (call = 0; call < calls; ++call) {
            blocks_of_call(perm, call, mine);
            read_blocks(test, fh, mine, PER_CALL);
        }
        MPI_File_close(&fh);
        MPI_Info_free(&info);
        expect_summary(test, stats, "declared_calls", pass == 0 ? 0 : calls);
        if (pass == 1)
            expect_summary(test, stats, "predicted_hits", calls);
    }
    /* A replay for another file, and (with several ranks) for another rank count: refused at
     * open, naming what differs. */
    MPI_Info_create(&info);
    MPI_Info_set(info, "prefetch_replay", record);
    rc = open_selected(other, MPI_MODE_RDONLY, info, &fh);
    if (rc == MPI_SUCCESS) {
        fail(test, "a replay recorded for %s opened %s", path, other);
        MPI_File_close(&fh);
    } else {
        int cls = 0;
        MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_INFO_VALUE)
            fail(test, "replay for another file: error class %d, expected MPI_ERR_INFO_VALUE", cls);
    }
    if (nprocs > 1) {
        char name[1100];
        snprintf(name, sizeof name, "%s%s", strcmp(mode, "prefix") == 0 ? "prefetch:" : "", path);
        if (strcmp(mode, "hint") == 0)
            MPI_Info_set(info, "prefetch", "enable");
        rc = MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_RDONLY, info, &fh);
        if (rc == MPI_SUCCESS) {
            fail(test, "a replay recorded by %d ranks opened on MPI_COMM_SELF", nprocs);
            MPI_File_close(&fh);
        }
    }
    MPI_Info_free(&info);
    free(perm);
    report(test, before);
}

/* IOR's calls: one 64 KiB block per rank per MPI_File_read_at_all, every rank's read by itself,
 * so after two calls through the layer the calls go alone (counted), with the view and
 * individual pointer untouched, and every byte is right; read_ordered at the end takes its
 * offsets from the shared file pointer across calls read alone. With `one_shared` (48 KiB
 * blocks), rank 0 alone asks the shared file pointer's position first (independent: its pointer
 * is open, the other ranks' are not), and the calls read alone still neither hang nor read wrong
 * bytes: whether a rank waits for the others there must not change which collective calls it
 * makes (one rank waiting where the others do not would hang them). */
static void test_alone(int one_shared)
{
    const char *test = one_shared ? "collective: calls read alone, one rank's shared pointer open"
                                  : "collective: calls that ship nothing read alone";
    /* another call size with one_shared: judges carried from the first file do not apply */
    const int size = one_shared ? 48 << 10 : 64 << 10, calls = 64;
    int before = failures, k;
    char path[1024], stats[1024];
    unsigned char *buf = malloc((size_t)size);
    MPI_File fh;
    MPI_Info info;
    MPI_Status st;
    MPI_Offset pos = -1, shared = -1;
    path_of(path, sizeof path, "alone.dat");
    path_of(stats, sizeof stats, one_shared ? "alone-shared.json" : "alone.json");
    make_file(path, (uint64_t)size * calls * nprocs, SEED);
    MPI_Info_create(&info);
    MPI_Info_set(info, "prefetch_stats", stats);
    must_open(test, path, MPI_MODE_RDONLY, info, &fh);
    if (one_shared && rank == 0) {
        MPI_File_get_position_shared(fh, &shared);
        if (shared != 0)
            fail(test, "the shared file pointer at %lld, expected 0", (long long)shared);
    }
    for (k = 0; k < calls && failures == before; ++k) {
        long long at = (long long)size * (k * nprocs + rank);
        memset(buf, SENTINEL, (size_t)size);
        if (MPI_File_read_at_all(fh, at, buf, size, MPI_BYTE, &st) != MPI_SUCCESS) {
            fail(test, "MPI_File_read_at_all call %d failed", k);
            break;
        }
        check_count(test, &st, MPI_BYTE, size);
        check_range(test, buf, at, (size_t)size, SEED);
    }
    MPI_File_get_position(fh, &pos);
    if (pos != 0)
        fail(test, "the individual file pointer moved to %lld, expected 0", (long long)pos);
    for (k = 0; k < 16 && failures == before; ++k) {
        MPI_File_read_ordered(fh, buf, size, MPI_BYTE, &st);
        check_count(test, &st, MPI_BYTE, size);
        check_range(test, buf, (long long)size * (k * nprocs + rank), (size_t)size, SEED);
    }
    MPI_File_close(&fh);
    MPI_Info_free(&info);
    free(buf);
    if (rank == 0 && summary_value(stats, "alone_calls") < 8)
        fail(test, "%lld collective calls read alone, expected at least a run of 8",
             summary_value(stats, "alone_calls"));
    report(test, before);
}

/* Reads file `f` of test_short_files (made first): `calls` collective calls of `size` bytes per
 * rank, every byte checked. */
static void read_short_file(const char *test, const MPI_Info info, int f, int size, int calls,
                            unsigned char *buf)
{
    char path[1024], name[64];
    int k, before = failures;
    MPI_File fh;
    snprintf(name, sizeof name, "short-%d.dat", f);
    path_of(path, sizeof path, name);
    make_file(path, (uint64_t)size * calls * nprocs, SEED);
    must_open(test, path, MPI_MODE_RDONLY, info, &fh);
    for (k = 0; k < calls && failures == before; ++k) {
        long long at = (long long)size * (k * nprocs + rank);
        MPI_Status st;
        memset(buf, SENTINEL, (size_t)size);
        if (MPI_File_read_at_all(fh, at, buf, size, MPI_BYTE, &st) != MPI_SUCCESS) {
            fail(test, "file %d: MPI_File_read_at_all call %d failed", f, k);
            break;
        }
        check_count(test, &st, MPI_BYTE, size);
        check_range(test, buf, at, (size_t)size, SEED);
    }
    MPI_File_close(&fh);
}

/* Short files read alike one after another: the path judges carry on from file to file (every
 * rank alike, or no call would find its ranks on one path), and each file's summary counts that
 * file's calls alone (a carried judge's counts start again). A file whose calls have another
 * shape (4x the bytes) starts from fresh judges: its first calls go through pfio's layer, none
 * to ROMIO or read alone. Every byte checked. */
static void test_short_files(void)
{
    const char *test = "collective: short files read alike, their judges carried on";
    const int size = 64 << 10, calls = 12, files = 16;
    int before = failures, f;
    char stats[1024];
    unsigned char *buf = malloc((size_t)size * 4);
    long long carried;
    MPI_Info info;
    path_of(stats, sizeof stats, "short.json");
    MPI_Info_create(&info);
    MPI_Info_set(info, "prefetch_stats", stats);
    for (f = 0; f < files && failures == before; ++f)
        read_short_file(test, info, f, size, calls, buf);
    expect_summary(test, stats, "calls", calls);
    /* the stock path's first trial alone is 24 calls: counted on, the last file would show them */
    carried = summary_value_in(stats, "collective", "stepped_aside") +
              summary_value(stats, "alone_calls");
    if (rank == 0 && carried > calls)
        fail(test,
             "the last file's summary counts %lld calls given to ROMIO and %lld read alone, "
             "expected at most its own %d calls",
             summary_value_in(stats, "collective", "stepped_aside"),
             summary_value(stats, "alone_calls"), calls);
    if (failures == before)
        read_short_file(test, info, files, size * 4, 2, buf);
    expect_summary(test, stats, "calls", 2);
    if (rank == 0 && summary_value_in(stats, "collective", "stepped_aside") +
                             summary_value(stats, "alone_calls") !=
                         0)
        fail(test,
             "a file of another call shape after %d alike (whose last gave %lld of its calls to "
             "ROMIO or to reading alone) gave %lld calls to ROMIO and %lld to reading alone, "
             "expected 0: its judges start afresh",
             files, carried, summary_value_in(stats, "collective", "stepped_aside"),
             summary_value(stats, "alone_calls"));
    MPI_Info_free(&info);
    free(buf);
    report(test, before);
}

static void test_breaks(void)
{
    const char *test = "collective: a pattern that breaks costs mispredictions, never bytes";
    int before = failures, k, i;
    const int order[] = {0, 1, 2, 3, 9, 4, 5, 6};
    char path[1024], stats[1024];
    MPI_File fh;
    MPI_Info info;
    long long blocks[PER_CALL];
    path_of(path, sizeof path, "breaks.dat");
    path_of(stats, sizeof stats, "breaks.json");
    make_file(path, (uint64_t)BLOCK * PER_CALL * nprocs * 10, SEED);
    MPI_Info_create(&info);
    MPI_Info_set(info, "prefetch_stats", stats);
    MPI_Info_set(info, "prefetch_step_aside", "0"); /* every call through the layer */
    must_open(test, path, MPI_MODE_RDONLY, info, &fh);
    for (k = 0; k < 8; ++k) {
        for (i = 0; i < PER_CALL; ++i)
            blocks[i] = ((long long)order[k] * PER_CALL + i) * nprocs + rank;
        read_blocks(test, fh, blocks, PER_CALL);
    }
    MPI_File_close(&fh);
    MPI_Info_free(&info);
    expect_summary(test, stats, "predicted_hits", 3);
    expect_summary(test, stats, "predicted_misses", 3);
    report(test, before);
}

static void test_eof(void)
{
    const char *test = "collective: requests across the end of the file";
    int before = failures;
    char path[1024];
    MPI_File fh;
    MPI_Status st;
    long long size = 100000 + 17, offset = size - 5000 + 1000LL * rank;
    int want = offset >= size ? 0 : (int)(size - offset) < 8000 ? (int)(size - offset) : 8000;
    unsigned char buf[8000];
    path_of(path, sizeof path, "eof.dat");
    make_file(path, (uint64_t)size, SEED);
    must_open(test, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    memset(buf, SENTINEL, sizeof buf);
    if (MPI_File_read_at_all(fh, offset, buf, 8000, MPI_BYTE, &st) != MPI_SUCCESS)
        fail(test, "MPI_File_read_at_all failed");
    check_count(test, &st, MPI_BYTE, want);
    check_range(test, buf, offset, (size_t)want, SEED);
    MPI_File_close(&fh);
    /* Opened for writing (no look at the file before each read), read (pfio learns its size),
     * then grown by another process: a request past the size pfio knows goes to ROMIO's
     * two-phase, which counts the whole request; the driver counts the bytes up to the new end,
     * as its own path does. */
    must_open(test, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    if (MPI_File_read_at_all(fh, 8000LL * rank, buf, 8000, MPI_BYTE, &st) != MPI_SUCCESS)
        fail(test, "MPI_File_read_at_all before the file grew failed");
    check_count(test, &st, MPI_BYTE, 8000);
    check_range(test, buf, 8000LL * rank, 8000, SEED);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has read before the file grows */
    make_file(path, (uint64_t)(2 * size), SEED);
    offset = 2 * size - 5000 + 1000LL * rank;
    want = offset >= 2 * size                ? 0
           : (int)(2 * size - offset) < 8000 ? (int)(2 * size - offset)
                                             : 8000;
    memset(buf, SENTINEL, sizeof buf);
    if (MPI_File_read_at_all(fh, offset, buf, 8000, MPI_BYTE, &st) != MPI_SUCCESS)
        fail(test, "MPI_File_read_at_all after the file grew failed");
    check_count(test, &st, MPI_BYTE, want);
    check_range(test, buf, offset, (size_t)want, SEED);
    MPI_File_close(&fh);
    report(test, before);
}

/* Rank 0 makes one collective read more than the others: the layer's bounded wait must end it
 * with an error naming the bound; the run then aborts (the communicator is unusable). */
static int run_mismatch(void)
{
    char path[1024];
    MPI_File fh;
    MPI_Info info;
    MPI_Status st;
    unsigned char buf[4096];
    int rc, len;
    char msg[MPI_MAX_ERROR_STRING];
    double t0;
    path_of(path, sizeof path, "mismatch.dat");
    make_file(path, 1 << 20, SEED);
    MPI_Info_create(&info);
    MPI_Info_set(info, "prefetch_coll_timeout", "3");
    must_open("mismatch", path, MPI_MODE_RDONLY, info, &fh);
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    MPI_File_read_at_all(fh, 4096LL * rank, buf, 4096, MPI_BYTE, &st);
    if (rank != 0) {
        sleep(30); /* stays away from further collectives; rank 0 aborts the job first */
        return 1;
    }
    t0 = MPI_Wtime();
    rc = MPI_File_read_at_all(fh, 0, buf, 4096, MPI_BYTE, &st);
    MPI_Error_string(rc, msg, &len);
    printf("extra collective read on rank 0: %s after %.1f s: %s\n",
           rc == MPI_SUCCESS ? "succeeded" : "failed", MPI_Wtime() - t0, msg);
    fflush(stdout);
    if (rc != MPI_SUCCESS)
        printf("mismatch reported as an error\n");
    fflush(stdout);
    sleep(1); /* lets mpirun forward what rank 0 wrote before the abort kills the job */
    MPI_Abort(MPI_COMM_WORLD, rc == MPI_SUCCESS ? 1 : 0);
    return 1;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    if (argc != 3 ||
        (strcmp(argv[1], "prefix") && strcmp(argv[1], "hint") && strcmp(argv[1], "mismatch") &&
         strcmp(argv[1], "engine") && strcmp(argv[1], "engine-env"))) {
        if (rank == 0)
            fprintf(stderr, "usage: %s prefix|hint|engine|engine-env|mismatch DIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    mode = strcmp(argv[1], "hint") == 0 ? "hint" : "prefix";
    if (strcmp(argv[1], "engine") == 0 || strcmp(argv[1], "engine-env") == 0)
        read_path = "engine";
    path_from_environment = strcmp(argv[1], "engine-env") == 0;
    dir = argv[2];
    if (strcmp(argv[1], "mismatch") == 0)
        return run_mismatch();
    test_interleaved();
    test_variants();
    test_random();
    test_overlap();
    test_breaks();
    test_alone(0);
    test_alone(1);
    test_short_files();
    test_eof();
    test_declared();
    test_record_replay();
    return finish();
}
