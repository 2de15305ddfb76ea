/* Column sweeps without a declaration: pfio's sweep predictor (pfio_sweep) says what to advise;
 * the driver advises it, and the index nodes the sweep will need when one starts. */
#include "H5FDprefetch_private.h"

void H5FD__prefetch_sweep_reset(H5FD_prefetch_sweep_t *s)
{
    if (s->sweep != NULL)
        pfio_sweep_reset(s->sweep);
}

void H5FD__prefetch_sweep_free(H5FD_prefetch_sweep_t *s)
{
    pfio_sweep_destroy(s->sweep);
    s->sweep = NULL;
}

static void advise(H5FD_prefetch_t *file, const pfio_extent *ranges, size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        H5FD__prefetch_willneed(file, ranges[i].offset, ranges[i].length);
        file->stats.sweep_advised += ranges[i].length;
    }
}

/* The chunk index nodes noted since the last sweep started (the children of the internal nodes
 * HDF5 read), in file order, once: HDF5 reads a column's chunks through the index leaves that
 * name them, and a pass column by column reaches new leaves in every row every few dozen
 * columns; read one at a time from the device they cost 0.1 s of a 0.4 s pass of 8 KiB chunks
 * here. */
static void advise_index(H5FD_prefetch_t *file)
{
    H5FD_prefetch_extents_t *nodes = &file->index_children;
    H5FD__prefetch_extents_sort_and_join(nodes, 0);
    for (size_t i = 0; i < nodes->count; ++i)
        H5FD__prefetch_willneed(file, nodes->items[i].offset, nodes->items[i].length);
    file->stats.index_advised += nodes->count;
    nodes->count = 0;
    nodes->failed = 0;
}

void H5FD__prefetch_sweep_observe(H5FD_prefetch_t *file, haddr_t addr, size_t size)
{
    H5FD_prefetch_sweep_t *s = &file->sweep;
    const pfio_extent *ranges = NULL;
    size_t count, near = 0;
    if (s->sweep == NULL && pfio_sweep_create(&s->sweep) != PFIO_OK)
        return; /* no memory: no sweep, reads are as they were */
    if (!pfio_sweep_observe(s->sweep, addr, size, file->eof)) {
        count = pfio_sweep_advice(s->sweep, &ranges, NULL);
        advise(file, ranges, count);
        return;
    }
    /* A confirmed sweep: every row's next reads first (what the reader needs next waits behind
     * nothing else in the advice thread's queue and the device's), the index nodes, then each
     * row's full look-ahead. */
    pfio_sweep_start(s->sweep, H5FD__prefetch_advice_window(file), file->eof);
    count = pfio_sweep_advice(s->sweep, &ranges, &near);
    advise(file, ranges, near);
    advise_index(file);
    advise(file, ranges + near, count - near);
    ++file->stats.sweeps;
}
