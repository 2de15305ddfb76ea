/* Open and close a prefetch file, and the consistency points (sync, resize) that drop what was
 * prefetched. The file itself is opened by UFS; pfio opens it a second time, read-only. */
#include <errno.h>
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

/* What a job summary holds, in the order it writes them; the fields from F_COLL_CALLS on are the
 * collective layer's. Each is reduced over the ranks: summed, summed and divided by the ranks
 * (what every rank counts alike: calls), the most of any rank, or the least. */
enum Field {
    F_READS,
    F_HITS,
    F_MISSES,
    F_STALLS,
    F_BYTES_SERVED,
    F_BYTES_READ,
    F_BYTES_WASTED,
    F_REQUESTS,
    F_IO_ERRORS,
    F_STOCK_READS,
    F_INVALIDATIONS,
    F_STEPPED_ASIDE,
    F_CACHE_READS,
    F_CACHE_SIEVED,
    F_PAGE_CACHE_RANKS,
    F_MEMORY_PEAK,
    F_MEMORY_HELD,
    F_BUDGET_MIN,
    F_COLL_CALLS,
    F_COLL_STOCK_CALLS,
    F_COLL_ROUNDS,
    F_COLL_PLAN_EXTENTS,
    F_COLL_PLAN_BYTES,
    F_COLL_PREDICTED_HITS,
    F_COLL_PREDICTED_MISSES,
    F_COLL_DECLARED_CALLS,
    F_COLL_BYTES_READ,
    F_COLL_BYTES_SHIPPED,
    F_COLL_EXCHANGE_STEPS,
    F_COLL_EXCHANGE_PEAK,
    F_COLL_PLANNED_AHEAD,
    F_COLL_BYTES_ADVISED,
    F_COLL_STEPPED_ASIDE,
    F_COLL_JUDGE_DECISIONS,
    F_COLL_JUDGE_CHOSE_STOCK,
    F_COLL_ALONE_CALLS,
    kFields
};
enum Reduce { SUM, PER_RANK, MOST, LEAST };
static const struct {
    const char *name;
    enum Reduce reduce;
} kFieldOf[kFields] = {
    [F_READS] = {"reads", SUM},
    [F_HITS] = {"hits", SUM},
    [F_MISSES] = {"misses", SUM},
    [F_STALLS] = {"stalls", SUM},
    [F_BYTES_SERVED] = {"bytes_served", SUM},
    [F_BYTES_READ] = {"bytes_read", SUM},
    [F_BYTES_WASTED] = {"bytes_wasted", SUM},
    [F_REQUESTS] = {"requests", SUM},
    [F_IO_ERRORS] = {"io_errors", SUM},
    [F_STOCK_READS] = {"stock_reads", SUM},
    [F_INVALIDATIONS] = {"invalidations", SUM},
    [F_STEPPED_ASIDE] = {"stepped_aside", SUM},
    [F_CACHE_READS] = {"cache_reads", SUM},
    [F_CACHE_SIEVED] = {"cache_sieved", SUM},
    [F_PAGE_CACHE_RANKS] = {"page_cache_kind_ranks", SUM},
    [F_MEMORY_PEAK] = {"memory_peak_max_rank", MOST}, /* the reorder buffer's peak */
    [F_MEMORY_HELD] = {"memory_held_max_rank", MOST}, /* that and the exchange buffers */
    [F_BUDGET_MIN] = {"budget_min_rank", LEAST},      /* the budget's cap */
    [F_COLL_CALLS] = {"calls", PER_RANK},
    [F_COLL_STOCK_CALLS] = {"stock_calls", PER_RANK},
    [F_COLL_ROUNDS] = {"rounds", PER_RANK},
    [F_COLL_PLAN_EXTENTS] = {"plan_extents", SUM},
    [F_COLL_PLAN_BYTES] = {"plan_bytes", SUM},
    [F_COLL_PREDICTED_HITS] = {"predicted_hits", PER_RANK},
    [F_COLL_PREDICTED_MISSES] = {"predicted_misses", PER_RANK},
    [F_COLL_DECLARED_CALLS] = {"declared_calls", PER_RANK},
    [F_COLL_BYTES_READ] = {"bytes_read_by_aggregators", SUM},
    [F_COLL_BYTES_SHIPPED] = {"bytes_shipped", SUM},
    [F_COLL_EXCHANGE_STEPS] = {"exchange_steps", PER_RANK},
    [F_COLL_EXCHANGE_PEAK] = {"exchange_peak_max_rank", MOST},
    [F_COLL_PLANNED_AHEAD] = {"calls_planned_ahead", SUM},
    [F_COLL_BYTES_ADVISED] = {"bytes_advised", SUM},
    [F_COLL_STEPPED_ASIDE] = {"stepped_aside", PER_RANK},
    [F_COLL_JUDGE_DECISIONS] = {"judge_decisions", PER_RANK},
    [F_COLL_JUDGE_CHOSE_STOCK] = {"judge_chose_stock", PER_RANK},
    [F_COLL_ALONE_CALLS] = {"alone_calls", PER_RANK},
};

/* This rank's value of every field (a least as its complement, which the reduction maximizes). */
static void summary_fields(ADIOI_PREFETCH_File *pf, unsigned long long *v)
{
    pfio_stats st;
    memset(&st, 0, sizeof st);
    memset(v, 0, kFields * sizeof *v); /* a rank without a context: 0, which no reduction takes */
    if (pf->ctx != NULL && pfio_stats_get(pf->ctx, &st, sizeof st) == PFIO_OK) {
        v[F_READS] = st.reads;
        v[F_HITS] = st.hits;
        v[F_MISSES] = st.misses;
        v[F_STALLS] = st.stalls;
        v[F_BYTES_SERVED] = st.bytes_served;
        v[F_BYTES_READ] = st.bytes_read;
        v[F_BYTES_WASTED] = st.bytes_wasted;
        v[F_REQUESTS] = st.requests;
        v[F_IO_ERRORS] = st.io_errors;
        v[F_MEMORY_PEAK] = st.memory_peak;
        v[F_MEMORY_HELD] = st.memory_peak + st.memory_charged;
        v[F_BUDGET_MIN] = ~st.budget_cap;
    }
    if (pf->ctx != NULL)
        v[F_PAGE_CACHE_RANKS] = (unsigned long long)pf->page_cache;
    v[F_STOCK_READS] = pf->stock_reads;
    if (pf->judge != NULL) {
        uint64_t stepped = 0;
        pfio_judge_counts(pf->judge, &stepped, NULL, NULL);
        v[F_STEPPED_ASIDE] = stepped;
    }
    v[F_INVALIDATIONS] = pf->invalidations;
    v[F_CACHE_READS] = pf->cache_reads;
    v[F_CACHE_SIEVED] = pf->cache_sieved;
    if (pf->coll != NULL) {
        pfio_coll_stats cs;
        pfio_coll_get_stats(pf->coll, &cs);
        v[F_COLL_CALLS] = cs.calls;
        v[F_COLL_STOCK_CALLS] = cs.stock_calls;
        v[F_COLL_ROUNDS] = cs.rounds;
        v[F_COLL_PLAN_EXTENTS] = cs.plan_extents;
        v[F_COLL_PLAN_BYTES] = cs.plan_bytes;
        v[F_COLL_PREDICTED_HITS] = cs.predicted_hits;
        v[F_COLL_PREDICTED_MISSES] = cs.predicted_misses;
        v[F_COLL_DECLARED_CALLS] = cs.declared_calls;
        v[F_COLL_BYTES_READ] = cs.bytes_read;
        v[F_COLL_BYTES_SHIPPED] = cs.bytes_shipped;
        v[F_COLL_EXCHANGE_STEPS] = cs.exchange_steps;
        v[F_COLL_EXCHANGE_PEAK] = cs.exchange_peak;
        v[F_COLL_PLANNED_AHEAD] = cs.calls_planned_ahead;
        v[F_COLL_BYTES_ADVISED] = cs.bytes_advised;
        v[F_COLL_STEPPED_ASIDE] = cs.stepped_aside;
        v[F_COLL_JUDGE_DECISIONS] = cs.judge_decisions;
        v[F_COLL_JUDGE_CHOSE_STOCK] = cs.judge_chose_stock;
        v[F_COLL_ALONE_CALLS] = cs.alone_calls;
    }
}

/* The fields summed and maximized over the ranks, written by rank 0 next to the per-rank files.
 * Collective. */
static void write_summary(ADIO_File fd, ADIOI_PREFETCH_File *pf)
{
    unsigned long long mine[kFields], sum[kFields], most[kFields];
    int nprocs, i;
    /* with deferred open not every rank reaches Close: no collective summary then */
    if (pf->stats_path[0] == '\0' || fd->hints->deferred_open)
        return;
    summary_fields(pf, mine);
    MPI_Reduce(mine, sum, kFields, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, fd->comm);
    MPI_Reduce(mine, most, kFields, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, fd->comm);
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
        for (i = 0; i < kFields; ++i) {
            unsigned long long value = kFieldOf[i].reduce == SUM        ? sum[i]
                                       : kFieldOf[i].reduce == PER_RANK ? sum[i] / (unsigned)nprocs
                                       : kFieldOf[i].reduce == MOST     ? most[i]
                                                                        : ~most[i];
            if (i < F_COLL_CALLS)
                fprintf(f, "  \"%s\": %llu,\n", kFieldOf[i].name, value);
            else
                fprintf(f, "%s\"%s\": %llu%s", i == F_COLL_CALLS ? "  \"collective\": {" : ", ",
                        kFieldOf[i].name, value, i + 1 == kFields ? "}\n}\n" : "");
        }
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
