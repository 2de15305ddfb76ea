/* Independent reads through pfio, and the plan that makes them fast before any plan is declared:
 *  - a request of several extents (a strided file view) is its own plan: its extents replace
 *    what was planned, so pfio reads them at queue depth in the order the view visits them;
 *  - requests that repeat shifted by a constant (time steps, segments) are planned ahead;
 *  - single extents feed a history predictor: after three reads of one length at a constant
 *    stride (sequential is stride = length) the next ones are planned, and the moment a read
 *    breaks the pattern the prediction is cleared. A wrong prediction costs reading time, never
 *    bytes: pfio serves only what the file holds, and reads outside the plan go direct.
 * Every read goes through the file's pfio engine, predictions as its plan, in the file's buffer
 * kind (hint prefetch_read_path, the same as prefetch_coll_path): "cache" (the default), the
 * engine's page-cache kind (the plan advised into the kernel's page cache under the budget,
 * sequential runs left to its readahead), or "engine", pfio's reorder buffer (O_DIRECT). On the
 * page-cache kind a strided request whose extents fill at least 1/SIEVE_DENSITY of their span is
 * read by ROMIO's data sieving, whose large reads of the span go through the engine as
 * contiguous reads (ranks reading interleaved blocks share the page cache, and on the machine
 * measured that beat reading each rank's blocks alone, see docs/romio-driver.md). The judge's
 * stock path for a strided request of the page-cache kind whose extents are long (DIRECT_EXTENT
 * on average) is not ROMIO's sieving, which copies the whole span, but one pread per extent, as
 * Open MPI's OMPIO reads it (docs/romio-driver.md, "Stepping aside"). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ad_prefetch.h"
#include "adioi.h"

/* How far predictions reach: PFIO_LOOKAHEAD_BYTES and _EXTENTS (predict/pfio_predict.h), and at
 * most this many whole requests ahead of the reader. */
#define LOOKAHEAD_CALLS 8
#define SIEVE_DENSITY 16
/* A strided request whose extents average at least this many bytes is read, on the stock path
 * of the page-cache kind, one pread per extent (see read_direct). */
#define DIRECT_EXTENT (32 << 10)
/* The look-ahead of a run grows with its length: this many extents per read of the run. */
#define LOOKAHEAD_RAMP 4

void ADIOI_PREFETCH_Set_status(ADIO_Status *status, MPI_Datatype datatype, uint64_t bytes)
{
#ifdef HAVE_STATUS_SET_BYTES
    MPIR_Status_set_bytes(status, datatype, (MPI_Count)bytes);
#else
    (void)status;
    (void)datatype;
    (void)bytes;
#endif
}

/* Nothing predicted stays in the plan. */
static void clear_predictions(ADIOI_PREFETCH_File *pf, int stride_planned)
{
    pfio_extent none;
    if (stride_planned || pf->planned_calls > 0)
        pfio_plan_replace(pf->ctx, &none, 0);
    pf->planned_calls = 0;
}

/* The process's files of one buffer kind whose first reads have one shape share their
 * independent reads' judge, one file after another (pfio_judge_take): a program reading many
 * short files alike is judged on all of them. */
static const char *judge_key(const ADIOI_PREFETCH_File *pf)
{
    return pf->page_cache ? "independent/cache" : "independent/engine";
}

void ADIOI_PREFETCH_Keep_judge(const ADIOI_PREFETCH_File *pf)
{
    if (pf->judge != NULL)
        pfio_judge_keep(pf->judge, judge_key(pf));
}

/* Whether this read is judged (docs/romio-driver.md, "Stepping aside"). The file's first judged
 * read takes the judge, keyed by the shape of its extents (`first`: `nfirst` of them), before
 * pfio's context starts: a file whose carried judge keeps its reads on ROMIO never starts it. */
static int judging(ADIOI_PREFETCH_File *pf, const pfio_extent *first, int nfirst)
{
    if (!pf->step_aside || pf->sieving)
        return 0;
    if (pf->judge == NULL && ADIOI_PREFETCH_Kind_known(pf) &&
        pfio_judge_take(judge_key(pf), first, first != NULL ? (size_t)nfirst : 0, &pf->judge) !=
            PFIO_OK)
        pf->judge = NULL; /* no judge: pfio serves every read */
    return pf->judge != NULL;
}

/* 1 when the judge gives this application read to ROMIO's own path. Switching there drops what
 * pfio predicted, which no read through pfio would consume. */
static int judged_stock(ADIOI_PREFETCH_File *pf, const pfio_extent *first, int nfirst)
{
    int stock;
    if (!judging(pf, first, nfirst))
        return 0;
    stock = pfio_judge_next(pf->judge);
    if (stock && !pf->judge_stock) {
        clear_predictions(pf, pf->stride != NULL && pfio_stride_planning(pf->stride));
        ADIOI_PREFETCH_Forget_history(pf);
    }
    pf->judge_stock = stock;
    return stock;
}

/* The judged read took ns since `started` for `bytes`, on the path the judge gave it. */
static void judged_done(ADIOI_PREFETCH_File *pf, uint64_t bytes, uint64_t started)
{
    if (pf->step_aside && !pf->sieving && pf->judge != NULL)
        pfio_judge_record(pf->judge, pf->judge_stock, bytes, ADIOI_PREFETCH_Now_ns() - started);
}

/* A read the judge gave to ROMIO: ROMIO's code, its own reads too (ADIOI_PREFETCH_Usable); a
 * strided one with its status counted to the end of the file (ADIOI_PREFETCH_Read_stock). */
static void read_stock(ADIO_File fd, ADIOI_PREFETCH_File *pf, int strided, void *buf, int count,
                       MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset,
                       ADIO_Offset fp_ind, ADIO_Status *status, int *error_code)
{
    uint64_t started = ADIOI_PREFETCH_Now_ns();
    pf->stepping_aside = 1;
    if (strided)
        ADIOI_PREFETCH_Read_stock(ADIOI_GEN_ReadStrided, fd, buf, count, datatype, file_ptr_type,
                                  offset, fp_ind, status, error_code);
    else
        ADIOI_GEN_ReadContig(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
    pf->stepping_aside = 0;
    if (*error_code == MPI_SUCCESS)
        judged_done(pf, ADIOI_PREFETCH_Request_bytes(count, datatype), started);
}

/* The places of the user's memory that a request's bytes past the end of the file would land
 * in, saved before ROMIO reads it: its strided and two-phase reads fill them with stale bytes
 * (tests/mpi/reliability_test.c, iread-eof and coll-eof), where pfio's path leaves them as they
 * were. */
typedef struct {
    pfio_read_piece *pieces; /* the request's parts past the end: memory, file offset, length */
    int n;
    char *saved;
    int failed; /* no memory to save them in */
} Past_end;

static void save_past_end(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                          int file_ptr_type, ADIO_Offset offset, ADIO_Offset fp_ind, uint64_t eof,
                          Past_end *past)
{
    pfio_extent *extents = NULL;
    int npieces = 0, nextents = 0, i, ok;
    uint64_t total = 0, bytes = 0;
    ADIO_Offset kept = fd->fp_ind;
    memset(past, 0, sizeof *past);
    fd->fp_ind = fp_ind; /* the view is walked from the pointer before the read, and put back */
    ok = ADIOI_PREFETCH_View_pieces(fd, buf, count, datatype, file_ptr_type, offset, &past->pieces,
                                    &npieces, &extents, &nextents, &total);
    fd->fp_ind = kept;
    free(extents);
    if (!ok) {
        past->failed = 1;
        return;
    }
    for (i = 0; i < npieces; ++i) {
        pfio_read_piece q = past->pieces[i];
        if (q.offset + q.length <= eof)
            continue;
        if (q.offset < eof) {
            q.buf = (char *)q.buf + (eof - q.offset);
            q.length -= eof - q.offset;
            q.offset = eof;
        }
        past->pieces[past->n++] = q;
        bytes += q.length;
    }
    if (past->n > 0 && (past->saved = malloc(bytes)) == NULL)
        past->failed = 1;
    for (i = 0, bytes = 0; past->saved != NULL && i < past->n; bytes += past->pieces[i++].length)
        memcpy(past->saved + bytes, past->pieces[i].buf, past->pieces[i].length);
}

/* Puts back what lies past `eof` (the file's end after the read: what it grew by was read). */
static void restore_past_end(Past_end *past, uint64_t eof)
{
    uint64_t at = 0;
    int i;
    for (i = 0; past->saved != NULL && i < past->n; at += past->pieces[i++].length) {
        const pfio_read_piece *q = &past->pieces[i];
        uint64_t skip = eof > q->offset ? eof - q->offset : 0;
        if (skip < q->length)
            memcpy((char *)q->buf + skip, past->saved + at + skip, q->length - skip);
    }
    free(past->pieces);
    free(past->saved);
}

void ADIOI_PREFETCH_Read_stock(ADIOI_PREFETCH_Blocking_read read, ADIO_File fd, void *buf,
                               int count, MPI_Datatype datatype, int file_ptr_type,
                               ADIO_Offset offset, ADIO_Offset fp_ind, ADIO_Status *status,
                               int *error_code)
{
    struct stat before, after;
    int crosses = 0, known = 0;
    uint64_t bytes = 0;
    Past_end past;
    memset(&past, 0, sizeof past);
    if (fd->fd_sys >= 0 && fstat(fd->fd_sys, &before) == 0) {
        known = 1;
        bytes = ADIOI_PREFETCH_View_bytes_before(fd, count, datatype, file_ptr_type, offset, fp_ind,
                                                 (uint64_t)before.st_size, &crosses);
        if (crosses)
            save_past_end(fd, buf, count, datatype, file_ptr_type, offset, fp_ind,
                          (uint64_t)before.st_size, &past);
    }
    read(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
    if (!known || fstat(fd->fd_sys, &after) != 0) {
        free(past.pieces);
        free(past.saved);
        return;
    }
    restore_past_end(&past, (uint64_t)after.st_size);
    if (*error_code == MPI_SUCCESS && past.failed)
        *error_code =
            MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, "ADIOI_PREFETCH_Read_stock",
                                 __LINE__, MPI_ERR_NO_MEM, "**nomem", 0);
    if (*error_code != MPI_SUCCESS)
        return;
    if (after.st_size != before.st_size) /* it changed during the read: counted to its end now */
        bytes = ADIOI_PREFETCH_View_bytes_before(fd, count, datatype, file_ptr_type, offset, fp_ind,
                                                 (uint64_t)after.st_size, &crosses);
    if (crosses)
        ADIOI_PREFETCH_Set_status(status, datatype, bytes);
}

/* [offset, offset+length) cut to the file as pfio saw it; 0 when nothing is left. */
static int clip(const ADIOI_PREFETCH_File *pf, pfio_extent *e, ADIO_Offset offset,
                ADIO_Offset length)
{
    if (offset < 0 || (uint64_t)offset >= pf->size || length <= 0)
        return 0;
    e->file = pf->file;
    e->marked = 0;
    e->offset = (uint64_t)offset;
    e->length = (uint64_t)length;
    if (e->offset + e->length > pf->size)
        e->length = pf->size - e->offset;
    return 1;
}

/* The bytes of a run's every stride that are planned: the extent read, or on the page-cache kind
 * the whole stride (the extent and the gap after it) when the extents lie at most as many apart
 * as the file has ranks. The ranks together likely read the gaps (ior-hard's interleaved blocks:
 * each rank's every `ranks`-th), so the kernel reads the span once in large requests, as its
 * readahead does for stock ROMIO, where advice of each rank's extents made one request each
 * (docs/romio-driver.md, "What goes through pfio"). */
static ADIO_Offset planned_length(const ADIOI_PREFETCH_File *pf, ADIO_Offset length,
                                  ADIO_Offset step)
{
    if (pf->page_cache && pf->ranks > 0 && step > length && step / pf->ranks <= length)
        return step;
    return length;
}

/* Appends the run's next extents until its look-ahead (64 MiB, 8 to 4096 extents) is full. */
static void plan_run_ahead(ADIOI_PREFETCH_File *pf, ADIO_Offset offset, ADIO_Offset length)
{
    ADIO_Offset step = pfio_stride_step(pf->stride);
    ADIO_Offset planned = planned_length(pf, length, step);
    uint64_t want =
        pfio_stride_want(pf->stride, (uint64_t)planned, LOOKAHEAD_RAMP, PFIO_LOOKAHEAD_EXTENTS);
    uint64_t n = 0;
    ADIO_Offset next = pfio_stride_next(pf->stride, (uint64_t)offset);
    pfio_extent *plan;
    if (want == 0)
        return;
    plan = malloc((size_t)want * sizeof *plan);
    if (plan == NULL)
        return; /* no prediction: reads still work, directly */
    while (n < want && clip(pf, &plan[n], next, planned)) {
        ++n;
        next += step;
    }
    if (n > 0 && pfio_plan_append(pf->ctx, plan, (size_t)n) == PFIO_OK)
        pfio_stride_planned(pf->stride, n, next);
    free(plan);
}

/* One single-extent read seen: keep, extend or clear the prediction (predict/pfio_predict.h). */
static void observe_extent(ADIOI_PREFETCH_File *pf, ADIO_Offset offset, ADIO_Offset length)
{
    pfio_stride_event ev;
    if (pf->calls != NULL && pfio_calls_seen(pf->calls)) { /* the multi-extent pattern ended */
        clear_predictions(pf, 0);
        pfio_calls_reset(pf->calls);
    }
    if (pf->stride == NULL && pfio_stride_create(NULL, &pf->stride) != PFIO_OK)
        return; /* no prediction: reads still work, directly */
    pfio_stride_observe(pf->stride, (uint64_t)offset, (uint64_t)length, 0, &ev);
    if (ev.dropped)
        clear_predictions(pf, 1);
    if (ev.running)
        plan_run_ahead(pf, offset, length);
}

/* Appends copies of `e` shifted by k * shift for the calls not yet planned. */
static void plan_calls_ahead(ADIOI_PREFETCH_File *pf, const pfio_extent *e, int n, uint64_t bytes)
{
    ADIO_Offset shift = pfio_calls_shift(pf->calls);
    int want = (int)(PFIO_LOOKAHEAD_BYTES / (bytes ? bytes : 1)), k, i;
    pfio_extent *plan = malloc((size_t)n * sizeof *plan);
    if (want < 1)
        want = 1;
    if (want > LOOKAHEAD_CALLS)
        want = LOOKAHEAD_CALLS;
    if (plan == NULL)
        return;
    for (k = pf->planned_calls + 1; k <= want; ++k) {
        int m = 0;
        for (i = 0; i < n; ++i)
            m += clip(pf, &plan[m], (ADIO_Offset)e[i].offset + k * shift, (ADIO_Offset)e[i].length);
        if (m == 0 || pfio_plan_append(pf->ctx, plan, (size_t)m) != PFIO_OK)
            break;
        pf->planned_calls = k;
    }
    free(plan);
}

/* A multi-extent request seen: it becomes the plan, unless it was predicted and is already
 * (requests that repeat shifted: two copies in a row, predict/pfio_predict.h). */
static void observe_request(ADIOI_PREFETCH_File *pf, pfio_extent *e, int n, uint64_t bytes)
{
    int i, m = 0, hit;
    if (pf->stride != NULL && pfio_stride_planning(pf->stride)) /* the single-extent run ended */
        clear_predictions(pf, 1);
    if (pf->stride != NULL)
        pfio_stride_reset(pf->stride);
    if (pf->calls == NULL && pfio_calls_create(2, &pf->calls) != PFIO_OK)
        pf->calls = NULL;
    hit = pf->calls != NULL && pfio_calls_observe(pf->calls, e, (size_t)n);
    if (hit && pf->planned_calls > 0) {
        --pf->planned_calls; /* this request was predicted: its extents are in the plan */
    } else {
        pfio_extent *plan = malloc(((size_t)n + 1) * sizeof *plan);
        if (plan != NULL) {
            for (i = 0; i < n; ++i)
                m += clip(pf, &plan[m], (ADIO_Offset)e[i].offset, (ADIO_Offset)e[i].length);
            if (pfio_plan_replace(pf->ctx, plan, (size_t)m) != PFIO_OK)
                pfio_plan_replace(pf->ctx, plan, 0);
            free(plan);
        }
        pf->planned_calls = 0;
    }
    if (pf->calls != NULL && pfio_calls_shift(pf->calls) != 0)
        plan_calls_ahead(pf, e, n, bytes);
}

/* Bytes past the size pfio saw at open (the file grew since): pread on ROMIO's descriptor until
 * EOF. */
static int pread_until_eof(ADIO_File fd, char *buf, ADIO_Offset offset, uint64_t length,
                           uint64_t *got)
{
    *got = 0;
    while (*got < length) {
        ssize_t r = pread(fd->fd_sys, buf + *got, length - *got, offset + (ADIO_Offset)*got);
        if (r < 0)
            return MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, "ADIOI_PREFETCH_Read",
                                        __LINE__, MPI_ERR_IO, "**io", "**io %s", strerror(errno));
        if (r == 0)
            break;
        *got += (uint64_t)r;
    }
    return MPI_SUCCESS;
}

void ADIOI_PREFETCH_ReadContig(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                               int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                               int *error_code)
{
    ADIOI_PREFETCH_File *pf = ADIOI_PREFETCH_Usable_unstarted(fd);
    uint64_t length, nread = 0, more = 0, started;
    pfio_extent read = {0};
    pfio_status s;
    if (pf == NULL) {
        ADIOI_GEN_ReadContig(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
        return;
    }
    length = ADIOI_PREFETCH_Request_bytes(count, datatype);
    read.offset = (uint64_t)(file_ptr_type == ADIO_INDIVIDUAL ? fd->fp_ind : offset);
    read.length = length;
    if (judged_stock(pf, &read, length > 0)) {
        read_stock(fd, pf, 0, buf, count, datatype, file_ptr_type, offset, fd->fp_ind, status,
                   error_code);
        return;
    }
    if (!ADIOI_PREFETCH_Started(fd, pf) || !ADIOI_PREFETCH_Current(fd, pf)) {
        ADIOI_GEN_ReadContig(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
        return;
    }
    started = ADIOI_PREFETCH_Now_ns();
    if (file_ptr_type == ADIO_INDIVIDUAL)
        offset = fd->fp_ind;
    if (length > 0) {
        /* data sieving's reads of a span are not the application's: no prediction from them */
        if (!pf->sieving)
            observe_extent(pf, offset, (ADIO_Offset)length);
        if (pf->page_cache && !pf->sieving)
            ++pf->cache_reads;
        s = pfio_read(pf->ctx, pf->file, buf, (uint64_t)offset, length, &nread);
        if (s != PFIO_OK) {
            *error_code = ADIOI_PREFETCH_Error("ADIOI_PREFETCH_ReadContig", __LINE__, s);
            return;
        }
        if (nread < length) {
            *error_code = pread_until_eof(fd, (char *)buf + nread, offset + (ADIO_Offset)nread,
                                          length - nread, &more);
            if (*error_code != MPI_SUCCESS)
                return;
            nread += more;
        }
    }
    fd->fp_sys_posn = -1; /* pfio reads with its own handle */
    if (file_ptr_type == ADIO_INDIVIDUAL)
        fd->fp_ind += (ADIO_Offset)nread;
    ADIOI_PREFETCH_Set_status(status, datatype, nread);
    *error_code = MPI_SUCCESS;
    judged_done(pf, length, started);
}

/* Whether a strided request's extents are dense: several, filling at least 1/SIEVE_DENSITY of
 * their span, which ends at *end. The rule both stock readers of the page-cache kind follow
 * (read_sieved, read_direct). */
static int dense(const pfio_extent *extents, int nextents, uint64_t total, uint64_t *end)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    int i;
    for (i = 0; i < nextents; ++i) {
        if (extents[i].offset < lo)
            lo = extents[i].offset;
        if (extents[i].offset + extents[i].length > hi)
            hi = extents[i].offset + extents[i].length;
    }
    *end = hi;
    return nextents > 1 && total * SIEVE_DENSITY >= hi - lo;
}

/* Whether a strided request on the page-cache kind is read by ROMIO's data sieving: dense, and
 * within the size pfio saw at open. */
static int sieved(const ADIOI_PREFETCH_File *pf, const pfio_extent *extents, int nextents,
                  uint64_t total)
{
    uint64_t end;
    return dense(extents, nextents, total, &end) && end <= pf->size;
}

/* A strided request read by ROMIO's data sieving (the page-cache kind, see the file's head): the
 * view is walked again from the same place, and sieving's reads of the span come back to
 * ADIOI_PREFETCH_ReadContig, which reads them through the engine. */
static void read_sieved(ADIO_File fd, ADIOI_PREFETCH_File *pf, void *buf, int count,
                        MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset,
                        ADIO_Status *status, ADIO_Offset fp_ind, int *error_code)
{
    ++pf->cache_reads;
    ++pf->cache_sieved;
    fd->fp_ind = fp_ind;
    pf->sieving = 1;
    ADIOI_GEN_ReadStrided(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
    pf->sieving = 0;
}

/* The pieces' bytes from *nread on (bytes of the pieces in order), read directly, one pread per
 * piece, up to the end of the file; *nread grows by what was read. */
static int read_pieces_from(ADIO_File fd, const pfio_read_piece *pieces, int npieces,
                            uint64_t *nread)
{
    uint64_t served = *nread, seen = 0, got = 0;
    int i, error_code = MPI_SUCCESS;
    for (i = 0; i < npieces && error_code == MPI_SUCCESS; ++i) {
        uint64_t skip = served > seen ? served - seen : 0;
        seen += pieces[i].length;
        if (skip >= pieces[i].length)
            continue;
        error_code =
            pread_until_eof(fd, (char *)pieces[i].buf + skip,
                            (ADIO_Offset)(pieces[i].offset + skip), pieces[i].length - skip, &got);
        *nread += got;
        if (got < pieces[i].length - skip)
            break; /* end of file */
    }
    return error_code;
}

/* A strided request of `total` bytes read since `started`, nread of them (the rest past the end
 * of the file), with `error_code`: its status set and the judge told. */
static void strided_done(ADIO_File fd, ADIOI_PREFETCH_File *pf, ADIO_Status *status,
                         MPI_Datatype datatype, uint64_t nread, uint64_t total, uint64_t started,
                         int error_code)
{
    fd->fp_sys_posn = -1;
    if (error_code == MPI_SUCCESS) {
        ADIOI_PREFETCH_Set_status(status, datatype, nread);
        judged_done(pf, total, started);
    }
}

/* A strided request the judge gave to the stock path, on the page-cache kind: when its extents
 * are long (DIRECT_EXTENT on average) and near each other (filling 1/SIEVE_DENSITY of their
 * span), read one pread per extent into the user's memory, as OMPIO reads it, and 1 is
 * returned; ROMIO's data sieving would read and copy the whole span (four times the bytes at
 * ior-hard's density of 1/4), and ranks that read interleaved extents share the kernel's
 * readahead; extents far apart (random blocks) would cost a round trip each on latency-bound
 * storage (docs/romio-driver.md, "Stepping aside"). Else 0, nothing read, the view where it
 * was. */
static int read_direct(ADIO_File fd, ADIOI_PREFETCH_File *pf, void *buf, int count,
                       MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset,
                       ADIO_Offset fp_ind, ADIO_Status *status, int *error_code)
{
    pfio_read_piece *pieces = NULL;
    pfio_extent *extents = NULL;
    int npieces = 0, nextents = 0;
    uint64_t total = 0, nread = 0, started = ADIOI_PREFETCH_Now_ns(), end = 0;
    if (!pf->page_cache)
        return 0;
    if (!ADIOI_PREFETCH_View_pieces(fd, buf, count, datatype, file_ptr_type, offset, &pieces,
                                    &npieces, &extents, &nextents, &total) ||
        extents == NULL || total < (uint64_t)nextents * DIRECT_EXTENT ||
        !dense(extents, nextents, total, &end)) {
        fd->fp_ind = fp_ind;
        free(pieces);
        free(extents);
        return 0;
    }
    ++pf->cache_direct;
    *error_code = read_pieces_from(fd, pieces, npieces, &nread);
    strided_done(fd, pf, status, datatype, nread, total, started, *error_code);
    free(pieces);
    free(extents);
    return 1;
}

void ADIOI_PREFETCH_ReadStrided(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                                int *error_code)
{
    ADIOI_PREFETCH_File *pf = ADIOI_PREFETCH_Usable_unstarted(fd);
    pfio_read_piece *pieces = NULL;
    pfio_extent *extents = NULL;
    int npieces = 0, nextents = 0, i, sieve;
    uint64_t total = 0, nread = 0, started;
    ADIO_Offset fp_ind = fd->fp_ind;
    pfio_status s;
    if (pf == NULL) {
        ADIOI_GEN_ReadStrided(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
        return;
    }
    if (pf->judge == NULL && pf->step_aside && !pf->sieving) {
        /* the first judged read: its extents name the judge (the view walked again below) */
        if (ADIOI_PREFETCH_View_pieces(fd, buf, count, datatype, file_ptr_type, offset, &pieces,
                                       &npieces, &extents, &nextents, &total))
            (void)judging(pf, extents, nextents);
        fd->fp_ind = fp_ind;
        free(pieces);
        free(extents);
        pieces = NULL;
        extents = NULL;
    }
    if (judged_stock(pf, NULL, 0)) {
        if (!read_direct(fd, pf, buf, count, datatype, file_ptr_type, offset, fp_ind, status,
                         error_code))
            read_stock(fd, pf, 1, buf, count, datatype, file_ptr_type, offset, fp_ind, status,
                       error_code);
        return;
    }
    if (!ADIOI_PREFETCH_Started(fd, pf) || !ADIOI_PREFETCH_Current(fd, pf)) {
        ADIOI_GEN_ReadStrided(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
        return;
    }
    started = ADIOI_PREFETCH_Now_ns();
    if (!ADIOI_PREFETCH_View_pieces(fd, buf, count, datatype, file_ptr_type, offset, &pieces,
                                    &npieces, &extents, &nextents, &total)) {
        *error_code =
            MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, "ADIOI_PREFETCH_ReadStrided",
                                 __LINE__, MPI_ERR_NO_MEM, "**nomem", 0);
        return;
    }
    for (i = 0; i < nextents; ++i)
        extents[i].file = pf->file;
    sieve = pf->page_cache && sieved(pf, extents, nextents, total);
    /* A request ROMIO sieves is read in large sequential pieces, which the kernel's readahead
     * serves; advice for its extents would only break those up (see the file's head). */
    if (nextents == 1)
        observe_extent(pf, (ADIO_Offset)extents[0].offset, (ADIO_Offset)extents[0].length);
    else if (nextents > 1 && !sieve)
        observe_request(pf, extents, nextents, total);
    if (sieve) {
        read_sieved(fd, pf, buf, count, datatype, file_ptr_type, offset, status, fp_ind,
                    error_code);
        if (*error_code == MPI_SUCCESS)
            judged_done(pf, total, started);
        free(pieces);
        free(extents);
        return;
    }
    if (pf->page_cache)
        ++pf->cache_reads;
    s = pfio_readv(pf->ctx, pf->file, pieces, (size_t)npieces, &nread);
    *error_code = MPI_SUCCESS;
    if (s != PFIO_OK)
        *error_code = ADIOI_PREFETCH_Error("ADIOI_PREFETCH_ReadStrided", __LINE__, s);
    else if (nread < total) /* pfio stopped at the size it saw at open: the rest, if it grew */
        *error_code = read_pieces_from(fd, pieces, npieces, &nread);
    strided_done(fd, pf, status, datatype, nread, total, started, *error_code);
    free(pieces);
    free(extents);
}

/* The bytes a read's status reports. ROMIO's fake nonblocking reads report count × size (Open
 * MPI's 3.2.1: too many past EOF) or MPI_Get_count × size (MPICH: MPI_UNDEFINED × size, a
 * negative count that aborts MPI_Wait, when the read ends inside a datatype). */
MPI_Offset ADIOI_PREFETCH_Status_bytes(ADIO_Status *status)
{
    MPI_Count bytes = 0;
    if (MPI_Get_elements_x(status, MPI_BYTE, &bytes) != MPI_SUCCESS || bytes < 0)
        return 0;
    return (MPI_Offset)bytes;
}

/* A nonblocking read done by the blocking one, its request completed with the bytes read. */
static void read_now(ADIOI_PREFETCH_Blocking_read read, ADIO_File fd, void *buf, int count,
                     MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset,
                     ADIO_Request *request, int *error_code)
{
    ADIO_Status status;
    MPI_Offset nbytes = 0;
    ADIOI_PREFETCH_Set_status(&status, MPI_BYTE, 0);
    read(fd, buf, count, datatype, file_ptr_type, offset, &status, error_code);
    if (*error_code == MPI_SUCCESS)
        nbytes = ADIOI_PREFETCH_Status_bytes(&status);
    MPIO_Completed_request_create(&fd, nbytes, error_code, request);
}

void ADIOI_PREFETCH_IreadContig(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                int file_ptr_type, ADIO_Offset offset, ADIO_Request *request,
                                int *error_code)
{
    read_now(ADIOI_PREFETCH_ReadContig, fd, buf, count, datatype, file_ptr_type, offset, request,
             error_code);
}

void ADIOI_PREFETCH_IreadStrided(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                 int file_ptr_type, ADIO_Offset offset, ADIO_Request *request,
                                 int *error_code)
{
    read_now(ADIOI_PREFETCH_ReadStrided, fd, buf, count, datatype, file_ptr_type, offset, request,
             error_code);
}
