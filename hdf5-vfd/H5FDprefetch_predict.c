/* Stride prediction of raw-data reads, for files where nothing was declared (the struct's comment
 * in H5FDprefetch_private.h says what it does and when it switches itself off). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "H5FDprefetch_private.h"

/* How far a prediction reaches ahead of the reader: twice the reads the run has had so far for
 * pfio, as many for the page cache (as the kernel's readahead ramps up), at least
 * LOOKAHEAD_MIN_EXTENTS, at most the bytes and extents below. So a run that ends wastes at most
 * about as much as (pfio: twice what) it used. */
#define LOOKAHEAD_BYTES ((uint64_t)64 << 20)
#define LOOKAHEAD_EXTENTS 4096
#define LOOKAHEAD_MIN_EXTENTS 8
#define PAGE_CACHE_EXTENTS 256
#define ADVISE_MAX_READ ((size_t)4 << 20)

/* Where predicted bytes go. Sequential runs of reads of at least config.engine_min bytes go
 * through pfio's plan. The others are predicted into the page cache (posix_fadvise WILLNEED,
 * from the file's advisor thread) and served from it, as sec2 serves them. Strides up to
 * DENSE_STRIDE are advised as one span, from the next predicted read to the last (what HDF5's sieve
 * buffer and the kernel's readahead make of such reads under sec2); longer ones read by read. */
#define DENSE_STRIDE ((int64_t)256 << 10)

/* A read off the stride by at most this much, in the same direction, continues a page-cache
 * prediction at a new phase instead of breaking it. */
#define NEAR_SHIFT ((int64_t)64 << 10)

/* Misses in a row that switch the prediction off, and the first and longest switch-off (reads). */
#define MISSES_OFF 3
#define OFF_FIRST 64
#define OFF_LONGEST ((uint64_t)1 << 20)

void H5FD__prefetch_predictor_reset(H5FD_prefetch_t *file)
{
    H5FD_prefetch_predictor_t *p = &file->predictor;
    uint64_t off_length = p->off_length ? p->off_length : OFF_FIRST;
    memset(p, 0, sizeof *p);
    p->last_addr = HADDR_UNDEF;
    p->next_planned = HADDR_UNDEF;
    p->off_length = off_length;
    H5FD__prefetch_sweep_reset(&file->sweep);
    H5FD__prefetch_sieve_follow(file);
}

/* sec2 lets HDF5 sieve: a small read of a contiguous dataset becomes a 64 KiB read from where it
 * starts, kept in a buffer that serves the reads after it. For a reader of small random
 * hyperslabs that is what the kernel does best with (one larger request for a hyperslab's rows
 * instead of one per row), and without it the driver was 4-24 % slower than sec2 there. For the
 * reads the prediction follows and for declared plans the sieve is in the way: it hides the reads'
 * own lengths and strides, and advice of exactly the planned bytes beat it (contiguous tiles and
 * columns, measured in docs/hdf5-driver.md). So the sieve is on exactly while the prediction is
 * switched off for missing: the reader was found random. Only on read-only files: on a writable
 * one, a write made while the sieve was off would leave the sieve buffer stale, and HDF5 would
 * serve it when the sieve came back on. */
void H5FD__prefetch_sieve_follow(H5FD_prefetch_t *file)
{
    const int want = file->read_only && !file->declared && file->predictor.off_reads > 0;
    const int now = (file->pub.feature_flags & H5FD_FEAT_DATA_SIEVE) != 0;
    if (want == now)
        return;
    if (want)
        file->pub.feature_flags |= H5FD_FEAT_DATA_SIEVE;
    else
        file->pub.feature_flags &= ~(unsigned long)H5FD_FEAT_DATA_SIEVE;
    ++file->stats.sieve_switches;
}

/* Drops the predicted extents still in the plan and scores the prediction: dropped before half of
 * it was read is a miss, and enough misses in a row switch prediction off for a while. */
static void drop_prediction(H5FD_prefetch_t *file)
{
    H5FD_prefetch_predictor_t *p = &file->predictor;
    pfio_extent none = {0, 0, 0, 0};
    if (p->next_planned == HADDR_UNDEF)
        return;
    if (p->via_pfio)
        pfio_plan_replace(file->ctx, &none, 0);
    ++file->stats.prediction_breaks;
    if (4 * (p->planned_total - p->planned_ahead) < p->planned_total) {
        if (++p->misses >= MISSES_OFF) {
            p->off_reads = p->off_length;
            p->off_length = p->off_length * 2 > OFF_LONGEST ? OFF_LONGEST : p->off_length * 2;
            p->misses = 0;
            ++file->stats.prediction_offs;
        }
    } else {
        p->misses = 0;
    }
    p->next_planned = HADDR_UNDEF;
    p->planned_ahead = 0;
    p->planned_total = 0;
}

/* Appends the next extents of the run until the look-ahead is full again. */
static void plan_ahead(H5FD_prefetch_t *file, haddr_t addr, size_t size)
{
    H5FD_prefetch_predictor_t *p = &file->predictor;
    uint64_t cap = LOOKAHEAD_BYTES / size, want, n = 0;
    int64_t next;
    uint64_t limit;
    pfio_extent *plan;
    if (p->next_planned == HADDR_UNDEF) /* a new prediction: which way it goes */
        p->via_pfio = size >= file->config.engine_min && p->stride == (int64_t)size &&
                      H5FD__prefetch_engine(file, "H5FD__prefetch_read") == 0;
    /* The page cache is advised only for runs the kernel reads well as spans: forward, with a
     * stride of at most DENSE_STRIDE, in reads of at most
     * ADVISE_MAX_READ, not sequential. Measured here, advice for wide strides (a column of
     * chunks) wasted more at each run's end than it saved, and sequential reads are read ahead
     * by the kernel already, earlier than advice would: those are served as sec2 serves them. */
    if (!p->via_pfio && (size > ADVISE_MAX_READ || p->stride <= 0 || p->stride == (int64_t)size ||
                         p->stride > (DENSE_STRIDE > (int64_t)size ? DENSE_STRIDE : (int64_t)size)))
        return;
    /* pfio needs depth to keep the device busy; the kernel's readahead does not (and a run's
     * end wastes what was advised past it), so page-cache predictions ramp up half as fast. */
    want = p->via_pfio ? 2 * (uint64_t)p->repeats : (uint64_t)p->repeats;
    if (!p->via_pfio && cap > PAGE_CACHE_EXTENTS)
        cap = PAGE_CACHE_EXTENTS;
    if (cap > LOOKAHEAD_EXTENTS)
        cap = LOOKAHEAD_EXTENTS;
    if (cap < LOOKAHEAD_MIN_EXTENTS)
        cap = LOOKAHEAD_MIN_EXTENTS;
    if (want < LOOKAHEAD_MIN_EXTENTS)
        want = LOOKAHEAD_MIN_EXTENTS;
    if (want > cap)
        want = cap;
    if (p->next_planned != HADDR_UNDEF && p->planned_ahead > want / 2)
        return;
    next = p->next_planned != HADDR_UNDEF ? (int64_t)p->next_planned : (int64_t)addr + p->stride;
    plan = malloc((size_t)(want - p->planned_ahead) * sizeof *plan);
    if (plan == NULL)
        return; /* no prediction: reads still work, directly */
    limit = p->via_pfio ? file->pfio_size : file->eof;
    while (p->planned_ahead + n < want && next >= 0 && (uint64_t)next < limit) {
        plan[n].file = file->pfio_file;
        plan[n].marked = 0;
        plan[n].offset = (uint64_t)next;
        plan[n].length = size;
        if (plan[n].offset + plan[n].length > limit)
            plan[n].length = limit - plan[n].offset;
        ++n;
        next += p->stride;
    }
    if (n > 0 && !p->via_pfio) {
        if (p->stride > 0 && p->stride <= DENSE_STRIDE) {
            H5FD__prefetch_willneed(file, plan[0].offset,
                                    plan[n - 1].offset + plan[n - 1].length - plan[0].offset);
        } else {
            for (uint64_t i = 0; i < n; ++i)
                H5FD__prefetch_willneed(file, plan[i].offset, plan[i].length);
        }
    }
    if (n > 0 && (!p->via_pfio || pfio_plan_append(file->ctx, plan, (size_t)n) == PFIO_OK)) {
        p->next_planned = (haddr_t)next;
        p->planned_ahead += n;
        p->planned_total += n;
        file->stats.predicted_extents += n;
    }
    free(plan);
}

int H5FD__prefetch_predictor_observe(H5FD_prefetch_t *file, haddr_t addr, size_t size)
{
    H5FD_prefetch_predictor_t *p = &file->predictor;
    int64_t delta = p->last_addr == HADDR_UNDEF ? 0 : (int64_t)(addr - p->last_addr);
    int64_t shift = delta - p->stride;
    int predicted = 0;
    if (p->last_addr != HADDR_UNDEF && size == p->last_size && delta == p->stride && delta != 0) {
        ++p->repeats;
        if (p->planned_ahead > 0) {
            --p->planned_ahead;
            predicted = 1;
        }
    } else if (p->last_addr != HADDR_UNDEF && size == p->last_size && p->repeats >= 2 &&
               !p->via_pfio && p->stride != 0 && (delta > 0) == (p->stride > 0) &&
               shift >= -NEAR_SHIFT && shift <= NEAR_SHIFT) {
        /* The run goes on past something HDF5 placed between two of its chunks (an index node
         * allocated while the chunks were written): same stride, a new phase. The reads advised
         * at the old phase are advised again where they now fall. */
        ++p->repeats;
        ++file->stats.prediction_shifts;
        if (p->planned_ahead > 0) {
            --p->planned_ahead;
            predicted = 1;
        }
        if (p->next_planned != HADDR_UNDEF) {
            p->next_planned += (haddr_t)shift;
            for (uint64_t i = 1; i <= p->planned_ahead && i <= LOOKAHEAD_MIN_EXTENTS; ++i)
                H5FD__prefetch_willneed(
                    file, (uint64_t)((int64_t)p->next_planned - (int64_t)i * p->stride), size);
        }
    } else {
        drop_prediction(file);
        p->stride = delta;
        p->repeats = p->last_addr != HADDR_UNDEF && size == p->last_size && delta != 0;
    }
    p->last_addr = addr;
    p->last_size = size;
    predicted = predicted ? (p->via_pfio ? 2 : 1) : 0;
    file->stats.sieved_reads += (file->pub.feature_flags & H5FD_FEAT_DATA_SIEVE) != 0;
    if (p->off_reads > 0) {
        --p->off_reads;
        H5FD__prefetch_sieve_follow(file);
        return predicted;
    }
    H5FD__prefetch_sieve_follow(file);
    if (p->repeats >= 2)
        plan_ahead(file, addr, size);
    return predicted;
}
