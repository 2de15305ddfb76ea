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

/* Counters summed over the ranks, written by rank 0 next to the per-rank files. Collective. */
static void write_summary(ADIO_File fd, ADIOI_PREFETCH_File *pf)
{
    enum { kFields = 32, kMax = 4 };
    unsigned long long mine[kFields] = {0}, sum[kFields];
    /* per rank, the job's most: reorder buffer peak, that plus the memory charged to the budget
     * (exchange buffers), exchange buffer peak, and the budget cap negated (its least) */
    unsigned long long most[kMax] = {0}, most_all[kMax];
    pfio_stats st;
    int nprocs;
    /* with deferred open not every rank reaches Close: no collective summary then */
    if (pf->stats_path[0] == '\0' || fd->hints->deferred_open)
        return;
    memset(&st, 0, sizeof st);
    if (pf->ctx != NULL && pfio_stats_get(pf->ctx, &st, sizeof st) == PFIO_OK) {
        mine[0] = st.reads;
        mine[1] = st.hits;
        mine[2] = st.misses;
        mine[3] = st.stalls;
        mine[4] = st.bytes_served;
        mine[5] = st.bytes_read;
        mine[6] = st.bytes_wasted;
        mine[7] = st.requests;
        mine[8] = st.io_errors;
        most[0] = st.memory_peak;
        most[1] = st.memory_peak + st.memory_charged;
        most[3] = ~st.budget_cap;
    }
    if (pf->ctx != NULL)
        mine[26] = (unsigned long long)pf->page_cache;
    mine[9] = pf->stock_reads;
    if (pf->judge != NULL) {
        uint64_t stepped = 0;
        pfio_judge_counts(pf->judge, &stepped, NULL, NULL);
        mine[30] = stepped;
    }
    mine[10] = pf->invalidations;
    mine[22] = pf->cache_reads;
    mine[23] = pf->cache_sieved;
    if (pf->coll != NULL) {
        pfio_coll_stats cs;
        pfio_coll_get_stats(pf->coll, &cs);
        mine[11] = cs.calls;
        mine[12] = cs.stock_calls;
        mine[13] = cs.rounds;
        mine[14] = cs.plan_extents;
        mine[15] = cs.plan_bytes;
        mine[16] = cs.predicted_hits;
        mine[17] = cs.predicted_misses;
        mine[18] = cs.declared_calls;
        mine[19] = cs.bytes_read;
        mine[20] = cs.bytes_shipped;
        mine[21] = cs.exchange_steps;
        mine[24] = cs.calls_planned_ahead;
        mine[25] = cs.bytes_advised;
        mine[27] = cs.stepped_aside;
        mine[28] = cs.judge_decisions;
        mine[29] = cs.judge_chose_stock;
        mine[31] = cs.alone_calls;
        most[2] = cs.exchange_peak;
    }
    MPI_Reduce(mine, sum, kFields, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, fd->comm);
    MPI_Reduce(most, most_all, kMax, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, fd->comm);
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
        fprintf(f,
                "%s,\n  \"file\": \"%s\",\n  \"ranks\": %d,\n  \"reads\": %llu,\n"
                "  \"hits\": %llu,\n  \"misses\": %llu,\n  \"stalls\": %llu,\n"
                "  \"bytes_served\": %llu,\n  \"bytes_read\": %llu,\n  \"bytes_wasted\": %llu,\n"
                "  \"requests\": %llu,\n  \"io_errors\": %llu,\n  \"stock_reads\": %llu,\n"
                "  \"invalidations\": %llu,\n  \"stepped_aside\": %llu,\n  \"cache_reads\": %llu,\n"
                "  \"cache_sieved\": %llu,\n  \"page_cache_kind_ranks\": %llu,\n"
                "  \"memory_peak_max_rank\": %llu,\n"
                "  \"memory_held_max_rank\": %llu,\n  \"budget_min_rank\": %llu,\n"
                "  \"collective\": {\"calls\": %llu, \"stock_calls\": %llu, \"rounds\": %llu, "
                "\"plan_extents\": %llu, \"plan_bytes\": %llu, \"predicted_hits\": %llu, "
                "\"predicted_misses\": %llu, \"declared_calls\": %llu, "
                "\"bytes_read_by_aggregators\": %llu, \"bytes_shipped\": %llu, "
                "\"exchange_steps\": %llu, \"exchange_peak_max_rank\": %llu, "
                "\"calls_planned_ahead\": %llu, \"bytes_advised\": %llu, "
                "\"stepped_aside\": %llu, \"judge_decisions\": %llu, "
                "\"judge_chose_stock\": %llu, \"alone_calls\": %llu}\n}\n",
                kSummarySignature, fd->filename, nprocs, sum[0], sum[1], sum[2], sum[3], sum[4],
                sum[5], sum[6], sum[7], sum[8], sum[9], sum[10], sum[30], sum[22], sum[23], sum[26],
                most_all[0], most_all[1], ~most_all[3], sum[11] / (unsigned)nprocs,
                sum[12] / (unsigned)nprocs, sum[13] / (unsigned)nprocs, sum[14], sum[15],
                sum[16] / (unsigned)nprocs, sum[17] / (unsigned)nprocs, sum[18] / (unsigned)nprocs,
                sum[19], sum[20], sum[21] / (unsigned)nprocs, most_all[2], sum[24], sum[25],
                sum[27] / (unsigned)nprocs, sum[28] / (unsigned)nprocs, sum[29] / (unsigned)nprocs,
                sum[31] / (unsigned)nprocs);
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
