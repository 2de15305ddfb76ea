/* H5FD_prefetch_auto_read: each H5Dread of an unmodified program is its own exact plan.
 *
 * HDF5 1.10 reads the chunks (or a contiguous dataset's runs) of one H5Dread one after another,
 * one request in flight, although the call's file selection names every one of them before the
 * first is read. Here the selection becomes the extents HDF5 will read (the machinery of
 * H5FD_prefetch_declare, chunk addresses kept per dataset), handed to pfio as the call's plan
 * before HDF5 starts: pfio fetches them many at a time (its reorder buffer), or advises them all
 * at once (its page-cache kind), and HDF5's serial reads are served from what was fetched. A
 * call with one chunk or one run has nothing to overlap and is passed on untouched, as is every
 * call on a file the program declared on (its plan is the application's) or one not open with the
 * driver. What a call leaves unread (chunks HDF5 found in its chunk cache) is dropped when it
 * returns, so a plan never outlives its call, except where calls follow a pattern: a dataset whose
 * calls move one box by one shift has its next call's extents handed over when the call before it
 * returns (foresee). Guesses are kept only while they are read: unread plans and calls not made
 * as foreseen switch the dataset's planning, or its foresight, off for 1, 2, 4 .. 64 calls. A
 * contiguous call left unplanned behind FUSE (small runs) is advised as its span when its runs lie
 * as close as HDF5's sieve reads them under sec2.
 * A program linked with the driver before HDF5 gets the same: H5Dread here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "H5FDprefetch_private.h"

/* Datasets found not to be the driver's, so that their calls cost one look-up here (HDF5 1.10
 * never reuses the id of a closed object). */
#define FOREIGN_SLOTS 16
static hid_t foreign[FOREIGN_SLOTS];
static unsigned next_foreign;

/* One call at a time plans and reads: a file has one plan, and the kept dataset facts one table.
 * Taken with trylock only (H5FD_prefetch_auto_read). */
static pthread_mutex_t calls = PTHREAD_MUTEX_INITIALIZER;

static int is_foreign(hid_t dset_id)
{
    for (int i = 0; i < FOREIGN_SLOTS; ++i)
        if (foreign[i] == dset_id)
            return 1;
    return 0;
}

/* Whether the file's context holds it in the page-cache kind: set when the context starts, which
 * a raw read in another thread may do at any time, so read under the file's plan lock. */
static int in_page_cache(H5FD_prefetch_t *file)
{
    int kind;
    pthread_mutex_lock(&file->plan_lock);
    kind = file->page_cache_kind;
    pthread_mutex_unlock(&file->plan_lock);
    return kind;
}

/* Below this many bytes a call is not planned where the file is in the page-cache kind (the
 * driver's own plans are, under buffer = auto): planning costs more than overlapping a few small
 * reads of a local device saves (docs/measurements.md, "Others"). In the reorder buffer (buffer =
 * engine named) a call of two reads or more is planned when its extents average
 * REMOTE_EXTENT_MIN or more: each would be a read of pfio's own; smaller pieces (8 KiB chunks, a
 * contiguous dataset's rows of a tile) are left to the page cache, whose readahead and the
 * predictions reach across calls (docs/hdf5-driver.md, "Per-call plans"). */
#define LOCAL_CALL_MIN ((uint64_t)64 << 10)
#define REMOTE_EXTENT_MIN ((uint64_t)64 << 10)

/* HDF5's data sieve buffer by default (H5Pset_sieve_buf_size): what sec2 reads for a small read
 * of a contiguous dataset. */
#define SIEVE_BYTES ((uint64_t)64 << 10)

/* Below this a contiguous call's span is not advised (span_advised): behind FUSE the kernel's
 * reads of advice answer later than HDF5's own sieve reads. Between a measured loss (96 KiB) and a
 * measured gain (8 MiB), not a measured crossover (docs/hdf5-driver.md, "Per-call plans"). */
#define SPAN_ADVICE_MIN ((uint64_t)1 << 20)

/* Where the bytes of a contiguous dataset's selection with bounding box [lo, hi] lie: from the
 * box's first element to past its last (every byte the selection reads lies between), in how many
 * runs the box's rows lie and the bytes of each (rows join while they span their dimension: 1 run
 * when they all do). */
typedef struct contiguous_span_t {
    uint64_t start, end, runs, run_bytes;
    int advised; /* span_advised, judged once per call (may_need_reads) */
} contiguous_span_t;

static contiguous_span_t contiguous_span(const H5FD_prefetch_dataset_t *info, const hsize_t *lo,
                                         const hsize_t *hi)
{
    contiguous_span_t span = {0, 0, 1, info->elem, 0};
    uint64_t first = 0, last = 0;
    int d, joined = 1;
    for (d = 0; d < info->rank; ++d) {
        first = first * info->dims[d] + lo[d];
        last = last * info->dims[d] + hi[d];
    }
    for (d = info->rank - 1; d >= 0; --d) {
        const uint64_t extent = hi[d] - lo[d] + 1;
        if (joined)
            span.run_bytes *= extent;
        else
            span.runs *= extent;
        joined = joined && extent == info->dims[d];
    }
    span.start = info->base + first * info->elem;
    span.end = info->base + (last + 1) * info->elem;
    return span;
}

/* Whether a contiguous call's span is advised whole at its start instead of planned run by run:
 * runs too small to plan one by one (under REMOTE_EXTENT_MIN), no further apart than HDF5's sieve
 * reads under sec2 (it reads SIEVE_BYTES from each run it does not hold, so all of the span), the
 * span at least SPAN_ADVICE_MIN and within the advice window (memory control), the file's context
 * started (by an earlier call; never started here: called with plan_lock held). The kernel then
 * reads the span in large requests side by side, where HDF5 waits for one sieve read after another,
 * and pfio follows no plan entry per run: tiles of 128 x 128 values behind FUSE read 1.2-1.3x
 * faster so than planned, level on the disk (docs/hdf5-driver.md, "Per-call plans"). */
static int span_advised(H5FD_prefetch_t *file, const contiguous_span_t *span)
{
    const uint64_t wide = span->end - span->start;
    return span->runs >= 2 && span->run_bytes < REMOTE_EXTENT_MIN && wide >= SPAN_ADVICE_MIN &&
           wide <= span->runs * SIEVE_BYTES && file->ctx != NULL &&
           !H5FD__prefetch_engine_inherited(file) && wide <= H5FD__prefetch_advice_window(file);
}

/* Whether an unplanned contiguous call is read as sec2 reads it (through HDF5's sieve, nothing
 * predicted inside it): runs too small to plan one by one in a span too small to advise whole
 * (span_advised), on a read-only file (where the sieve can be switched on), unless the file's
 * reads run on into the call from the last one (a band read a few rows per call). Left to
 * run inside such calls, the prediction advised the span piece by piece and dropped about as
 * much past the call's end: slower than sec2 on both devices (docs/hdf5-driver.md, "Per-call
 * plans"). */
static int call_sieved(H5FD_prefetch_t *file, const contiguous_span_t *span)
{
    const H5FD_prefetch_predictor_t *p = &file->predictor;
    if (span->runs < 2 || span->run_bytes >= REMOTE_EXTENT_MIN ||
        span->end - span->start >= SPAN_ADVICE_MIN || !file->read_only || p->run == NULL)
        return 0;
    /* The run goes on into this call when the read it expects is the call's first (the sieve's
     * reads, while calls before this one were sieved, start at each row's first byte, as the
     * call's own do). */
    return p->via_pfio || pfio_stride_expected(p->run) != (int64_t)span->start;
}

/* Whether the selection of `space` could need more than one read worth overlapping: it touches two
 * chunks or more (its bounding box does) of a chunked dataset, or selects from a contiguous one
 * (its runs are counted once listed); and on a local file system reads LOCAL_CALL_MIN bytes or
 * more (whole chunks where HDF5 reads them whole). 0 for a dataset that is not the driver's (then
 * noted as foreign); *info_out is the dataset's kept facts when it is the driver's. A contiguous
 * dataset's selection has its span in *span (span->runs 0 otherwise); 0 when that span is to be
 * advised whole instead (span_advised). */
static int may_need_reads(hid_t dset_id, hid_t space, H5FD_prefetch_dataset_t **info_out,
                          contiguous_span_t *span)
{
    hsize_t dims[H5S_MAX_RANK], lo[H5S_MAX_RANK], hi[H5S_MAX_RANK];
    H5FD_prefetch_dataset_t *info;
    uint64_t chunks = 1, bytes;
    hssize_t npoints = H5Sget_select_npoints(space);
    int rank = H5Sget_simple_extent_dims(space, dims, NULL);
    if (rank <= 0 || npoints <= 0)
        return 0;
    info = H5FD__prefetch_dataset(dset_id, rank, dims);
    if (info == NULL) {
        foreign[next_foreign++ % FOREIGN_SLOTS] = dset_id;
        return 0;
    }
    *info_out = info;
    bytes = (uint64_t)npoints * info->elem;
    if (info->layout == H5D_CHUNKED) {
        if (H5Sget_select_bounds(space, lo, hi) < 0)
            return 0;
        for (int d = 0; d < rank; ++d)
            chunks *= hi[d] / info->cdims[d] - lo[d] / info->cdims[d] + 1;
        if (chunks < 2)
            return 0;
        if (info->whole)
            bytes = chunks * info->chunk_bytes;
    } else if (info->layout != H5D_CONTIGUOUS) {
        return 0;
    } else if (info->base != HADDR_UNDEF && rank == info->rank &&
               H5Sget_select_bounds(space, lo, hi) >= 0) {
        *span = contiguous_span(info, lo, hi);
        pthread_mutex_lock(&info->file->plan_lock); /* the context may start in another thread */
        span->advised = span_advised(info->file, span);
        pthread_mutex_unlock(&info->file->plan_lock);
        if (span->advised)
            return 0;
    }
    if (in_page_cache(info->file))
        return bytes >= LOCAL_CALL_MIN;
    /* The reorder buffer's kind: pieces below REMOTE_EXTENT_MIN (small chunks, short runs of a
     * contiguous dataset's rows) are known before looking a chunk up (on such storage a lookup
     * may read an index node: a round trip). */
    if (info->layout == H5D_CHUNKED)
        return info->chunk_bytes >= REMOTE_EXTENT_MIN;
    return span->runs > 0 && span->run_bytes >= REMOTE_EXTENT_MIN;
}

/* The selection of `space` as one box [lo, hi]: 1 when it selects every element of its bounding
 * box (all of the dataspace, one hyperslab block, or blocks that tile the box), else 0. */
static int one_box(hid_t space, hsize_t *lo, hsize_t *hi)
{
    const hssize_t npoints = H5Sget_select_npoints(space);
    const int rank = H5Sget_simple_extent_ndims(space);
    hsize_t volume = 1;
    if (npoints <= 0 || rank <= 0 || H5Sget_select_bounds(space, lo, hi) < 0)
        return 0;
    for (int d = 0; d < rank; ++d)
        volume *= hi[d] - lo[d] + 1;
    return volume == (hsize_t)npoints;
}

static int same_box(int rank, const hsize_t *lo, const hsize_t *hi, const hsize_t *lo2,
                    const hsize_t *hi2)
{
    for (int d = 0; d < rank; ++d)
        if (lo[d] != lo2[d] || hi[d] != hi2[d])
            return 0;
    return 1;
}

/* Notes this call's box: a box of the last one's shape moved by the last shift makes one more
 * call in a row; anything else starts counting again. */
static void note_box(H5FD_prefetch_dataset_t *info, int known, const hsize_t *lo, const hsize_t *hi)
{
    const int rank = info->rank;
    int same_shape = known && info->box_known, same_shift = same_shape, moved = 0;
    for (int d = 0; d < rank && same_shape; ++d) {
        const int64_t shift = (int64_t)lo[d] - (int64_t)info->box_lo[d];
        same_shape = hi[d] - lo[d] == info->box_hi[d] - info->box_lo[d];
        same_shift = same_shift && shift == info->shift[d];
        moved = moved || shift != 0;
        info->shift[d] = shift;
    }
    info->shifts_in_row = same_shape && moved ? (same_shift ? info->shifts_in_row + 1 : 1) : 0;
    info->box_known = known;
    if (known) {
        memcpy(info->box_lo, lo, (size_t)rank * sizeof *lo);
        memcpy(info->box_hi, hi, (size_t)rank * sizeof *hi);
    }
}

/* A failure: the next calls pass, twice as many as after the last failure (1 after a success). */
static void backoff_failed(H5FD_prefetch_backoff_t *b)
{
    b->backoff = b->backoff == 0 ? 1 : b->backoff < 64 ? 2 * b->backoff : 64;
    b->skip = b->backoff;
}

static void backoff_succeeded(H5FD_prefetch_backoff_t *b)
{
    b->skip = 0;
    b->backoff = 0;
}

/* 1 when this call passes (counted off), else 0. */
static int backoff_passes(H5FD_prefetch_backoff_t *b)
{
    if (b->skip == 0)
        return 0;
    --b->skip;
    return 1;
}

/* A chunked dataset's call that maps to one stream in the file is left to the kernel's readahead
 * (plan_call): mapping it only searched the chunk index, whose nodes, read ahead of the stream,
 * are reads of their own (docs/hdf5-driver.md, "Per-call plans"). So after such a call the
 * dataset's next calls of the same box shape pass on unmapped, 1, 2, 4 ... 64 of them after each
 * mapped call that is still one stream; one that is not maps the next calls again. */
static void note_stream(H5FD_prefetch_dataset_t *info, int one_stream, int boxed, const hsize_t *lo,
                        const hsize_t *hi)
{
    if (!one_stream || !boxed) {
        backoff_succeeded(&info->stream);
        return;
    }
    backoff_failed(&info->stream);
    memcpy(info->stream_lo, lo, (size_t)info->rank * sizeof *lo);
    memcpy(info->stream_hi, hi, (size_t)info->rank * sizeof *hi);
}

/* Whether this call passes on without mapping (note_stream): 1 for a box of the shape whose calls
 * were one stream, while calls are still to skip. */
static int stream_shape(H5FD_prefetch_dataset_t *info, int boxed, const hsize_t *lo,
                        const hsize_t *hi)
{
    if (info->stream.skip == 0 || !boxed)
        return 0;
    for (int d = 0; d < info->rank; ++d)
        if (hi[d] - lo[d] != info->stream_hi[d] - info->stream_lo[d])
            return 0;
    return backoff_passes(&info->stream);
}

/* Drops the call foreseen from pfio's plan: it was not made. */
static void drop_ahead(H5FD_prefetch_t *file)
{
    H5FD_prefetch_dataset_t *info = file->ahead_info;
    if (file->ctx != NULL && !H5FD__prefetch_engine_inherited(file)) {
        pfio_extent none = {0, 0, 0, 0};
        pfio_plan_replace(file->ctx, &none, 0);
    }
    ++file->stats.calls_ahead_missed;
    if (info->id == file->ahead_dset) /* its slot still holds that dataset */
        backoff_failed(&info->ahead);
    file->ahead_info = NULL;
}

static uint64_t extents_bytes(const H5FD_prefetch_extents_t *list)
{
    uint64_t bytes = 0;
    for (size_t i = 0; i < list->count; ++i)
        bytes += list->items[i].length;
    return bytes;
}

/* Starts the call's plan: its extents, `bytes` of them, are in pfio's plan or pending. */
static void start_plan(H5FD_prefetch_t *file, uint64_t bytes)
{
    ++file->stats.call_plans;
    file->call_plan_planned = bytes;
    file->call_plan_read = 0;
    file->call_plan = 1;
    H5FD__prefetch_sieve_follow(file); /* HDF5 reads the planned runs, not sieve blocks */
}

/* The call is over: the prediction it held back is free again (H5FD_prefetch_predictor_t). */
static void release_prediction(H5FD_prefetch_t *file)
{
    pthread_mutex_lock(&file->plan_lock);
    file->predictor.call_first_read = 0;
    file->predictor.call_advised = 0;
    if (file->predictor.call_sieved) {
        file->predictor.call_sieved = 0;
        H5FD__prefetch_sieve_follow(file);
    }
    pthread_mutex_unlock(&file->plan_lock);
}

/* Hands the call's extents to the file's plan (read at the first raw read), unless they are there
 * already (the call was foreseen). 1 when planned. An unplanned call whose span was advised holds
 * the file's prediction back: *held is the file, to release_prediction when the call returns. */
static int plan_call(hid_t dset_id, hid_t file_space_id, H5FD_prefetch_t **planned,
                     H5FD_prefetch_dataset_t **planned_info, H5FD_prefetch_t **held)
{
    H5FD_prefetch_extents_t list = {NULL, 0, 0, 0};
    H5FD_prefetch_dataset_t *info = NULL;
    H5FD_prefetch_t *file, *found = NULL;
    hsize_t lo[H5S_MAX_RANK], hi[H5S_MAX_RANK];
    hid_t space = file_space_id == H5S_ALL ? H5Dget_space(dset_id) : file_space_id;
    contiguous_span_t span = {0, 0, 0, 0, 0};
    int want = space >= 0 && may_need_reads(dset_id, space, &info, &span);
    int boxed = want && one_box(space, lo, hi), declared, planned_now = 0, mapped, one_stream;
    int unmapped = 0;
    size_t i;
    if (file_space_id == H5S_ALL && space >= 0)
        H5Sclose(space);
    if (info == NULL)
        return 0;
    file = info->file;
    pthread_mutex_lock(&file->plan_lock);
    if (file->stale) { /* written since: the next raw read drops everything (a call foreseen) */
        ++file->stats.calls_unplanned;
        pthread_mutex_unlock(&file->plan_lock);
        return 0;
    }
    if (file->ahead_info != NULL) {
        if (file->ahead_info == info && info->id == file->ahead_dset && boxed &&
            same_box(info->rank, lo, hi, file->ahead_lo, file->ahead_hi)) {
            file->ahead_info = NULL; /* as foreseen: its extents are pfio's plan already */
            ++file->stats.calls_ahead_used;
            backoff_succeeded(&info->ahead);
            note_box(info, boxed, lo, hi);
            start_plan(file, file->ahead_bytes);
            pthread_mutex_unlock(&file->plan_lock);
            *planned = file;
            *planned_info = info;
            return 1;
        }
        drop_ahead(file);
    }
    declared = file->declared;
    pthread_mutex_unlock(&file->plan_lock);
    if (want && backoff_passes(&info->plans)) /* its last plan went unread: not yet again */
        want = 0;
    note_box(info, boxed && want, lo, hi);
    if (want && !declared && stream_shape(info, boxed, lo, hi)) {
        want = 0;
        unmapped = 1;
    }
    /* A call read as one stream (a point's series over consecutive chunks, rows of a contiguous
     * dataset) is left to the kernel's readahead, which follows it by itself and on past the
     * call: a plan would add its cost and stop at the call's end (docs/hdf5-driver.md, "Per-call
     * plans"). Several streams (a block's rows of chunks) are planned: advised or fetched at
     * once, the device reads them side by side. */
    mapped = !declared && want &&
             H5FD__prefetch_selection_extents(dset_id, file_space_id, 0, "H5Dread", &list,
                                              &found) == 0 &&
             list.count > 0;
    one_stream = mapped && H5FD__prefetch_one_stream(&list);
    if (mapped && info->layout == H5D_CHUNKED)
        note_stream(info, one_stream, boxed, lo, hi);
    if (mapped && !one_stream && (info->layout == H5D_CHUNKED || list.count >= 2) &&
        (in_page_cache(file) || extents_bytes(&list) >= REMOTE_EXTENT_MIN * list.count)) {
        uint64_t bytes = 0;
        pthread_mutex_lock(&file->plan_lock);
        if (file->predictor.via_pfio && file->ctx != NULL &&
            !H5FD__prefetch_engine_inherited(file)) {
            /* a prediction's extents are at the head of pfio's plan: this call's go first */
            pfio_extent none = {0, 0, 0, 0};
            pfio_plan_replace(file->ctx, &none, 0);
            H5FD__prefetch_predictor_reset(file);
        }
        for (i = 0; i < list.count; ++i) {
            H5FD__prefetch_extents_append(&file->pending, &list.items[i]);
            bytes += list.items[i].length;
        }
        if (file->pending.failed) { /* no memory: the call goes unplanned, nothing half-planned */
            file->pending.failed = 0;
            file->pending.count = 0;
        } else {
            file->stats.call_plan_extents += list.count;
            file->stats.call_plan_bytes += bytes;
            start_plan(file, bytes);
            planned_now = 1;
        }
        pthread_mutex_unlock(&file->plan_lock);
    }
    free(list.items);
    if (!planned_now) {
        pthread_mutex_lock(&file->plan_lock);
        ++file->stats.calls_unplanned;
        file->stats.calls_unmapped += (uint64_t)unmapped;
        /* A contiguous call's span advised whole (span_advised, judged in may_need_reads); one
         * wider than the advice window is left to the prediction. */
        const uint64_t wide = span.end - span.start;
        if (!declared && span.advised) {
            H5FD__prefetch_willneed(file, span.start, wide);
            ++file->stats.call_spans;
            file->stats.call_span_bytes += wide;
            file->predictor.call_advised = 1;
            file->predictor.call_first_read = 1;
            *held = file;
        } else if (!declared && span.runs > 0 && call_sieved(file, &span)) {
            file->predictor.call_sieved = 1;
            H5FD__prefetch_sieve_follow(file);
            *held = file;
        }
        pthread_mutex_unlock(&file->plan_lock);
        return 0;
    }
    *planned = file;
    *planned_info = info;
    return 1;
}

/* When the dataset's last three planned calls each selected one box of one shape, each moved by
 * the same shift, the next call is foreseen as the box moved once more (inside the dataset): its
 * extents go to pfio's plan now, fetched while the program works between calls. Calls the
 * program makes between this one and the next of the dataset (another dataset's, another box)
 * drop them. 1 when foreseen. */
static int foresee(H5FD_prefetch_t *file, H5FD_prefetch_dataset_t *info)
{
    H5FD_prefetch_extents_t list = {NULL, 0, 0, 0};
    H5FD_prefetch_t *found = NULL;
    hsize_t lo[H5S_MAX_RANK], count[H5S_MAX_RANK], ones[H5S_MAX_RANK];
    hid_t space;
    uint64_t bytes = 0;
    int d, ok, usable;
    if (info->shifts_in_row < 2 || !info->box_known)
        return 0;
    if (backoff_passes(&info->ahead))
        return 0;
    pthread_mutex_lock(&file->plan_lock);
    usable = !file->declared && !file->stale;
    pthread_mutex_unlock(&file->plan_lock);
    if (!usable)
        return 0;
    for (d = 0; d < info->rank; ++d) {
        const int64_t at = (int64_t)info->box_lo[d] + info->shift[d];
        count[d] = info->box_hi[d] - info->box_lo[d] + 1;
        if (at < 0 || (uint64_t)at + count[d] > info->dims[d])
            return 0; /* past the dataset's edge: the pattern ends here */
        lo[d] = (hsize_t)at;
        ones[d] = 1;
    }
    space = H5Screate_simple(info->rank, info->dims, NULL);
    ok = space >= 0 && H5Sselect_hyperslab(space, H5S_SELECT_SET, lo, NULL, ones, count) >= 0 &&
         H5FD__prefetch_selection_extents(info->id, space, 0, "H5Dread", &list, &found) == 0 &&
         list.count > 0;
    if (space >= 0)
        H5Sclose(space);
    pthread_mutex_lock(&file->plan_lock);
    ok = ok && !file->declared && !file->stale && file->ahead_info == NULL;
    for (size_t i = 0; ok && i < list.count; ++i) {
        H5FD__prefetch_extents_append(&file->pending, &list.items[i]);
        bytes += list.items[i].length;
    }
    if (ok && !file->pending.failed && H5FD__prefetch_hand_pending(file) == PFIO_OK) {
        file->ahead_info = info;
        file->ahead_dset = info->id;
        for (d = 0; d < info->rank; ++d) {
            file->ahead_lo[d] = lo[d];
            file->ahead_hi[d] = lo[d] + count[d] - 1;
        }
        file->ahead_bytes = bytes;
        ++file->stats.calls_ahead;
        file->stats.calls_ahead_bytes += bytes;
    } else {
        ok = 0;
        file->pending.failed = 0;
        file->pending.count = 0;
    }
    pthread_mutex_unlock(&file->plan_lock);
    free(list.items);
    return ok;
}

/* After the call: what it left of its plan is dropped. Calls no HDF5 function, so that a failed
 * read's error stack stays as HDF5 left it. A plan HDF5 read less than half of (its chunk cache
 * held the chunks) passes the dataset's next calls on unplanned, twice as many each time it
 * happens again (at most 64): a reader that re-reads what HDF5 keeps is not made to fetch it again
 * and again. 1 when the plan was read: the next call may be foreseen. */
static int end_call(H5FD_prefetch_t *file, H5FD_prefetch_dataset_t *info)
{
    int unread;
    pthread_mutex_lock(&file->plan_lock);
    file->call_plan = 0;
    file->pending.count = 0;
    if (file->ctx != NULL && !H5FD__prefetch_engine_inherited(file)) {
        pfio_extent none = {0, 0, 0, 0};
        pfio_plan_replace(file->ctx, &none, 0);
    }
    H5FD__prefetch_sieve_follow(file);
    unread = 2 * file->call_plan_read < file->call_plan_planned;
    file->stats.call_plans_unread += unread;
    pthread_mutex_unlock(&file->plan_lock);
    if (unread) {
        backoff_failed(&info->plans);
        info->shifts_in_row = 0;
        return 0;
    }
    backoff_succeeded(&info->plans);
    return 1;
}

herr_t H5FD_prefetch_auto_read(hid_t dset_id, hid_t mem_type_id, hid_t mem_space_id,
                               hid_t file_space_id, hid_t dxpl_id, void *buf,
                               herr_t (*hdf5_read)(hid_t, hid_t, hid_t, hid_t, hid_t, void *))
{
    H5FD_prefetch_t *file = NULL, *held = NULL;
    H5FD_prefetch_dataset_t *info = NULL;
    herr_t ret;
    /* Never waited for: a thread that finds another planning (or this thread, calling H5Dread
     * from inside an HDF5 callback of its own H5Dread) passes its call on unplanned, so no thread
     * holding HDF5's lock can wait here for one that waits for HDF5's lock. */
    if (pthread_mutex_trylock(&calls) != 0)
        return hdf5_read(dset_id, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf);
    if (!is_foreign(dset_id)) {
        H5E_BEGIN_TRY /* planning is pfio's business: a failure is silent, the call goes on */
        {
            (void)plan_call(dset_id, file_space_id, &file, &info, &held);
        }
        H5E_END_TRY;
    }
    ret = hdf5_read(dset_id, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf);
    if (held != NULL)
        release_prediction(held);
    /* After a failed read nothing that calls HDF5 runs: every HDF5 call (H5E_BEGIN_TRY's too)
     * clears the error stack the program reads the failure from. */
    if (file != NULL && end_call(file, info) && ret >= 0) {
        H5E_BEGIN_TRY
        {
            if (!foresee(file, info))
                H5Eclear2(H5E_DEFAULT); /* what looking ahead pushed is nobody's error */
        }
        H5E_END_TRY;
    }
    pthread_mutex_unlock(&calls);
    return ret;
}

typedef herr_t (*read_fn)(hid_t, hid_t, hid_t, hid_t, hid_t, void *);

/* HDF5's own H5Dread: that of the library this driver's H5Dopen2 comes from (never this one). */
static read_fn hdf5_dread(void)
{
    static read_fn found;
    read_fn fn = __atomic_load_n(&found, __ATOMIC_ACQUIRE);
    Dl_info at;
    void *hdf5;
    if (fn != NULL)
        return fn;
    if (dladdr((void *)&H5Dopen2, &at) != 0 && at.dli_fname != NULL &&
        (hdf5 = dlopen(at.dli_fname, RTLD_NOLOAD | RTLD_LAZY)) != NULL) {
        fn = (read_fn)dlsym(hdf5, "H5Dread");
        dlclose(hdf5);
    }
    if (fn == H5Dread)
        fn = NULL;
    __atomic_store_n(&found, fn, __ATOMIC_RELEASE);
    return fn;
}

herr_t H5FD_prefetch_hdf5_read(hid_t dset_id, hid_t mem_type_id, hid_t mem_space_id,
                               hid_t file_space_id, hid_t dxpl_id, void *buf)
{
    read_fn hdf5 = hdf5_dread();
    if (hdf5 == NULL) {
        fprintf(stderr, "pfio: H5Dread: HDF5's own H5Dread was not found beside this driver's "
                        "H5Dopen2: the call fails\n");
        return -1;
    }
    return hdf5(dset_id, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf);
}

/* A program that links this driver ahead of HDF5 (as `-lpfio_hdf5 ... -lhdf5`, pkg-config's and
 * CMake's order for a program that names the driver) calls this H5Dread (the symbol is of the
 * driver's version node, so HDF5's own references and other programs never bind to it): each
 * call is H5FD_prefetch_auto_read's, as under the preload. Calls on files not open with the
 * driver go to HDF5 unchanged. */
herr_t H5Dread(hid_t dset_id, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id,
               hid_t dxpl_id, void *buf)
{
    return H5FD_prefetch_auto_read(dset_id, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf,
                                   H5FD_prefetch_hdf5_read);
}
