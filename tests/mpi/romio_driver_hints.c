/* romio_driver_test's hint and stats cases (romio_driver_test.c runs them): hints round trip
 * through MPI_File_get_info, bad values and values differing between ranks are named, and the
 * per-rank and summary stats files hold what was read. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pattern.h"
#include "test_common.h"

/* ---- hints and stats ------------------------------------------------------------------- */

/* Opens `path` with `info` (freed here) and fails `test` when the open succeeds. */
static void expect_refused(const char *test, const char *path, MPI_Info info, const char *what)
{
    MPI_File fh;
    if (open_selected(path, MPI_MODE_RDONLY, info, &fh) == MPI_SUCCESS) {
        fail(test, "MPI_File_open succeeded with %s", what);
        MPI_File_close(&fh);
    }
    MPI_Info_free(&info);
}

void test_hints(void)
{
    const char *test = "hints: round trip, bad value, differing between ranks";
    int before = failures, rc;
    char path[1024], value[256];
    MPI_File fh;
    MPI_Info info;
    path_of(path, sizeof path, "hints.dat");
    make_file(path, 1 << 20, SEED);
    MPI_Info_create(&info);
    MPI_Info_set(info, "prefetch_budget", "64M");
    MPI_Info_set(info, "prefetch_queue_depth", "not-a-number");
    MPI_Info_set(info, "prefetch_policy", "forestall");
    MPI_Info_set(info, "prefetch_print_hints", "1");
    if (read_path == NULL) { /* two names of one setting, the buffer kind, that differ */
        MPI_Info_set(info, "prefetch_read_path", "engine");
        MPI_Info_set(info, "prefetch_coll_path", "cache");
    }
    /* rank 0 prints the hints in force at open: catch its stderr to check them */
    char printed[8192] = "";
    int saved = -1;
    char capture[1100];
    snprintf(capture, sizeof capture, "%s/print-hints.txt", dir);
    if (rank == 0) {
        int fd = open(capture, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        fflush(stderr);
        saved = dup(2);
        dup2(fd, 2);
        close(fd);
    }
    must_open(test, path, MPI_MODE_RDONLY, info, &fh);
    if (rank == 0) {
        FILE *f;
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        f = fopen(capture, "r");
        if (f != NULL) {
            size_t n = fread(printed, 1, sizeof printed - 1, f);
            printed[n] = '\0';
            fclose(f);
        }
        if (strstr(printed, "hints in force:") == NULL ||
            strstr(printed, "prefetch_budget=64M") == NULL ||
            strstr(printed, "prefetch_policy=forestall") == NULL)
            fail(test, "prefetch_print_hints=1 printed \"%.300s\", expected the hints in force",
                 printed);
        if (strstr(printed, "queue_depth = \"not-a-number\"") == NULL)
            fail(test, "the bad prefetch_queue_depth was not reported on rank 0: \"%.300s\"",
                 printed);
        if (read_path == NULL &&
            strstr(printed, "hint prefetch_coll_path = \"cache\" and prefetch_read_path = "
                            "\"engine\" name one setting (buffer)") == NULL)
            fail(test,
                 "prefetch_read_path differing from prefetch_coll_path was not reported on "
                 "rank 0: \"%.300s\"",
                 printed);
    }
    if (!info_value(fh, "prefetch_budget", value, sizeof value) || strcmp(value, "64M") != 0)
        fail(test, "prefetch_budget in force = \"%s\", expected \"64M\"", value);
    if (!info_value(fh, "prefetch_policy", value, sizeof value) || strcmp(value, "forestall") != 0)
        fail(test, "prefetch_policy in force = \"%s\", expected \"forestall\"", value);
    if (!info_value(fh, "prefetch_queue_depth", value, sizeof value) ||
        strcmp(value, "not-a-number") == 0 || value[0] == '\0')
        fail(test, "prefetch_queue_depth in force = \"%s\", expected the default", value);
    if (read_path == NULL &&
        (!info_value(fh, "prefetch_read_path", value, sizeof value) || strcmp(value, "cache") != 0))
        fail(test, "prefetch_read_path in force = \"%s\", expected \"cache\" (coll_path's)", value);
    if (!info_value(fh, "cb_buffer_size", value, sizeof value))
        fail(test, "standard hint cb_buffer_size missing from MPI_File_get_info");
    /* a setting nobody chose is printed, not published (each key costs Open MPI's open) */
    if (info_value(fh, "prefetch_horizon", value, sizeof value))
        fail(test, "prefetch_horizon = \"%s\" in MPI_File_get_info: nobody chose it", value);
    if (rank == 0 && strstr(printed, "prefetch_horizon=") == NULL)
        fail(test, "prefetch_print_hints=1 did not print prefetch_horizon: \"%.300s\"", printed);
    {
        unsigned char buf[4096];
        MPI_Status st;
        MPI_File_read_at(fh, 4096 * rank + 1, buf, 4096, MPI_BYTE, &st);
        check_range(test, buf, 4096 * rank + 1, 4096, SEED);
    }
    MPI_File_close(&fh);
    MPI_Info_free(&info);
    if (nprocs > 1) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "prefetch_budget", rank == 0 ? "32M" : "64M");
        expect_refused(test, path, info, "prefetch_budget differing between ranks");
        /* a hint that only rank 0 gives differs too */
        MPI_Info_create(&info);
        if (rank == 0)
            MPI_Info_set(info, "prefetch_queue_depth", "8");
        expect_refused(test, path, info, "prefetch_queue_depth given on rank 0 only");
        /* the same hints set in another order on each rank agree */
        MPI_Info_create(&info);
        if (rank % 2 == 0) {
            MPI_Info_set(info, "prefetch_budget", "48M");
            MPI_Info_set(info, "striping_unit", "1048576");
        } else {
            MPI_Info_set(info, "striping_unit", "1048576");
            MPI_Info_set(info, "prefetch_budget", "48M");
        }
        rc = open_selected(path, MPI_MODE_RDONLY, info, &fh);
        if (rc != MPI_SUCCESS)
            fail(test, "MPI_File_open failed with the same hints set in another order per rank");
        else {
            if (!info_value(fh, "prefetch_budget", value, sizeof value) ||
                strcmp(value, "48M") != 0)
                fail(test, "prefetch_budget in force = \"%s\", expected \"48M\"", value);
            MPI_File_close(&fh);
        }
        MPI_Info_free(&info);
    }
    report(test, before);
}

void test_stats(void)
{
    const char *test = "stats: per-rank files and the job summary";
    int before = failures;
    char path[1024], stats[1024], rankfile[1100];
    unsigned char buf[8192];
    MPI_File fh;
    MPI_Info info;
    MPI_Status st;
    MPI_Datatype vec;
    struct stat sb;
    long long engine, cache, sieved, k;
    path_of(path, sizeof path, "stats.dat");
    path_of(stats, sizeof stats, "stats.json");
    make_file(path, 1 << 20, SEED);
    if (rank == 0)
        unlink(stats);
    MPI_Info_create(&info);
    MPI_Info_set(info, "prefetch_stats", stats);
    /* every read through pfio: the judge carried from the earlier files may give ROMIO these */
    MPI_Info_set(info, "prefetch_step_aside", "0");
    must_open(test, path, MPI_MODE_RDONLY, info, &fh);
    for (k = 0; k < 16; ++k) {
        MPI_File_read_at(fh, 8192LL * (k * nprocs + rank), buf, 8192, MPI_BYTE, &st);
        check_range(test, buf, 8192LL * (k * nprocs + rank), sizeof buf, SEED);
    }
    /* one strided request filling 1/nprocs of its span: ROMIO's data sieving on the page-cache
     * kind, whose reads of the span go through the engine too */
    MPI_Type_vector(8, 1024, 1024 * nprocs, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    MPI_File_set_view(fh, 1024LL * rank, MPI_BYTE, vec, "native", MPI_INFO_NULL);
    MPI_File_read(fh, buf, 8192, MPI_BYTE, &st);
    for (k = 0; k < 8; ++k)
        check_range(test, buf + 1024 * k, 1024LL * (k * nprocs + rank), 1024, SEED);
    MPI_File_close(&fh);
    MPI_Type_free(&vec);
    MPI_Info_free(&info);
    snprintf(rankfile, sizeof rankfile, "%s/stats.rank%d.json", dir, rank);
    if (stat(rankfile, &sb) != 0 || sb.st_size == 0)
        fail(test, "per-rank stats %s missing", rankfile);
    if (rank == 0) {
        /* every independent read goes through the engine; on the page-cache kind (the
         * default) they are counted as cache_reads too, and the strided one was sieved */
        engine = summary_value(stats, "reads");
        cache = summary_value(stats, "cache_reads");
        sieved = summary_value(stats, "cache_sieved");
        if (engine < 17LL * nprocs)
            fail(test, "job summary counts %lld reads through the engine, expected at least %d",
                 engine, 17 * nprocs);
        if (cache != (read_path != NULL ? 0 : 17LL * nprocs) ||
            sieved != (read_path != NULL || nprocs == 1 ? 0 : nprocs))
            fail(test,
                 "job summary counts %lld reads of the page-cache kind, %lld of them sieved; "
                 "expected %d and %d on the %s path",
                 cache, sieved, read_path != NULL ? 0 : 17 * nprocs,
                 read_path != NULL || nprocs == 1 ? 0 : nprocs,
                 read_path != NULL ? "engine" : "default");
    }
    report(test, before);
}

/* Every rank's every nprocs-th block, one read each (ior-hard's shape), with gaps wider than the
 * page-cache kind joins in its advice: the stride run is planned as whole strides, so each
 * rank's advice goes out in spans of many blocks, or the run, sequential in the plan, is left to
 * the kernel's readahead (no request at all); advised block by block, every rank made one
 * request per block. */
void test_interleaved_blocks(void)
{
    const char *test = "stats: interleaved blocks advised as whole strides";
    const int blocks = 48, size = 96 << 10;
    int before = failures, k;
    char path[1024], stats[1024];
    unsigned char *buf = malloc((size_t)size);
    MPI_File fh;
    MPI_Info info;
    MPI_Status st;
    long long requests, bytes_read;
    path_of(path, sizeof path, "interleaved.dat");
    path_of(stats, sizeof stats, "interleaved.json");
    make_file(path, (uint64_t)size * blocks * nprocs + 100, SEED);
    if (rank == 0)
        unlink(stats);
    usleep(150000); /* past the racy window: a file changed in the last 100 ms is revalidated at
                     * every read, which drops the plan (src/io/backend.h) */
    MPI_Info_create(&info);
    MPI_Info_set(info, "prefetch_stats", stats);
    MPI_Info_set(info, "prefetch_step_aside", "0"); /* every read through pfio */
    must_open(test, path, MPI_MODE_RDONLY, info, &fh);
    for (k = 0; k < blocks && failures == before; ++k) {
        long long at = (long long)size * (k * nprocs + rank);
        MPI_File_read_at(fh, at, buf, size, MPI_BYTE, &st);
        check_count(test, &st, MPI_BYTE, size);
        check_range(test, buf, at, (size_t)size, SEED);
    }
    MPI_File_close(&fh);
    MPI_Info_free(&info);
    free(buf);
    if (rank == 0 && read_path == NULL && nprocs > 1) {
        requests = summary_value(stats, "requests");
        bytes_read = summary_value(stats, "bytes_read");
        if (requests > blocks * nprocs / 2)
            fail(test,
                 "%lld advice requests for %d blocks of every rank: expected at most %d (whole "
                 "strides joined)",
                 requests, blocks, blocks * nprocs / 2);
        /* the plan held (a dropped plan advises nothing); a read that overtakes its advice
         * (the advice thread late on a loaded machine) prunes that advice, so not all of it:
         * 8,454,144 of 9,437,184 bytes in a CI run beside other tests, all of them otherwise */
        if (bytes_read < (long long)size * blocks * nprocs / 2)
            fail(test, "%lld bytes advised or read for %lld asked: expected at least half",
                 bytes_read, (long long)size * blocks * nprocs);
    }
    report(test, before);
}

/* Strided requests of long extents (36 KiB, each rank's every (2 nprocs)-th block, so that one
 * rank's requests are strided too) and of short ones (1 KiB) past the judge's first stretch of
 * pfio calls, so that its trial of the stock path comes: on the page-cache kind that trial reads
 * the long extents one pread each (cache_direct) and gives the short ones to ROMIO's data
 * sieving; every byte checked on either path. */
void test_stock_path_extents(void)
{
    const char *test = "stats: the stock path reads long strided extents one pread each";
    const int calls = 96, positions = 8, per_call = 2;
    const int lengths[2] = {36 << 10, 1 << 10};
    int before = failures, k, e, which;
    char path[1024], stats[1024];
    MPI_File fh;
    MPI_Info info;
    MPI_Status st;
    MPI_Datatype vec, tile;
    long long direct[2];
    for (which = 0; which < 2; ++which) {
        const int block = lengths[which];
        const long long span = (long long)block * per_call * 2 * nprocs; /* one call's stride */
        unsigned char *buf = malloc((size_t)block * per_call);
        path_of(path, sizeof path, which == 0 ? "stock-long.dat" : "stock-short.dat");
        path_of(stats, sizeof stats, which == 0 ? "stock-long.json" : "stock-short.json");
        make_file(path, (uint64_t)span * positions, SEED);
        if (rank == 0)
            unlink(stats);
        MPI_Info_create(&info);
        MPI_Info_set(info, "prefetch_stats", stats);
        must_open(test, path, MPI_MODE_RDONLY, info, &fh);
        /* a call's tile: per_call blocks, every (2 nprocs)-th, tiled every `span` bytes */
        MPI_Type_vector(per_call, block, block * 2 * nprocs, MPI_BYTE, &vec);
        MPI_Type_create_resized(vec, 0, (MPI_Aint)span, &tile);
        MPI_Type_commit(&tile);
        MPI_File_set_view(fh, (MPI_Offset)block * rank, MPI_BYTE, tile, "native", MPI_INFO_NULL);
        for (k = 0; k < calls && failures == before; ++k) {
            /* tile k % positions: the view's offset counts the bytes it shows */
            MPI_File_read_at(fh, (MPI_Offset)(k % positions) * block * per_call, buf,
                             block * per_call, MPI_BYTE, &st);
            check_count(test, &st, MPI_BYTE, block * per_call);
            for (e = 0; e < per_call; ++e)
                check_range(test, buf + (size_t)block * e,
                            (k % positions) * span + (long long)block * (e * 2 * nprocs + rank),
                            (size_t)block, SEED);
        }
        MPI_File_close(&fh);
        MPI_Type_free(&tile);
        MPI_Type_free(&vec);
        MPI_Info_free(&info);
        free(buf);
        direct[which] = rank == 0 ? summary_value(stats, "cache_direct") : 0;
    }
    if (rank == 0 && read_path == NULL) {
        if (direct[0] < 1)
            fail(test, "cache_direct %lld for 36 KiB extents: expected the stock trial's reads",
                 direct[0]);
        if (direct[1] != 0)
            fail(test, "cache_direct %lld for 1 KiB extents: expected 0 (ROMIO's sieving)",
                 direct[1]);
    }
    report(test, before);
}
