/* Open and close a prefetch file, and the consistency points (sync, resize) that drop what was
 * prefetched. The file itself is opened by UFS; pfio opens it a second time, read-only. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad_prefetch.h"
#include "pfio_front_end.h"
#include "adioi.h"

void ADIOI_UFS_Open(ADIO_File fd, int *error_code);

static void free_state(ADIO_File fd)
{
    ADIOI_PREFETCH_File *pf = fd->fs_ptr;
    if (pf == NULL)
        return;
    pfio_stride_destroy(pf->stride);
    pfio_calls_destroy(pf->calls);
    pfio_judge_destroy(pf->judge);
    pfio_config_destroy(pf->config);
    if (pf->open_info != MPI_INFO_NULL)
        MPI_Info_free(&pf->open_info);
    ADIOI_Free(pf);
    fd->fs_ptr = NULL;
}

/* Whether reads may use pfio at all; its context waits for the first read. */
static void allow_prefetching(ADIO_File fd, ADIOI_PREFETCH_File *pf)
{
    if (pf->internal)
        return;
    if ((fd->access_mode & ADIO_WRONLY) != 0) {
        snprintf(pf->why_stock, sizeof pf->why_stock, "opened write-only");
        return;
    }
    pf->start_pending = 1;
}

void ADIOI_PREFETCH_Open(ADIO_File fd, int *error_code)
{
    static const char myname[] = "ADIOI_PREFETCH_Open";
    ADIOI_PREFETCH_File *pf = fd->fs_ptr;
    if (pf == NULL) { /* SetInfo always runs first in ADIO_Open */
        *error_code = MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, myname, __LINE__,
                                           MPI_ERR_INTERN, "**io", "**io %s",
                                           "pfio: the driver state is missing at open");
        return;
    }
    if (pf->mismatch[0]) {
        *error_code = MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, myname, __LINE__,
                                           MPI_ERR_INFO_VALUE, "**io", "**io %s", pf->mismatch);
        if (pf->rank == 0 || getenv("PFIO_VERBOSE") != NULL)
            fprintf(stderr, "pfio: file %s: %s\n", fd->filename, pf->mismatch);
        return; /* the state stays: ROMIO may call Open again (access-mode retry) */
    }
    ADIOI_UFS_Open(fd, error_code);
    if (*error_code != MPI_SUCCESS)
        return; /* as above; a failed ADIO_Open frees fd without Close (a small leak) */
    allow_prefetching(fd, pf);
    ADIOI_PREFETCH_Print_hints(fd);
}

/* ROMIO's generic collective open; its create step (rank 0 creates the file, then closes it)
 * must not free the state the real open needs. */
void ADIOI_PREFETCH_OpenColl(ADIO_File fd, int rank, int access_mode, int *error_code)
{
    static const char myname[] = "ADIOI_PREFETCH_OpenColl";
    ADIOI_PREFETCH_File *pf = fd->fs_ptr;
    if (pf != NULL && pf->replay_path[0] && !pf->internal) {
        char why[1024];
        ADIOI_PREFETCH_Check_replay(fd, pf, why, sizeof why);
        if (why[0]) {
            *error_code = MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, myname, __LINE__,
                                               MPI_ERR_INFO_VALUE, "**io", "**io %s", why);
            if (pf->rank == 0)
                fprintf(stderr, "pfio: file %s: hint prefetch_replay: %s\n", fd->filename, why);
            return;
        }
    }
    if (pf != NULL && pf->record_path[0] && !pf->internal) {
        /* rank 0 writes the record: its verdict holds on every rank */
        char why[1024] = "";
        if (pf->rank == 0 && pfio_coll_check_record(pf->record_path, fd->filename) != PFIO_OK)
            snprintf(why, sizeof why, "%s", pfio_last_error());
        MPI_Bcast(why, (int)sizeof why, MPI_CHAR, 0, fd->comm);
        if (why[0]) {
            if (pf->rank == 0)
                fprintf(stderr, "pfio: file %s: hint %s; no record is written\n", fd->filename,
                        why);
            int length = 0, flag = 0;
            pf->record_path[0] = '\0';
            if (fd->info != MPI_INFO_NULL) {
                MPI_Info_get_valuelen(fd->info, "prefetch_record", &length, &flag);
                if (flag)
                    MPI_Info_delete(fd->info, "prefetch_record");
            }
        }
    }
    if (pf != NULL)
        pf->opening = 1;
    ADIOI_GEN_OpenColl(fd, rank, access_mode, error_code);
    pf = fd->fs_ptr;
    if (pf != NULL)
        pf->opening = 0;
}

int ADIOI_PREFETCH_Invalidate(ADIO_File fd, const char *caller)
{
    ADIOI_PREFETCH_File *pf = fd->fs_ptr;
    pfio_status s;
    if (pf == NULL || pf->ctx == NULL)
        return MPI_SUCCESS;
    ++pf->invalidations;
    ADIOI_PREFETCH_Forget_history(pf);
    /* no descriptor is closed: ROMIO may hold fcntl locks on the file (atomic mode, data
     * sieving), and closing any descriptor of a file drops all of the process's locks on it */
    s = pfio_file_refresh(pf->ctx, pf->file);
    if (s == PFIO_OK)
        s = pfio_file_size(pf->ctx, pf->file, &pf->size);
    if (s != PFIO_OK) {
        /* no stale byte may be served: from now on this file reads through the stock path */
        int code = ADIOI_PREFETCH_Error(caller, __LINE__, s);
        snprintf(pf->why_stock, sizeof pf->why_stock, "%s", pfio_last_error());
        pf->broken = 1;
        return code;
    }
    return MPI_SUCCESS;
}

/* Every job summary begins so: an earlier one is replaced, any other file refused (the rule of
 * every file pfio writes, pfio_front_end_write). */
static const char kSummarySignature[] = "{\n  \"pfio\": \"job summary\"";

/* The driver's own counts of a rank for the job summary, beside the engine's (pfio_stats) and the
 * collective layer's (pfio_coll_stats). */
typedef struct summary_counts {
    uint64_t stock_reads, invalidations, stepped_aside, cache_reads, cache_sieved, cache_direct;
    uint64_t page_cache_ranks; /* 1 on a rank whose context is of the page-cache kind */
    uint64_t memory_held;      /* the reorder buffer's peak and the exchange buffers */
    uint64_t budget_least;     /* the budget's cap as its complement, which MPI_MAX maximizes */
} summary_counts;

/* Each is reduced over the ranks: summed, summed and divided by the ranks (what every rank counts
 * alike: calls), the most of any rank, or the least. */
enum Reduce { SUM, PER_RANK, MOST, LEAST };
enum Source { ENGINE, DRIVER, COLLECTIVE };
/* The offset of a uint64_t member: a member of another type stops the build. */
#define U64_AT(type, member)                                                                       \
    (offsetof(type, member) + 0 * sizeof(char[sizeof(((type *)0)->member) == 8 ? 1 : -1]))
#define FROM_ENGINE(name, member, reduce)                                                          \
    {                                                                                              \
        name, ENGINE, U64_AT(pfio_stats, member), reduce                                           \
    }
#define FROM_DRIVER(name, member, reduce)                                                          \
    {                                                                                              \
        name, DRIVER, U64_AT(summary_counts, member), reduce                                       \
    }
#define FROM_COLL(name, member, reduce)                                                            \
    {                                                                                              \
        name, COLLECTIVE, U64_AT(pfio_coll_stats, member), reduce                                  \
    }

/* What a job summary holds, in the order it writes them; the collective layer's fields, last, go
 * in an object of their own. */
static const struct {
    const char *name;
    enum Source from;
    size_t offset;
    enum Reduce reduce;
} kSummaryField[] = {
    FROM_ENGINE("reads", reads, SUM),
    FROM_ENGINE("hits", hits, SUM),
    FROM_ENGINE("misses", misses, SUM),
    FROM_ENGINE("stalls", stalls, SUM),
    FROM_ENGINE("bytes_served", bytes_served, SUM),
    FROM_ENGINE("bytes_read", bytes_read, SUM),
    FROM_ENGINE("bytes_wasted", bytes_wasted, SUM),
    FROM_ENGINE("requests", requests, SUM),
    FROM_ENGINE("io_errors", io_errors, SUM),
    FROM_DRIVER("stock_reads", stock_reads, SUM),
    FROM_DRIVER("invalidations", invalidations, SUM),
    FROM_DRIVER("stepped_aside", stepped_aside, SUM),
    FROM_DRIVER("cache_reads", cache_reads, SUM),
    FROM_DRIVER("cache_sieved", cache_sieved, SUM),
    FROM_DRIVER("cache_direct", cache_direct, SUM),
    FROM_DRIVER("page_cache_kind_ranks", page_cache_ranks, SUM),
    FROM_ENGINE("memory_peak_max_rank", memory_peak, MOST), /* the reorder buffer's peak */
    FROM_DRIVER("memory_held_max_rank", memory_held, MOST),
    FROM_DRIVER("budget_min_rank", budget_least, LEAST),
    FROM_COLL("calls", calls, PER_RANK),
    FROM_COLL("stock_calls", stock_calls, PER_RANK),
    FROM_COLL("rounds", rounds, PER_RANK),
    FROM_COLL("plan_extents", plan_extents, SUM),
    FROM_COLL("plan_bytes", plan_bytes, SUM),
    FROM_COLL("predicted_hits", predicted_hits, PER_RANK),
    FROM_COLL("predicted_misses", predicted_misses, PER_RANK),
    FROM_COLL("declared_calls", declared_calls, PER_RANK),
    FROM_COLL("bytes_read_by_aggregators", bytes_read, SUM),
    FROM_COLL("bytes_shipped", bytes_shipped, SUM),
    FROM_COLL("exchange_steps", exchange_steps, PER_RANK),
    FROM_COLL("exchange_peak_max_rank", exchange_peak, MOST),
    FROM_COLL("calls_planned_ahead", calls_planned_ahead, SUM),
    FROM_COLL("bytes_advised", bytes_advised, SUM),
    FROM_COLL("stepped_aside", stepped_aside, PER_RANK),
    FROM_COLL("judge_decisions", judge_decisions, PER_RANK),
    FROM_COLL("judge_chose_stock", judge_chose_stock, PER_RANK),
    FROM_COLL("alone_calls", alone_calls, PER_RANK),
};
enum { kSummaryFields = sizeof kSummaryField / sizeof kSummaryField[0] };

/* This rank's value of every field; 0 where it has no context or no collective layer, which no
 * reduction takes (a least is held as its complement). */
static void summary_fields(ADIOI_PREFETCH_File *pf, unsigned long long *v)
{
    pfio_stats engine;
    pfio_coll_stats coll;
    summary_counts own;
    const char *source[3];
    int i;
    memset(&engine, 0, sizeof engine);
    memset(&coll, 0, sizeof coll);
    memset(&own, 0, sizeof own);
    if (pf->ctx != NULL && pfio_stats_get(pf->ctx, &engine, sizeof engine) != PFIO_OK)
        memset(&engine, 0, sizeof engine);
    else if (pf->ctx != NULL) {
        own.memory_held = engine.memory_peak + engine.memory_charged;
        own.budget_least = ~engine.budget_cap;
    }
    if (pf->ctx != NULL)
        own.page_cache_ranks = (uint64_t)pf->page_cache;
    own.stock_reads = pf->stock_reads;
    if (pf->judge != NULL)
        pfio_judge_counts(pf->judge, &own.stepped_aside, NULL, NULL);
    own.invalidations = pf->invalidations;
    own.cache_reads = pf->cache_reads;
    own.cache_sieved = pf->cache_sieved;
    own.cache_direct = pf->cache_direct;
    if (pf->coll != NULL)
        pfio_coll_get_stats(pf->coll, &coll);
    source[ENGINE] = (const char *)&engine;
    source[DRIVER] = (const char *)&own;
    source[COLLECTIVE] = (const char *)&coll;
    for (i = 0; i < kSummaryFields; ++i) {
        uint64_t value;
        memcpy(&value, source[kSummaryField[i].from] + kSummaryField[i].offset, sizeof value);
        v[i] = value;
    }
}

/* The fields summed and maximized over the ranks, written by rank 0 next to the per-rank files.
 * Collective. */
static void write_summary(ADIO_File fd, ADIOI_PREFETCH_File *pf)
{
    unsigned long long mine[kSummaryFields], sum[kSummaryFields], most[kSummaryFields];
    int nprocs, i;
    /* with deferred open not every rank reaches Close: no collective summary then */
    if (pf->stats_path[0] == '\0' || fd->hints->deferred_open)
        return;
    summary_fields(pf, mine);
    MPI_Reduce(mine, sum, kSummaryFields, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, fd->comm);
    MPI_Reduce(mine, most, kSummaryFields, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, fd->comm);
    MPI_Comm_size(fd->comm, &nprocs);
    if (pf->rank == 0) {
        char *text = NULL;
        size_t length = 0;
        FILE *f = open_memstream(&text, &length);
        if (f == NULL) {
            fprintf(stderr, "pfio: file %s: job summary %s not written: %s\n", fd->filename,
                    pf->stats_path, strerror(errno));
            return;
        }
        fprintf(f, "%s,\n  \"file\": \"%s\",\n  \"ranks\": %d,\n", kSummarySignature, fd->filename,
                nprocs);
        for (i = 0; i < kSummaryFields; ++i) {
            const enum Reduce reduce = kSummaryField[i].reduce;
            const int inner = kSummaryField[i].from == COLLECTIVE;
            const int first_inner = inner && (i == 0 || kSummaryField[i - 1].from != COLLECTIVE);
            unsigned long long value = reduce == SUM        ? sum[i]
                                       : reduce == PER_RANK ? sum[i] / (unsigned)nprocs
                                       : reduce == MOST     ? most[i]
                                                            : ~most[i];
            if (!inner)
                fprintf(f, "  \"%s\": %llu,\n", kSummaryField[i].name, value);
            else
                fprintf(f, "%s\"%s\": %llu", first_inner ? "  \"collective\": {" : ", ",
                        kSummaryField[i].name, value);
        }
        fprintf(f, "}\n}\n");
        if (fclose(f) != 0 || text == NULL)
            fprintf(stderr, "pfio: file %s: job summary %s not written: %s\n", fd->filename,
                    pf->stats_path, strerror(errno));
        else if (pfio_front_end_write(pf->stats_path, "job summary", kSummarySignature, text,
                                      length, fd->filename,
                                      "stats_path (hint prefetch_stats_path)") != PFIO_OK)
            fprintf(stderr, "pfio: file %s: job summary not written: %s\n", fd->filename,
                    pfio_last_error());
        free(text);
    }
}

void ADIOI_PREFETCH_Close(ADIO_File fd, int *error_code)
{
    ADIOI_PREFETCH_File *pf = fd->fs_ptr;
    if (pf != NULL && pf->opening) { /* the create step of OpenColl: the file stays ours */
        pfio_context_destroy(pf->ctx);
        pf->ctx = NULL;
        ADIOI_GEN_Close(fd, error_code);
        return;
    }
    if (pf != NULL) {
        write_summary(fd, pf);
        ADIOI_PREFETCH_Keep_judge(pf);
        if (pf->coll != NULL && pfio_coll_record_error(pf->coll)[0])
            fprintf(stderr, "pfio: file %s: hint prefetch_record: %s\n", fd->filename,
                    pfio_coll_record_error(pf->coll));
        ADIOI_PREFETCH_Coll_close(pf);
        /* Close is total: what pfio cannot do at close (write its stats, a bounded wait that
         * timed out) is said, and the file closes with the data's outcome alone. */
        if (pf->ctx != NULL && pfio_context_destroy(pf->ctx) != PFIO_OK)
            fprintf(stderr, "pfio: file %s: closing: %s (the file is closed)\n", fd->filename,
                    pfio_last_error());
        pf->ctx = NULL;
        free_state(fd);
    }
    ADIOI_GEN_Close(fd, error_code);
}

void ADIOI_PREFETCH_Flush(ADIO_File fd, int *error_code)
{
    ADIOI_GEN_Flush(fd, error_code);
    if (*error_code == MPI_SUCCESS)
        *error_code = ADIOI_PREFETCH_Invalidate(fd, "ADIOI_PREFETCH_Flush");
}

void ADIOI_PREFETCH_Resize(ADIO_File fd, ADIO_Offset size, int *error_code)
{
    ADIOI_GEN_Resize(fd, size, error_code);
    if (*error_code == MPI_SUCCESS)
        *error_code = ADIOI_PREFETCH_Invalidate(fd, "ADIOI_PREFETCH_Resize");
}
