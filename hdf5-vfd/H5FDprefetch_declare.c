/* H5FD_prefetch_declare: a dataset selection becomes the file extents HDF5 1.10 will read for it,
 * in the order it reads them, appended to the file's plan.
 *
 * What HDF5 reads, and so what is declared:
 *  - contiguous dataset: the selection's runs of elements, in file order (HDF5 walks a selection
 *    in row-major order, which for a contiguous dataset is file order; adjacent runs join);
 *  - chunked dataset: each chunk the selection touches, in chunk order (HDF5 keeps the chunks of
 *    one read in a list ordered by their row-major chunk index). A chunk that fits HDF5's chunk
 *    cache, and every filtered (compressed) chunk, is read whole: its stored size is declared. A
 *    larger unfiltered chunk bypasses the cache and only the selected runs inside it are read.
 *    Unallocated chunks hold fill values and are never read: they are skipped and counted;
 *  - compact dataset: the data lives in the object header (metadata): nothing to declare.
 * Chunk addresses come from H5Dget_chunk_info_by_coord, one index lookup per touched chunk;
 * enumerating all chunks by index (H5Dget_chunk_info) would cost a walk of the index per chunk.
 */
#include <stdlib.h>
#include <string.h>

#include "H5FDprefetch_private.h"

/* The file id of the extents listed here: pfio's id of the file is set when they are handed to
 * pfio (H5FD__prefetch_hand_pending), and the context may start in another thread meanwhile. */
#define UNSET_FILE (-1)

_Thread_local H5FD_prefetch_probe_t H5FD__prefetch_probe = {NULL, HADDR_UNDEF, 0};

typedef H5FD_prefetch_extents_t extent_list;
typedef H5FD_prefetch_dataset_t dataset_info;

/* The box [box_start, box_start + box_count) of a dataspace laid out row-major at `base`, with
 * elements of `elem` bytes: the runs of bytes the selection of `space` inside the box covers, in
 * file order. 0, or -1 after pushing an error. */
static int runs_in_box(hid_t space, int rank, const hsize_t *box_start, const hsize_t *box_count,
                       size_t elem, uint64_t base, int32_t file, extent_list *list)
{
    hsize_t ones[H5S_MAX_RANK], coord[H5S_MAX_RANK], pitch[H5S_MAX_RANK];
    hsize_t *blocks = NULL;
    hssize_t nblocks;
    size_t from = list->count;
    hid_t box = H5Scopy(space);
    int d, ret = -1;
    if (box < 0)
        return -1;
    pitch[rank - 1] = elem;
    for (d = rank - 1; d >= 0; --d) {
        ones[d] = 1;
        if (d > 0)
            pitch[d - 1] = pitch[d] * box_count[d];
    }
    if (H5Sget_select_type(box) == H5S_SEL_ALL || H5Sget_select_type(box) == H5S_SEL_POINTS) {
        /* An element list: HDF5 reads the points in the order given; each is one run. */
        if (H5Sget_select_type(box) == H5S_SEL_POINTS) {
            hssize_t npoints = H5Sget_select_elem_npoints(box), i;
            hsize_t *points = malloc((size_t)npoints * (size_t)rank * sizeof *points);
            if (points == NULL ||
                H5Sget_select_elem_pointlist(box, 0, (hsize_t)npoints, points) < 0) {
                free(points);
                goto done;
            }
            for (i = 0; i < npoints; ++i) {
                uint64_t at = base;
                int inside = 1;
                for (d = 0; d < rank; ++d) {
                    hsize_t c = points[(size_t)i * (size_t)rank + (size_t)d];
                    inside = inside && c >= box_start[d] && c < box_start[d] + box_count[d];
                    at += (c - box_start[d]) * pitch[d];
                }
                if (inside)
                    H5FD__prefetch_extents_push(list, file, at, elem);
            }
            free(points);
            ret = 0;
            goto done;
        }
        if (H5Sselect_hyperslab(box, H5S_SELECT_SET, box_start, NULL, ones, box_count) < 0)
            goto done;
    } else if (H5Sselect_hyperslab(box, H5S_SELECT_AND, box_start, NULL, ones, box_count) < 0) {
        goto done;
    }
    nblocks = H5Sget_select_type(box) == H5S_SEL_NONE ? 0 : H5Sget_select_hyper_nblocks(box);
    if (nblocks < 0)
        goto done;
    blocks = malloc(((size_t)nblocks + 1) * 2 * (size_t)rank * sizeof *blocks);
    if (blocks == NULL ||
        (nblocks > 0 && H5Sget_select_hyper_blocklist(box, 0, (hsize_t)nblocks, blocks) < 0))
        goto done;
    for (hssize_t b = 0; b < nblocks; ++b) {
        const hsize_t *lo = blocks + (size_t)b * 2 * (size_t)rank, *hi = lo + rank;
        uint64_t run = (hi[rank - 1] - lo[rank - 1] + 1) * elem;
        memcpy(coord, lo, (size_t)rank * sizeof *coord);
        for (;;) { /* every row of the block: all but the last dimension vary */
            uint64_t at = base;
            for (d = 0; d < rank; ++d)
                at += (coord[d] - box_start[d]) * pitch[d];
            H5FD__prefetch_extents_push(list, file, at, run);
            for (d = rank - 2; d >= 0; --d) {
                if (++coord[d] <= hi[d])
                    break;
                coord[d] = lo[d];
            }
            if (d < 0)
                break;
        }
    }
    H5FD__prefetch_extents_sort_and_join(list, from);
    ret = 0;
done:
    free(blocks);
    H5Sclose(box);
    return ret;
}

/* Where the chunk at element `offset` is stored: *addr and *stored, or HADDR_UNDEF and 0 when
 * it is not allocated. H5Dget_chunk_info_by_coord answers this, but in HDF5 1.10 it walks the
 * whole chunk index until it meets the chunk, so declaring every chunk of a dataset costs time
 * quadratic in the number of chunks (measured in docs/hdf5-driver.md). H5Dread_chunk finds the
 * chunk by a search of the index and then reads it raw at its address: while this thread probes
 * the file (H5FD__prefetch_probe), the driver records that read instead of making it. 0, or -1
 * after an error. */
static int chunk_address(dataset_info *info, const hsize_t *offset, haddr_t *addr, hsize_t *stored)
{
    H5FD_prefetch_t *file = info->file;
    uint32_t filters = 0;
    size_t need = (size_t)info->chunk_bytes;
    herr_t rc = 0;
    uint64_t kept_size = 0;
    *addr = HADDR_UNDEF;
    *stored = 0;
    if (H5FD__prefetch_chunkmap_get(info->chunks, H5FD__prefetch_chunk_index(info, offset), addr,
                                    &kept_size)) {
        *stored = (hsize_t)kept_size; /* a leaf of the index read earlier named it */
        ++file->stats.chunk_map_hits;
        return 0;
    }
    ++file->stats.chunk_lookups;
    if (info->filtered) { /* the stored size first: a filtered chunk can be larger than raw */
        H5E_BEGIN_TRY
        {
            rc = H5Dget_chunk_storage_size(info->id, offset, stored);
        }
        H5E_END_TRY;
        if (rc < 0 || *stored == 0) { /* not allocated: fill values, nothing to read */
            *stored = 0;
            return 0;
        }
        if (*stored > need)
            need = (size_t)*stored;
    }
    if (need > file->probe_buffer_size) {
        unsigned char *grown = realloc(file->probe_buffer, need);
        if (grown == NULL)
            return -1;
        file->probe_buffer = grown;
        file->probe_buffer_size = need;
    }
    H5FD__prefetch_probe.file = file;
    H5FD__prefetch_probe.addr = HADDR_UNDEF;
    H5FD__prefetch_probe.size = 0;
    H5E_BEGIN_TRY
    {
        rc = H5Dread_chunk(info->id, H5P_DEFAULT, offset, &filters, file->probe_buffer);
    }
    H5E_END_TRY;
    H5FD__prefetch_probe.file = NULL;
    if (rc >= 0 && H5FD__prefetch_probe.addr != HADDR_UNDEF) {
        *addr = H5FD__prefetch_probe.addr;
        *stored = H5FD__prefetch_probe.size;
        /* Kept: a probe evicts the chunk from HDF5's chunk cache (H5Dread_chunk does), so a
         * chunk probed again at every call would be read again at every call. */
        const uint64_t index = H5FD__prefetch_chunk_index(info, offset);
        if (index != UINT64_MAX)
            H5FD__prefetch_chunkmap_put(&info->chunks, index, *addr, *stored, info->nchunks);
        return 0;
    }
    /* H5Dread_chunk refuses unallocated chunks; anything else falls back on the index walk. */
    H5E_BEGIN_TRY
    {
        rc = H5Dget_chunk_storage_size(info->id, offset, stored);
    }
    H5E_END_TRY;
    if (rc < 0 || *stored == 0) {
        *stored = 0;
        return 0;
    }
    {
        unsigned mask = 0;
        return H5Dget_chunk_info_by_coord(info->id, offset, &mask, addr, stored) < 0 ? -1 : 0;
    }
}

/* A run of unfiltered chunks next to each other along the last dimension, chunk indices lo .. hi
 * of that dimension (offset[] holds the other coordinates): declared as one extent when the last
 * chunk lies exactly (hi - lo) chunk sizes after the first, which, chunks never overlapping,
 * means the run fills that span with nothing else in it; otherwise halved and each half looked
 * at the same way. A row of 256 chunks written in order costs 2 index searches instead of 256.
 * addr_lo / addr_hi are the ends' addresses when already known (HADDR_MAX: not yet). */
#define NOT_LOOKED_UP HADDR_MAX
static int declare_run(dataset_info *info, hsize_t *offset, hsize_t lo, hsize_t hi, haddr_t addr_lo,
                       haddr_t addr_hi, extent_list *list)
{
    H5FD_prefetch_t *file = info->file;
    const int last = info->rank - 1;
    const uint64_t size = info->chunk_bytes;
    hsize_t stored = 0, mid;
    haddr_t addr_mid;
    if (addr_lo == NOT_LOOKED_UP) {
        offset[last] = lo * info->cdims[last];
        if (chunk_address(info, offset, &addr_lo, &stored) < 0)
            return -1;
    }
    if (lo == hi) {
        if (addr_lo == HADDR_UNDEF)
            ++file->stats.skipped_chunks;
        else
            H5FD__prefetch_extents_push(list, UNSET_FILE, addr_lo, size);
        return 0;
    }
    if (addr_hi == NOT_LOOKED_UP) {
        offset[last] = hi * info->cdims[last];
        if (chunk_address(info, offset, &addr_hi, &stored) < 0)
            return -1;
    }
    if (addr_lo != HADDR_UNDEF && addr_hi != HADDR_UNDEF && addr_hi > addr_lo &&
        addr_hi - addr_lo == (hi - lo) * size) {
        H5FD__prefetch_extents_push(list, UNSET_FILE, addr_lo, (hi - lo + 1) * size);
        return 0;
    }
    mid = lo + (hi - lo) / 2;
    addr_mid = mid == lo ? addr_lo : NOT_LOOKED_UP;
    if (declare_run(info, offset, lo, mid, addr_lo, addr_mid, list) < 0)
        return -1;
    return declare_run(info, offset, mid + 1, hi, mid + 1 == hi ? addr_hi : NOT_LOOKED_UP, addr_hi,
                       list);
}

/* The chunks a selection touches, in row-major chunk order; `declared`: for a plan the program
 * declared (else the driver's own plan of a call: file->declaring_own). 0, or -1 after pushing an
 * error. */
static int chunked_extents(dataset_info *info, hid_t space, int declared, extent_list *list)
{
    H5FD_prefetch_t *file = info->file;
    const int rank = info->rank;
    hsize_t lo[H5S_MAX_RANK], hi[H5S_MAX_RANK], scaled[H5S_MAX_RANK], first[H5S_MAX_RANK];
    hsize_t last[H5S_MAX_RANK], box_start[H5S_MAX_RANK], box_end[H5S_MAX_RANK];
    hsize_t run_offset[H5S_MAX_RANK], run_lo = 0, run_hi = 0;
    const int runs = info->whole && !info->filtered; /* stored sizes all chunk_bytes */
    int d, in_run = 0, one_box;
    /* A selection that is one box (every element of its bounding box: all, one hyperslab block,
     * or blocks that tile it, as h5py's slices are one-element blocks) touches every chunk of
     * its bounding box: no chunk needs asking. */
    const hssize_t npoints = H5Sget_select_npoints(space);
    hsize_t volume = 1;
    if (npoints < 0 || H5Sget_select_bounds(space, lo, hi) < 0)
        return -1;
    for (d = 0; d < rank; ++d)
        volume *= hi[d] - lo[d] + 1;
    one_box = volume == (hsize_t)npoints;
    for (d = 0; d < rank; ++d) {
        first[d] = lo[d] / info->cdims[d];
        last[d] = hi[d] / info->cdims[d];
        scaled[d] = first[d];
        file->declaring_first[d] = first[d] * info->cdims[d];
        file->declaring_last[d] = last[d] * info->cdims[d];
    }
    file->declaring_own = !declared;
    for (;;) {
        for (d = 0; d < rank; ++d) {
            box_start[d] = scaled[d] * info->cdims[d];
            box_end[d] = box_start[d] + info->cdims[d] - 1;
            if (box_end[d] >= info->dims[d])
                box_end[d] = info->dims[d] - 1;
        }
        htri_t touched = one_box ? 1 : H5Sselect_intersect_block(space, box_start, box_end);
        if (touched < 0)
            return -1;
        if (touched > 0 && runs) {
            if (in_run && scaled[rank - 1] == run_hi + 1) {
                run_hi = scaled[rank - 1];
            } else {
                if (in_run && declare_run(info, run_offset, run_lo, run_hi, NOT_LOOKED_UP,
                                          NOT_LOOKED_UP, list) < 0)
                    return -1;
                memcpy(run_offset, box_start, (size_t)rank * sizeof *run_offset);
                run_lo = run_hi = scaled[rank - 1];
                in_run = 1;
            }
        } else if (touched > 0) {
            haddr_t addr = HADDR_UNDEF;
            hsize_t stored = 0;
            if (chunk_address(info, box_start, &addr, &stored) < 0)
                return -1;
            if (addr == HADDR_UNDEF || stored == 0)
                ++file->stats.skipped_chunks;
            else if (info->whole)
                H5FD__prefetch_extents_push(list, UNSET_FILE, addr, stored);
            else if (runs_in_box(space, rank, box_start, info->cdims, info->elem, addr, UNSET_FILE,
                                 list) < 0)
                return -1;
        }
        for (d = rank - 1; d >= 0; --d) { /* next chunk, row-major */
            if (++scaled[d] <= last[d])
                break;
            scaled[d] = first[d];
        }
        if (in_run && (d < rank - 1 || touched == 0)) { /* the run ends here */
            if (declare_run(info, run_offset, run_lo, run_hi, NOT_LOOKED_UP, NOT_LOOKED_UP, list) <
                0)
                return -1;
            in_run = 0;
        }
        if (d < 0)
            return 0;
    }
}

/* Cuts the extents to what pfio saw of the file (data written since then is read directly). */
static void clip_to_engine(const H5FD_prefetch_t *file, extent_list *list)
{
    size_t i, kept = 0;
    for (i = 0; i < list->count; ++i) {
        pfio_extent e = list->items[i];
        if (e.offset >= file->pfio_size)
            continue;
        if (e.offset + e.length > file->pfio_size)
            e.length = file->pfio_size - e.offset;
        list->items[kept++] = e;
    }
    list->count = kept;
}

/* 0 when the selection in `space` (rank `rank`) fits the dataset: the same rank, and every
 * selected element inside the dataset's extent (as H5Dread requires); else -1, named. */
static int fits_dataset(hid_t dset_id, hid_t file_space_id, hid_t space, int rank, hssize_t npoints)
{
    hsize_t own[H5S_MAX_RANK], lo[H5S_MAX_RANK], hi[H5S_MAX_RANK];
    hid_t own_space = H5Dget_space(dset_id);
    int own_rank = own_space >= 0 ? H5Sget_simple_extent_dims(own_space, own, NULL) : -1, d;
    if (own_space >= 0)
        H5Sclose(own_space);
    if (own_rank != rank) {
        H5FD__prefetch_error("H5FD_prefetch_declare", H5E_ARGS, H5E_BADVALUE,
                             "file_space_id %lld has rank %d; dataset %lld has rank %d: expected "
                             "a selection in the dataset's dataspace (H5Dget_space)",
                             (long long)file_space_id, rank, (long long)dset_id, own_rank);
        return -1;
    }
    if (npoints <= 0 || rank == 0)
        return 0;
    if (H5Sget_select_bounds(space, lo, hi) < 0)
        return -1;
    for (d = 0; d < rank; ++d) {
        if (hi[d] >= own[d]) {
            H5FD__prefetch_error("H5FD_prefetch_declare", H5E_ARGS, H5E_BADVALUE,
                                 "file_space_id %lld selects up to %llu in dimension %d; dataset "
                                 "%lld has %llu there: expected a selection inside the dataset",
                                 (long long)file_space_id, (unsigned long long)hi[d], d,
                                 (long long)dset_id, (unsigned long long)own[d]);
            return -1;
        }
    }
    return 0;
}

int H5FD__prefetch_selection_extents(hid_t dset_id, hid_t file_space_id, int declared,
                                     const char *func, H5FD_prefetch_extents_t *list,
                                     H5FD_prefetch_t **file_out)
{
    hsize_t dims[H5S_MAX_RANK], zeros[H5S_MAX_RANK] = {0};
    hid_t space = H5I_INVALID_HID, all = H5I_INVALID_HID;
    dataset_info *info;
    H5FD_prefetch_t *file;
    int ret = -1;
    int rank, scalar;
    hssize_t npoints;
    if (H5Iget_type(dset_id) != H5I_DATASET) {
        H5FD__prefetch_error(func, H5E_ARGS, H5E_BADTYPE, "dset_id %lld is not a dataset",
                             (long long)dset_id);
        return -1;
    }
    if (file_space_id == H5S_ALL)
        space = all = H5Dget_space(dset_id);
    else
        space = file_space_id;
    rank = space >= 0 ? H5Sget_simple_extent_dims(space, dims, NULL) : -1;
    npoints = space >= 0 ? H5Sget_select_npoints(space) : -1;
    if (rank < 0 || npoints < 0) {
        H5FD__prefetch_error(func, H5E_ARGS, H5E_BADVALUE,
                             "file_space_id %lld is not a dataspace with a selection",
                             (long long)file_space_id);
        goto done;
    }
    if (fits_dataset(dset_id, file_space_id, space, rank, npoints) < 0)
        goto done;
    scalar = rank == 0;
    if (scalar) {
        rank = 1;
        dims[0] = 1;
    }
    info = H5FD__prefetch_dataset(dset_id, rank, dims);
    if (info == NULL)
        goto done;
    file = info->file;
    if (file->stale && H5FD__prefetch_refresh(file, func) < 0)
        goto done;
    if (npoints > 0 && info->layout == H5D_CONTIGUOUS) {
        if (info->base == HADDR_UNDEF)
            info->base = H5Dget_offset(dset_id); /* written since it was looked at? */
        if (info->base != HADDR_UNDEF && scalar) /* its one element: a box of a dataspace of
                                                  * rank 0 is no hyperslab to list runs of */
            H5FD__prefetch_extents_push(list, UNSET_FILE, (uint64_t)info->base, info->elem);
        else if (info->base != HADDR_UNDEF && runs_in_box(space, rank, zeros, dims, info->elem,
                                                          info->base, UNSET_FILE, list) < 0) {
            H5FD__prefetch_error(func, H5E_VFL, H5E_CANTGET,
                                 "dataset %lld: could not list the runs of its selection",
                                 (long long)dset_id);
            goto done;
        }
    } else if (npoints > 0 && info->layout == H5D_CHUNKED) {
        int found;
        H5FD__prefetch_declaring = file;
        file->declaring_info = info;
        found = chunked_extents(info, space, declared, list);
        H5FD__prefetch_declaring = NULL;
        file->declaring_info = NULL;
        if (found < 0) {
            H5FD__prefetch_error(func, H5E_VFL, H5E_CANTGET,
                                 "dataset %lld: could not find the chunks its selection touches",
                                 (long long)dset_id);
            goto done;
        }
    }
    if (list->failed) {
        H5FD__prefetch_error(func, H5E_VFL, H5E_CANTALLOC,
                             "no memory for the %zu extents of the selection", list->count);
        goto done;
    }
    /* Every extent goes to pfio's plan, which must know the file's size. */
    if (list->count > 0 && H5FD__prefetch_engine(file, declared, func) < 0)
        goto done;
    clip_to_engine(file, list);
    *file_out = file;
    ret = 0;
done:
    if (ret < 0)
        list->count = 0;
    H5FD__prefetch_close_ids(ret < 0, all, H5I_INVALID_HID, H5I_INVALID_HID);
    return ret;
}

/*-------------------------------------------------------------------------
 * Function:    H5FD_prefetch_declare
 *
 * Purpose:     Appends to the plan of the file holding dset_id the extents HDF5 will read for
 *              the selection of file_space_id (H5S_ALL: the whole dataset). See the top of
 *              this file for what is declared for each layout.
 *
 * Return:      Success:    0
 *              Failure:    -1, nothing appended
 *-------------------------------------------------------------------------
 */
herr_t H5FD_prefetch_declare(hid_t dset_id, hid_t file_space_id)
{
    extent_list list = {NULL, 0, 0, 0};
    H5FD_prefetch_t *file = NULL;
    herr_t ret = -1;
    size_t i;
    size_t pending = 0;
    int failed;
    if (H5FD__prefetch_selection_extents(dset_id, file_space_id, 1, __func__, &list, &file) < 0)
        goto done;
    pthread_mutex_lock(&file->plan_lock); /* no HDF5 call until it is let go */
    if (!file->declared) {                /* the application's plan replaces what was predicted */
        pfio_extent none = {0, 0, 0, 0};
        if (file->ctx != NULL)
            pfio_plan_replace(file->ctx, &none, 0);
        H5FD__prefetch_predictor_reset(file);
        file->ahead_info = NULL; /* a call foreseen was in that plan */
        file->declared = 1;
    }
    for (i = 0; i < list.count; ++i) /* no joining across selections: each is read alone */
        H5FD__prefetch_extents_append(&file->pending, &list.items[i]);
    failed = file->pending.failed;
    pending = file->pending.count;
    file->pending.failed = 0;
    if (!failed) {
        file->stats.declared_extents += list.count;
        for (i = 0; i < list.count; ++i)
            file->stats.declared_bytes += list.items[i].length;
    }
    pthread_mutex_unlock(&file->plan_lock);
    if (failed) {
        H5FD__prefetch_error(__func__, H5E_VFL, H5E_CANTALLOC, "no memory for %zu declared extents",
                             pending);
        goto done;
    }
    ret = 0;
done:
    free(list.items);
    return ret;
}
