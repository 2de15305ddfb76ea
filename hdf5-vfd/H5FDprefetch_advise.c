/* The page-cache path for small declared extents.
 *
 * pfio costs about 10 us of CPU per read it serves (docs/limits.md); a chunk of 8 KiB costs the
 * device less than that to read, and HDF5 reads every chunk with its own driver call. So declared
 * extents smaller than config.engine_min go another way: the driver keeps them in plan
 * order, advises the kernel to read them (posix_fadvise WILLNEED, which queues the reads and
 * returns) up to H5FD_PREFETCH_ADVISE_AHEAD bytes ahead of the reader, and serves each read from
 * the page cache with pread. Larger extents go to pfio's plan as before. The cursor follows the
 * reads: a read that matches a later extent skips ahead (what was skipped is not advised again),
 * a read that matches none leaves the cursor where it is. */
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

/* Advises extents until H5FD_PREFETCH_ADVISE_AHEAD bytes not yet read are on their way.
 * Extents that follow each other in the plan forward in the file with gaps of at most
 * JOIN_GAP are advised as one range, at most JOIN_SPAN long: the kernel then reads them as
 * one sequential request, as HDF5's sieve and the kernel's readahead do for sec2, instead of
 * a page at a time. The gap bytes count against the window. */
#define JOIN_GAP ((uint64_t)64 << 10)
#define JOIN_SPAN ((uint64_t)4 << 20)
static void advise_ahead(H5FD_prefetch_t *file)
{
    H5FD_prefetch_advice_t *a = &file->advice;
    while (a->next_advise < a->count && a->ahead_bytes < H5FD_PREFETCH_ADVISE_AHEAD) {
        pfio_extent *e = &a->items[a->next_advise++];
        uint64_t start = e->offset, end = e->offset + e->length, gaps = 0;
        e->marked = 0;
        a->ahead_bytes += charge(e);
        ++file->stats.advised_extents;
        while (a->next_advise < a->count && a->ahead_bytes < H5FD_PREFETCH_ADVISE_AHEAD) {
            pfio_extent *n = &a->items[a->next_advise];
            if (n->offset < end || n->offset - end > JOIN_GAP ||
                n->offset + n->length - start > JOIN_SPAN)
                break;
            n->marked = (int32_t)(n->offset - end);
            gaps += n->offset - end;
            end = n->offset + n->length;
            a->ahead_bytes += charge(n);
            ++a->next_advise;
            ++file->stats.advised_extents;
        }
        /* A dense range (gaps under 1/16 of it) that continues the previous one is a
         * sequential read: the kernel's own readahead already fetches it, earlier and in larger
         * requests than advice would (measured: advising sequential rows made them slower).
         * Sparse ranges (a tile's rows, 2 KiB every 64 KiB) are strided to the kernel: advised. */
        if (!(start >= a->last_end && start - a->last_end <= JOIN_GAP && 16 * gaps <= end - start))
            posix_fadvise(file->fd, (off_t)start, (off_t)(end - start), POSIX_FADV_WILLNEED);
        a->last_end = end;
    }
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
        advise_ahead(file); /* the first read after a declare starts the advice */
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
    advise_ahead(file);
    return 1;
}

void H5FD__prefetch_advise_clear(H5FD_prefetch_t *file)
{
    H5FD_prefetch_advice_t *a = &file->advice;
    a->count = a->next_read = a->next_advise = 0;
    a->ahead_bytes = 0;
    a->last_end = 0;
}
