/* H5FDprefetch_dataset.c: what declaring a selection needs to know of a dataset (its shape,
 * element size, layout, where a contiguous one starts, its chunks and whether they are read
 * whole), found once per dataset id and kept in a few slots.
 */
#include <string.h>

#include "H5FDprefetch_private.h"

#define INFO_SLOTS 16
static H5FD_prefetch_dataset_t infos[INFO_SLOTS];
static unsigned next_info;

/* Fills *info for dset_id. 0, or -1 after pushing an error. */
static int find_info(hid_t dset_id, H5FD_prefetch_dataset_t *info)
{
    hid_t space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, type = H5I_INVALID_HID;
    hid_t dapl = H5I_INVALID_HID;
    size_t nslots = 0, cache_bytes = 0;
    double w0 = 0;
    int d, ret = -1;
    memset(info, 0, sizeof *info);
    info->file = H5FD__prefetch_file_of(dset_id, "H5FD_prefetch_declare");
    if (info->file == NULL)
        return -1;
    space = H5Dget_space(dset_id);
    dcpl = H5Dget_create_plist(dset_id);
    type = H5Dget_type(dset_id);
    info->rank = space >= 0 ? H5Sget_simple_extent_dims(space, info->dims, NULL) : -1;
    info->elem = type >= 0 ? H5Tget_size(type) : 0;
    info->layout = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
    if (info->rank < 0 || info->elem == 0 || info->layout < 0) {
        H5FD__prefetch_error("H5FD_prefetch_declare", H5E_ARGS, H5E_BADVALUE,
                             "dataset %lld: could not read its dataspace, type or layout",
                             (long long)dset_id);
        goto done;
    }
    if (info->rank == 0) { /* a scalar dataspace: one element */
        info->rank = 1;
        info->dims[0] = 1;
    }
    info->base = info->layout == H5D_CONTIGUOUS ? H5Dget_offset(dset_id) : HADDR_UNDEF;
    if (info->layout == H5D_CHUNKED) {
        dapl = H5Dget_access_plist(dset_id);
        if (H5Pget_chunk(dcpl, info->rank, info->cdims) != info->rank || dapl < 0 ||
            H5Pget_chunk_cache(dapl, &nslots, &cache_bytes, &w0) < 0) {
            H5FD__prefetch_error("H5FD_prefetch_declare", H5E_ARGS, H5E_BADVALUE,
                                 "dataset %lld: could not read its chunk shape or chunk cache",
                                 (long long)dset_id);
            goto done;
        }
        info->chunk_bytes = info->elem;
        info->nchunks = 1;
        for (d = 0; d < info->rank; ++d) {
            info->chunk_bytes *= info->cdims[d];
            info->across[d] =
                info->cdims[d] ? (info->dims[d] + info->cdims[d] - 1) / info->cdims[d] : 0;
            info->nchunks *= info->across[d];
        }
        info->filtered = H5Pget_nfilters(dcpl) > 0;
        info->whole = info->filtered || info->chunk_bytes <= cache_bytes;
    }
    info->id = dset_id;
    ret = 0;
done:
    H5FD__prefetch_close_ids(ret < 0, space, dcpl, type);
    H5FD__prefetch_close_ids(ret < 0, dapl, H5I_INVALID_HID, H5I_INVALID_HID);
    return ret;
}

/* The kept info of dset_id whose dataspace is `dims` now, found again if the dataset changed. */
H5FD_prefetch_dataset_t *H5FD__prefetch_dataset(hid_t dset_id, int rank, const hsize_t *dims)
{
    H5FD_prefetch_dataset_t *info = NULL;
    int i;
    for (i = 0; i < INFO_SLOTS && info == NULL; ++i)
        if (infos[i].id == dset_id && infos[i].id > 0)
            info = &infos[i];
    if (info != NULL &&
        (rank != info->rank || memcmp(dims, info->dims, (size_t)rank * sizeof *dims)))
        info->id = 0; /* extended (H5Dset_extent) since: find again */
    else if (info != NULL)
        return info;
    if (info == NULL)
        info = &infos[next_info++ % INFO_SLOTS];
    H5FD__prefetch_chunkmap_free(info->chunks); /* find_info starts the slot afresh */
    info->chunks = NULL;
    if (find_info(dset_id, info) < 0)
        return NULL;
    return info;
}

uint64_t H5FD__prefetch_chunk_index(const H5FD_prefetch_dataset_t *info, const hsize_t *offset)
{
    uint64_t index = 0;
    for (int d = 0; d < info->rank; ++d) {
        if (info->cdims[d] == 0 || offset[d] % info->cdims[d] != 0 ||
            offset[d] / info->cdims[d] >= info->across[d])
            return UINT64_MAX;
        index = index * info->across[d] + offset[d] / info->cdims[d];
    }
    return index; /* below nchunks, which fits: it counts chunks HDF5 can address */
}

void H5FD__prefetch_dataset_forget_chunks(const H5FD_prefetch_t *file)
{
    for (int i = 0; i < INFO_SLOTS; ++i)
        if (infos[i].file == file)
            H5FD__prefetch_chunkmap_clear(infos[i].chunks);
}
