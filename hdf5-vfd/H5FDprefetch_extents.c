/* A growing list of pfio extents (what a declaration produces), handing the declared extents over
 * to pfio's plan in one batch (a child of fork() advises them itself), and dropping index pages
 * from the page cache where they lie in a dense run left to readahead. */
#include <fcntl.h>
#include <stdlib.h>

#include "H5FDprefetch_private.h"

typedef H5FD_prefetch_extents_t extent_list;

/* Appends *e as it is. */
void H5FD__prefetch_extents_append(extent_list *list, const pfio_extent *e)
{
    if (list->failed)
        return;
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 256;
        pfio_extent *grown = realloc(list->items, capacity * sizeof *grown);
        if (grown == NULL) {
            list->failed = 1;
            return;
        }
        list->items = grown;
        list->capacity = capacity;
    }
    list->items[list->count++] = *e;
}

/* Appends [offset, offset+length), joined to the last extent when adjacent to it. */
void H5FD__prefetch_extents_push(extent_list *list, int32_t file, uint64_t offset, uint64_t length)
{
    pfio_extent *last = list->count > 0 ? &list->items[list->count - 1] : NULL;
    pfio_extent e = {file, 0, offset, length};
    if (length == 0)
        return;
    if (last != NULL && last->offset + last->length == offset) {
        last->length += length;
        return;
    }
    H5FD__prefetch_extents_append(list, &e);
}

/* Drops from the page cache the pages of index nodes read while declaring that lie in
 * [start, end). Declaring a chunked selection makes HDF5 search the chunk index, whose nodes lie
 * between the chunks (HDF5 allocates them as the chunks are written). Cached, they break the
 * kernel's readahead of a dense run of chunks: a readahead window that meets a cached page
 * submits what it has and loses its mark for the next window. Only in dense runs: elsewhere a
 * node read again would come from the device (docs/measurements.md, "Dense runs and
 * readahead"). */
void H5FD__prefetch_drop_index_pages(H5FD_prefetch_t *file, uint64_t start, uint64_t end)
{
    H5FD_prefetch_extents_t *pages = &file->index_pages;
    size_t lo = 0, hi;
    if (pages->count == 0)
        return;
    if (file->index_pages_sorted != pages->count) {
        H5FD__prefetch_extents_sort_and_join(pages, 0);
        file->index_pages_sorted = pages->count;
    }
    hi = pages->count;
    while (lo < hi) { /* the first noted run that ends after start */
        size_t mid = lo + (hi - lo) / 2;
        if (pages->items[mid].offset + pages->items[mid].length <= start)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < pages->count && pages->items[lo].offset < end; ++lo) {
        (void)posix_fadvise(file->fd, (off_t)pages->items[lo].offset,
                            (off_t)pages->items[lo].length, POSIX_FADV_DONTNEED);
        ++file->stats.index_drops;
    }
}

#define DENSE_RUN ((uint64_t)4 << 20)
#define DENSE_JOIN_GAP ((uint64_t)64 << 10)

/* Where the engine holds the file in the page cache and the declared extents are one stream: its
 * dense run (in the order it will be read, each extent starting at most DENSE_JOIN_GAP after the
 * one before it ends, the gaps adding up to at most 1/16 of the run, DENSE_RUN or more, two
 * extents or more: a stream the kernel's readahead follows) is left to the readahead
 * (pfio_plan_readahead: read directly, not advised), with the pages of index nodes inside it
 * dropped. Several streams (a block's rows of chunks: two stretches of DENSE_RUN or more, of one
 * extent or several) are all advised, so that the device reads them side by side; so are extents
 * in another order, whatever their union: readahead follows a descriptor's reads in order only.
 * Why: docs/hdf5-driver.md, "How each read is served".
 */
/* The run of plan->items from *i on, each extent starting at most DENSE_JOIN_GAP after the one
 * before it ends: [*start, *end) with *gaps bytes between its extents, *i moved past it. */
static void run_at(const extent_list *plan, size_t *i, uint64_t *start, uint64_t *end,
                   uint64_t *gaps)
{
    *gaps = 0;
    *start = plan->items[*i].offset;
    *end = *start + plan->items[*i].length;
    for (++*i; *i < plan->count && plan->items[*i].offset >= *end &&
               plan->items[*i].offset <= *end + DENSE_JOIN_GAP;
         ++*i) {
        *gaps += plan->items[*i].offset - *end;
        *end = plan->items[*i].offset + plan->items[*i].length;
    }
}

int H5FD__prefetch_one_stream(const H5FD_prefetch_extents_t *list)
{
    uint64_t start, end, gaps;
    size_t i = 0;
    if (list->count == 0)
        return 0;
    run_at(list, &i, &start, &end, &gaps);
    return i == list->count && 16 * gaps <= end - start;
}

static void leave_dense_runs(H5FD_prefetch_t *file)
{
    extent_list runs = {0};
    const extent_list *plan = &file->pending;
    uint64_t start, end, gaps;
    size_t streams = 0;
    if (!file->page_cache_kind)
        return;
    for (size_t i = 0; i < plan->count && streams < 2;) {
        run_at(plan, &i, &start, &end, &gaps);
        streams += end - start >= DENSE_RUN;
    }
    if (streams >= 2)
        return; /* several streams: all advised */
    for (size_t i = 0; i < plan->count;) {
        const size_t first = i;
        run_at(plan, &i, &start, &end, &gaps);
        if (i - first >= 2 && end - start >= DENSE_RUN && 16 * gaps <= end - start) {
            H5FD__prefetch_extents_push(&runs, file->pfio_file, start, end - start);
            H5FD__prefetch_drop_index_pages(file, start, end);
        }
    }
    if (!runs.failed && runs.count > 0)
        (void)pfio_plan_readahead(file->ctx, runs.items, runs.count); /* a hint: refused, read */
    free(runs.items);
}

pfio_status H5FD__prefetch_hand_pending(H5FD_prefetch_t *file)
{
    pfio_status status;
    if (file->pending.count == 0)
        return PFIO_OK;
    if (file->ctx == NULL)
        return PFIO_EINVAL; /* the context starts before anything is pending */
    if (file->page_cache_kind || H5FD__prefetch_engine_inherited(file))
        file->stats.advised_extents += file->pending.count;
    if (H5FD__prefetch_engine_inherited(file)) {
        /* A child of fork(): its parent's context refuses it. The child advises its declared
         * extents itself, in file order, and reads them from the page cache. */
        H5FD__prefetch_extents_sort_and_join(&file->pending, 0);
        for (size_t i = 0; i < file->pending.count; ++i)
            H5FD__prefetch_willneed(file, file->pending.items[i].offset,
                                    file->pending.items[i].length);
        file->pending.count = 0;
        return PFIO_OK;
    }
    /* extents listed before the context started carry no file id yet: the file is its one */
    for (size_t i = 0; i < file->pending.count; ++i)
        file->pending.items[i].file = file->pfio_file;
    leave_dense_runs(file);
    status = pfio_plan_append(file->ctx, file->pending.items, file->pending.count);
    file->pending.count = 0;
    return status;
}

int H5FD__prefetch_flush_pending(H5FD_prefetch_t *file, const char *func)
{
    if (file->pending.count == 0)
        return 0;
    if (H5FD__prefetch_engine(file, file->declared, func) < 0)
        return -1;
    if (H5FD__prefetch_hand_pending(file) != PFIO_OK) {
        H5FD__prefetch_error(func, H5E_VFL, H5E_CANTINIT, "handing the declared plan to pfio: %s",
                             pfio_last_error());
        return -1;
    }
    return 0;
}

static int by_offset(const void *a, const void *b)
{
    const pfio_extent *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Sorts list->items[from ..] by offset and joins adjacent ones. */
void H5FD__prefetch_extents_sort_and_join(extent_list *list, size_t from)
{
    size_t i, out = from;
    if (list->count - from < 2)
        return;
    qsort(list->items + from, list->count - from, sizeof *list->items, by_offset);
    for (i = from + 1; i < list->count; ++i) {
        pfio_extent *last = &list->items[out];
        if (last->offset + last->length >= list->items[i].offset) {
            uint64_t end = list->items[i].offset + list->items[i].length;
            if (end > last->offset + last->length)
                last->length = end - last->offset;
        } else {
            list->items[++out] = list->items[i];
        }
    }
    list->count = out + 1;
}
