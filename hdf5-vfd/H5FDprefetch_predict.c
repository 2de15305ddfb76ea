/* Stride prediction of raw-data reads, for files where nothing was declared (the struct's comment
 * in H5FDprefetch_private.h says what it does and when it switches itself off). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "H5FDprefetch_private.h"

/* How far a prediction reaches ahead of the reader: twice the reads the run has had so far for
 * pfio, as many for the page cache (as the kernel's readahead ramps up), at least
 * LOOKAHEAD_MIN_EXTENTS, at most PFIO_LOOKAHEAD_BYTES and _EXTENTS. So a run that ends wastes at
 * most about as much as (pfio: twice what) it used. */
#define LOOKAHEAD_MIN_EXTENTS 8
#define PAGE_CACHE_EXTENTS 256
#define ADVISE_MAX_READ ((size_t)4 << 20)

/* Where predicted bytes go. Sequential runs of reads of at least config.engine_min bytes go
 * through pfio's plan. The others are predicted into the page cache (posix_fadvise WILLNEED,
 * from the advice thread of the file's pfio context) and served from it, as sec2 serves them.
 * Strides up to DENSE_STRIDE are advised as one span, from the next predicted read to the last
 * (what HDF5's sieve buffer and the kernel's readahead make of such reads under sec2); longer ones
 * read by read. */
#define DENSE_STRIDE ((int64_t)256 << 10)

/* A read off the stride by at most this much, in the same direction, continues a page-cache
 * prediction at a new phase instead of breaking it. */
#define NEAR_SHIFT ((int64_t)64 << 10)

/* Misses in a row that switch the prediction off, and the first and longest switch-off (reads). */
#define MISSES_OFF 3
#define OFF_FIRST 64
#define OFF_LONGEST ((uint64_t)1 << 20)

/* The prediction's bytes into the file's counters (predicted, read, dropped unread): the
 * predictor keeps them, so they are copied when the counters are read, not at every read. */
void H5FD__prefetch_predictor_count(H5FD_prefetch_t *file)
{
    if (file->predictor.run != NULL)
        pfio_stride_bytes(file->predictor.run, &file->stats.predicted_bytes,
                          &file->stats.prediction_hit_bytes, &file->stats.prediction_dropped_bytes);
}

void H5FD__prefetch_predictor_reset(H5FD_prefetch_t *file)
{
    H5FD_prefetch_predictor_t *p = &file->predictor;
    if (p->run == NULL) {
        pfio_stride_options o;
        memset(&o, 0, sizeof o);
        o.min_extents = LOOKAHEAD_MIN_EXTENTS; /* bytes and extents: PFIO_LOOKAHEAD_* */
        o.misses_off = MISSES_OFF;
        o.off_first = OFF_FIRST;
        o.off_longest = OFF_LONGEST;
        o.near_shift = NEAR_SHIFT;
        if (pfio_stride_create(&o, &p->run) != PFIO_OK)
            p->run = NULL; /* no prediction: reads still work, as sec2's */
    } else {
        pfio_stride_reset(p->run); /* a switch-off's doubling and the byte counts are kept */
    }
    p->via_pfio = 0;
    p->crosses_calls = 0;
    H5FD__prefetch_sweep_reset(&file->sweep);
    H5FD__prefetch_sieve_follow(file);
}

void H5FD__prefetch_predictor_free(H5FD_prefetch_t *file)
{
    pfio_stride_destroy(file->predictor.run);
    file->predictor.run = NULL;
    H5FD__prefetch_sweep_free(&file->sweep);
}

/* sec2 lets HDF5 sieve: a small read of a contiguous dataset becomes a 64 KiB read from where it
 * starts, kept in a buffer that serves the reads after it. For a reader of small random
 * hyperslabs that is what the kernel does best with (one larger request for a hyperslab's rows
 * instead of one per row: docs/hdf5-driver.md, "Data sieving"). For the
 * reads the prediction follows and for declared plans the sieve is in the way: it hides the reads'
 * own lengths and strides, and advice of exactly the planned bytes beat it (contiguous tiles and
 * columns, measured in docs/hdf5-driver.md). So the sieve is on exactly while no prediction runs:
 * switched off for missing (the reader was found random), held back for a call of short runs in a
 * small span (H5FDprefetch_call.c, call_sieved), or by the settings (predict = off;
 * docs/hdf5-driver.md, "Data sieving"). Only on read-only files: on a writable one, a write made
 * while the sieve was off would leave the sieve buffer stale, and HDF5 would serve it when the
 * sieve came back on. */
void H5FD__prefetch_sieve_follow(H5FD_prefetch_t *file)
{
    const int want = file->read_only && !file->declared && !file->call_plan &&
                     (!file->config.predict || file->predictor.run == NULL ||
                      pfio_stride_off(file->predictor.run) || file->predictor.call_sieved);
    const int now = (file->pub.feature_flags & H5FD_FEAT_DATA_SIEVE) != 0;
    if (want == now)
        return;
    if (want)
        file->pub.feature_flags |= H5FD_FEAT_DATA_SIEVE;
    else
        file->pub.feature_flags &= ~(unsigned long)H5FD_FEAT_DATA_SIEVE;
    ++file->stats.sieve_switches;
}

/* Appends the next extents of the run until the look-ahead is full again. */
static void plan_ahead(H5FD_prefetch_t *file, haddr_t addr, size_t size)
{
    H5FD_prefetch_predictor_t *p = &file->predictor;
    int64_t stride = pfio_stride_step(p->run), next;
    uint64_t want, n = 0, limit;
    pfio_extent *plan;
    if ((p->call_advised && !p->crosses_calls) || p->call_sieved)
        return; /* the call's span was advised whole, or is read as sec2 reads it */
    /* A new prediction: which way it goes. Where the engine holds the file in the page cache, a
     * sequential run is left to the kernel's readahead, as without the engine (below). */
    if (!pfio_stride_planning(p->run))
        p->via_pfio = size >= file->config.engine_min && stride == (int64_t)size &&
                      !file->page_cache_kind &&
                      H5FD__prefetch_engine(file, 0, "H5FD__prefetch_read") == 0;
    /* The page cache is advised only for runs the kernel reads well as spans: forward, with a
     * stride of at most DENSE_STRIDE, in reads of at most
     * ADVISE_MAX_READ, not sequential. Measured here, advice for wide strides (a column of
     * chunks) wasted more at each run's end than it saved, and sequential reads are read ahead
     * by the kernel already, earlier than advice would: those are served as sec2 serves them. */
    if (!p->via_pfio && (size > ADVISE_MAX_READ || stride <= 0 || stride == (int64_t)size ||
                         stride > (DENSE_STRIDE > (int64_t)size ? DENSE_STRIDE : (int64_t)size)))
        return;
    /* pfio needs depth to keep the device busy; the kernel's readahead does not (and a run's
     * end wastes what was advised past it), so page-cache predictions ramp up half as fast. */
    want = pfio_stride_want(p->run, size, p->via_pfio ? 2 : 1,
                            p->via_pfio ? PFIO_LOOKAHEAD_EXTENTS : PAGE_CACHE_EXTENTS);
    if (want > 0 && !p->via_pfio) {
        /* Memory control: what a page-cache prediction holds advised ahead (its span: stride x
         * extents) stays within the advice window, at most half the pfio budget now. Asked only
         * when the run plans more, not at every read. */
        uint64_t fit = H5FD__prefetch_advice_window(file) / (uint64_t)stride;
        if (fit < PAGE_CACHE_EXTENTS)
            want = pfio_stride_want(p->run, size, 1, fit > 0 ? fit : 1);
    }
    if (want == 0)
        return;
    next = pfio_stride_next(p->run, addr);
    plan = malloc((size_t)want * sizeof *plan);
    if (plan == NULL)
        return; /* no prediction: reads still work, directly */
    limit = p->via_pfio ? file->pfio_size : file->eof;
    while (n < want && next >= 0 && (uint64_t)next < limit) {
        plan[n].file = file->pfio_file;
        plan[n].marked = 0;
        plan[n].offset = (uint64_t)next;
        plan[n].length = size;
        if (plan[n].offset + plan[n].length > limit)
            plan[n].length = limit - plan[n].offset;
        ++n;
        next += stride;
    }
    if (n > 0 && !p->via_pfio) {
        if (stride > 0 && stride <= DENSE_STRIDE) {
            H5FD__prefetch_willneed(file, plan[0].offset,
                                    plan[n - 1].offset + plan[n - 1].length - plan[0].offset);
        } else {
            for (uint64_t i = 0; i < n; ++i)
                H5FD__prefetch_willneed(file, plan[i].offset, plan[i].length);
        }
    }
    if (n > 0 && (!p->via_pfio || pfio_plan_append(file->ctx, plan, (size_t)n) == PFIO_OK)) {
        pfio_stride_planned(p->run, n, next);
        file->stats.predicted_extents += n;
    }
    free(plan);
}

int H5FD__prefetch_predictor_observe(H5FD_prefetch_t *file, haddr_t addr, size_t size)
{
    H5FD_prefetch_predictor_t *p = &file->predictor;
    pfio_stride_event ev;
    if (p->run == NULL)
        return 0;
    /* A read off the stride by at most NEAR_SHIFT goes on past something HDF5 placed between two
     * of the run's chunks (an index node allocated while the chunks were written): same stride, a
     * new phase; only for predictions in the page cache. */
    pfio_stride_observe(p->run, addr, size, !p->via_pfio, &ev);
    if (p->call_first_read) { /* a run that goes on here went on past the last call's end */
        p->call_first_read = 0;
        p->crosses_calls = ev.running && !ev.dropped;
    }
    if (ev.shifted) {
        ++file->stats.prediction_shifts;
        if (ev.phase_shift != 0) { /* the reads advised at the old phase, where they now fall */
            int64_t stride = pfio_stride_step(p->run), next = pfio_stride_next(p->run, addr);
            int64_t ahead = (int64_t)pfio_stride_ahead(p->run);
            for (int64_t i = 1; i <= ahead && i <= LOOKAHEAD_MIN_EXTENTS; ++i)
                H5FD__prefetch_willneed(file, (uint64_t)(next - i * stride), size);
        }
    }
    if (ev.dropped) { /* the predicted extents still in the plan go */
        pfio_extent none = {0, 0, 0, 0};
        if (p->via_pfio)
            pfio_plan_replace(file->ctx, &none, 0);
        ++file->stats.prediction_breaks;
        if (ev.switched_off)
            ++file->stats.prediction_offs;
    }
    file->stats.sieved_reads += (file->pub.feature_flags & H5FD_FEAT_DATA_SIEVE) != 0;
    H5FD__prefetch_sieve_follow(file);
    if (ev.running)
        plan_ahead(file, addr, size);
    return ev.hit ? (p->via_pfio ? 2 : 1) : 0;
}
