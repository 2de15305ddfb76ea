/* The page-cache path for small declared extents.
 *
 * pfio costs about 10 us of CPU per read it serves (docs/limits.md); a chunk of 8 KiB costs the
 * device less than that to read, and HDF5 reads every chunk with its own driver call. So declared
 * extents smaller than config.engine_min go another way: the driver keeps them in plan
 * order, advises the kernel to read them (posix_fadvise WILLNEED) up to
 * H5FD_PREFETCH_ADVISE_AHEAD bytes ahead of the reader (at most half the pfio budget), in batches
 * sorted by offset, and serves each read from the page cache with pread. The advice goes out from
 * the advice thread of the file's pfio context (pfio_advise_now): the kernel allocates the pages
 * and submits their reads in the thread that advises, 40-110 ms for 88 MiB on the test VM, and the
 * reader meanwhile reads what is cached. Larger extents go to pfio's plan as before. The cursor
 * follows the reads: a read that matches a later extent skips ahead (what was skipped is not
 * advised again), a read that matches none leaves the cursor where it is. */
#include <fcntl.h>
#include <stdlib.h>

#include "H5FDprefetch_private.h"

/* How far ahead of the next read to search for the extent a read matches. */
#define RESYNC_WINDOW 64

int H5FD__prefetch_advise_append(H5FD_prefetch_t *file, const pfio_extent *e)
{
    H5FD_prefetch_advice_t *a = &file->advice;
    if (a->count == a->capacity) {
        size_t capacity = a->capacity ? 2 * a->capacity : 1024;
        pfio_extent *grown;
        if (a->next_read > 0 && a->next_read >= a->count / 2) { /* drop what was read first */
            size_t drop = a->next_read;
            for (size_t i = drop; i < a->count; ++i)
                a->items[i - drop] = a->items[i];
            a->count -= drop;
            a->next_read = 0;
            a->next_advise -= drop;
            return H5FD__prefetch_advise_append(file, e);
        }
        grown = realloc(a->items, capacity * sizeof *grown);
        if (grown == NULL)
            return -1;
        a->items = grown;
        a->capacity = capacity;
    }
    a->items[a->count] = *e;
    a->items[a->count++].marked = 0;
    return 0;
}

/* What an extent's advice costs the window: its bytes and the gap before it that its advice
 * joined (kept in the extent's otherwise unused `marked` field). */
static uint64_t charge(const pfio_extent *e)
{
    return e->length + (uint64_t)e->marked;
}

#define JOIN_GAP ((uint64_t)64 << 10)
#define JOIN_SPAN ((uint64_t)4 << 20)

/* One extent of a batch, for sorting by offset. */
typedef struct H5FD_prefetch_advice_slot_t {
    uint64_t offset;
    size_t index; /* into the advice list */
} H5FD_prefetch_advice_slot_t;

/* Whether the file's advice goes through its pfio context, started here the first time. */
static int advice_engine(H5FD_prefetch_t *file)
{
    if (!file->advise_inline && file->ctx == NULL &&
        H5FD__prefetch_engine(file, "H5FD__prefetch_willneed") < 0)
        file->advise_inline = 1; /* the error says why; the reader advises from now on */
    return !file->advise_inline;
}

/* Memory control over the page cache the driver advises: the advised bytes nobody read yet stay
 * within half the budget the context's AIMD controller allows now (cut under memory pressure,
 * grown back after), and are charged to it (pfio_memory_charge), so that they and what the
 * engine prefetches into its plan stay within the budget together, and the node's pfio
 * processes see them. Without a context (it could not start, or this is a child of fork()), the
 * fixed H5FD_PREFETCH_ADVISE_AHEAD. */
uint64_t H5FD__prefetch_advice_window(H5FD_prefetch_t *file)
{
    uint64_t budget = 0;
    if (advice_engine(file) && !H5FD__prefetch_engine_inherited(file) &&
        pfio_memory_budget(file->ctx, &budget) == PFIO_OK &&
        budget / 2 < H5FD_PREFETCH_ADVISE_AHEAD)
        return budget / 2;
    return H5FD_PREFETCH_ADVISE_AHEAD;
}

void H5FD__prefetch_willneed(H5FD_prefetch_t *file, uint64_t offset, uint64_t length)
{
    if (advice_engine(file) && offset < file->pfio_size) {
        pfio_extent e;
        e.file = file->pfio_file;
        e.marked = 0;
        e.offset = offset;
        e.length = length < file->pfio_size - offset ? length : file->pfio_size - offset;
        if (e.length == 0 || pfio_advise_now(file->ctx, &e, 1) == PFIO_OK)
            return;
        file->advise_inline = 1; /* refused (a forked child): a hint, so no error */
    }
    posix_fadvise(file->fd, (off_t)offset, (off_t)length, POSIX_FADV_WILLNEED);
}

static int by_offset(const void *x, const void *y)
{
    const H5FD_prefetch_advice_slot_t *a = x, *b = y;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Advises one range, unless it is dense (gaps under 1/16 of it), the plan reads it in file order
 * (`in_order`: each extent's plan index above the one before it in the file, the previous
 * range's last included) and it continues a sequential stream: it starts where the previous
 * range ended, or it holds or directly follows the read [reading, reading_end) that asked for
 * this advice. The kernel's own readahead fetches such a range earlier and in larger requests
 * than advice would (measured, declared rows with the first range of the plan advised and the
 * rest left to readahead, against none advised: contiguous 0.77-0.94x against 1.00-1.01x sec2,
 * 1 MiB chunks 0.93-0.94x against 0.95-0.98x). Sparse ranges (a tile's rows, 2 KiB every 64 KiB)
 * look strided to the kernel: advised. So are ranges the plan reads out of file order, dense or
 * not: the kernel's readahead follows a descriptor's reads, and reads that jump about in a range
 * are not a stream to it (contiguous tiles with a 64 MiB budget, whose batches left single 2 KiB
 * rows 30 KiB apart to readahead: 210-228 MiB/s, 314-344 with them advised). Index pages inside
 * a range left to readahead are dropped. */
static void advise_range(H5FD_prefetch_t *file, uint64_t start, uint64_t end, uint64_t gaps,
                         int in_order, uint64_t reading, uint64_t reading_end)
{
    H5FD_prefetch_advice_t *a = &file->advice;
    int dense = 16 * gaps <= end - start;
    int continues = start >= a->last_end && start - a->last_end <= JOIN_GAP;
    if (dense && in_order && (continues || (reading < end && reading_end >= start)))
        H5FD__prefetch_drop_index_pages(file, start, end); /* left to readahead: clear its way */
    else
        H5FD__prefetch_willneed(file, start, end - start);
    a->last_end = end;
}

/* Advises the plan in batches. When no more than half of the window's bytes
 * (H5FD__prefetch_advice_window) are advised and not read, the extents that fill the window again
 * are taken in plan order, sorted by offset, and advised in file order: extents with gaps of at
 * most JOIN_GAP between them go as one range of at most JOIN_SPAN, which the kernel reads as one
 * request. Plan order decides what is advised, file order how: a column pass over chunks laid out
 * row by row (one chunk every row of chunks, 2 MiB apart for the 8 KiB chunks of an 8192-wide
 * dataset) joins the chunks of the batch's neighbouring columns into one range per row, where
 * advising the plan in its own order advised one chunk at a time and was slower than sec2 (0.59x;
 * the kernel's readahead follows such interleaved runs by itself). The gap bytes count against the
 * window, and a gap is joined only while the batch with its gaps leaves at most twice the window
 * advised and unread: the whole pfio budget (H5FD__prefetch_advice_window). */
static void advise_ahead(H5FD_prefetch_t *file, uint64_t reading, uint64_t reading_end)
{
    H5FD_prefetch_advice_t *a = &file->advice;
    uint64_t room, start = 0, end = 0, gaps = 0, window, pending = 0;
    size_t n = 0, i;
    int in_order = 1; /* the current range's extents are read in file order */
    /* The window as last asked for first: asking the budget (a pfio call) at every read cost
     * more than the reads of small chunks that this path serves. */
    if (a->next_advise >= a->count || 2 * a->ahead_bytes > a->window)
        return;
    window = a->window = H5FD__prefetch_advice_window(file);
    if (2 * a->ahead_bytes > window)
        return;
    room = window - a->ahead_bytes;
    for (uint64_t bytes = 0; a->next_advise + n < a->count && bytes < room; ++n)
        bytes += a->items[a->next_advise + n].length;
    if (n > a->batch_capacity) {
        H5FD_prefetch_advice_slot_t *grown = realloc(a->batch, n * sizeof *grown);
        if (grown == NULL) { /* advice is a hint: without memory, a smaller batch, or none */
            n = a->batch_capacity;
        } else {
            a->batch = grown;
            a->batch_capacity = n;
        }
    }
    if (n == 0) { /* no memory for even one slot: nothing is advised, reads stay right */
        a->next_advise = a->count;
        return;
    }
    for (i = 0; i < n; ++i) {
        a->batch[i].index = a->next_advise + i;
        a->batch[i].offset = a->items[a->next_advise + i].offset;
        pending += a->items[a->next_advise + i].length;
    }
    qsort(a->batch, n, sizeof *a->batch, by_offset);
    for (i = 0; i < n; ++i) {
        pfio_extent *e = &a->items[a->batch[i].index];
        uint64_t e_end = e->offset + e->length;
        int join = i > 0 && e->offset <= end + JOIN_GAP && e_end - start <= JOIN_SPAN;
        e->marked = 0;
        pending -= e->length;
        /* A gap is joined only while the batch, gaps included, keeps the advised and unread
         * bytes within the whole budget (twice the window the extents fill). */
        if (join && e->offset > end &&
            a->ahead_bytes + (e->offset - end) + e->length + pending > 2 * window)
            join = 0;
        if (join) {
            in_order = in_order && a->batch[i].index > a->batch[i - 1].index;
            if (e->offset > end) {
                e->marked = (int32_t)(e->offset - end);
                gaps += e->offset - end;
            }
            if (e_end > end)
                end = e_end;
        } else {
            if (i > 0) {
                advise_range(file, start, end, gaps, in_order, reading, reading_end);
                a->last_index = a->batch[i - 1].index;
            }
            in_order = a->batch[i].index > a->last_index || a->last_end == 0;
            start = e->offset;
            end = e_end;
            gaps = 0;
        }
        a->ahead_bytes += charge(e);
        ++file->stats.advised_extents;
    }
    advise_range(file, start, end, gaps, in_order, reading, reading_end);
    a->last_index = a->batch[n - 1].index;
    a->next_advise += n;
    if (file->ctx != NULL && !file->advise_inline && !H5FD__prefetch_engine_inherited(file))
        (void)pfio_memory_charge(file->ctx, a->ahead_bytes < window ? a->ahead_bytes : window);
}

int H5FD__prefetch_advise_read(H5FD_prefetch_t *file, haddr_t addr, size_t size)
{
    H5FD_prefetch_advice_t *a = &file->advice;
    size_t i, end = a->next_read + RESYNC_WINDOW;
    if (a->next_read >= a->count)
        return 0;
    if (end > a->count)
        end = a->count;
    for (i = a->next_read; i < end; ++i) {
        const pfio_extent *e = &a->items[i];
        if (addr >= e->offset && addr + size <= e->offset + e->length)
            break;
    }
    if (i == end) {
        advise_ahead(file, addr,
                     addr + size); /* the first read after a declare starts the advice */
        return 0;
    }
    /* The extents before i were skipped over; i itself is done when the read reaches its end
     * (HDF5 reads a run of joined chunks one chunk at a time). */
    if (addr + size == a->items[i].offset + a->items[i].length)
        ++i;
    for (; a->next_read < i; ++a->next_read) {
        if (a->next_read < a->next_advise) {
            uint64_t n = charge(&a->items[a->next_read]);
            a->ahead_bytes -= n < a->ahead_bytes ? n : a->ahead_bytes;
        }
    }
    if (a->next_advise < a->next_read)
        a->next_advise = a->next_read;
    advise_ahead(file, addr, addr + size);
    return 1;
}

void H5FD__prefetch_advise_clear(H5FD_prefetch_t *file)
{
    H5FD_prefetch_advice_t *a = &file->advice;
    a->count = a->next_read = a->next_advise = 0;
    a->ahead_bytes = 0;
    a->last_end = 0;
    a->last_index = 0;
}
