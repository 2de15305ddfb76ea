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
 * returns, so a plan never outlives its call.
 */
#include <pthread.h>
#include <stdlib.h>

#include "H5FDprefetch_private.h"

/* Datasets found not to be the driver's, so that their calls cost one look-up here (HDF5 1.10
 * never reuses the id of a closed object). */
#define FOREIGN_SLOTS 16
static hid_t foreign[FOREIGN_SLOTS];
static unsigned next_foreign;

/* One call at a time plans and reads: the file's plan is one per file, and HDF5 runs one API call
 * at a time anyway (Debian's serial build is thread-safe through a global lock). Taken before
 * HDF5's lock and never inside a driver callback, so the two cannot deadlock. */
static pthread_mutex_t calls = PTHREAD_MUTEX_INITIALIZER;

static int is_foreign(hid_t dset_id)
{
    for (int i = 0; i < FOREIGN_SLOTS; ++i)
        if (foreign[i] == dset_id)
            return 1;
    return 0;
}

/* Below this many bytes a call is not planned where the file is in the page cache kind (a local
 * file system): planning costs about 10 us a call, more than overlapping a few small reads of a
 * local device saves (docs/hdf5-driver.md, "Per-call plans"). Behind FUSE or a network (the
 * engine's reorder buffer) every call of two reads or more is planned: each read saved there is a
 * round trip. */
#define LOCAL_CALL_MIN ((uint64_t)64 << 10)

/* Whether the selection of `space` could need more than one read worth overlapping: it touches two
 * chunks or more (its bounding box does) of a chunked dataset, or selects from a contiguous one
 * (its runs are counted once listed); and on a local file system reads LOCAL_CALL_MIN bytes or
 * more (whole chunks where HDF5 reads them whole). 0 for a dataset that is not the driver's (then
 * noted as foreign); *info_out is the dataset's kept facts when it is the driver's. */
static int may_need_reads(hid_t dset_id, hid_t space, H5FD_prefetch_dataset_t **info_out)
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
    }
    return !info->file->page_cache_kind || bytes >= LOCAL_CALL_MIN;
}

/* Hands the call's extents to the file's plan (read at the first raw read). 1 when planned. */
static int plan_call(hid_t dset_id, hid_t file_space_id, H5FD_prefetch_t **planned,
                     H5FD_prefetch_dataset_t **planned_info)
{
    H5FD_prefetch_extents_t list = {NULL, 0, 0, 0};
    H5FD_prefetch_dataset_t *info = NULL;
    H5FD_prefetch_t *file, *found = NULL;
    hid_t space = file_space_id == H5S_ALL ? H5Dget_space(dset_id) : file_space_id;
    int want = space >= 0 && may_need_reads(dset_id, space, &info);
    size_t i;
    if (file_space_id == H5S_ALL && space >= 0)
        H5Sclose(space);
    if (info == NULL)
        return 0;
    file = info->file;
    if (want && info->plans_skip > 0) { /* its last plan went unread: not yet again */
        --info->plans_skip;
        want = 0;
    }
    if (file->declared || !want ||
        H5FD__prefetch_selection_extents(dset_id, file_space_id, "H5Dread", &list, &found) < 0 ||
        list.count == 0 || (info->layout != H5D_CHUNKED && list.count < 2)) {
        ++file->stats.calls_unplanned;
        free(list.items);
        return 0;
    }
    if (file->predictor.via_pfio && file->ctx != NULL && !H5FD__prefetch_engine_inherited(file)) {
        /* a prediction's extents are at the head of pfio's plan: this call's go first */
        pfio_extent none = {0, 0, 0, 0};
        pfio_plan_replace(file->ctx, &none, 0);
        H5FD__prefetch_predictor_reset(file);
    }
    for (i = 0; i < list.count; ++i)
        H5FD__prefetch_extents_append(&file->pending, &list.items[i]);
    if (file->pending.failed) { /* no memory: the call goes unplanned, nothing half-planned */
        file->pending.failed = 0;
        file->pending.count = 0;
        ++file->stats.calls_unplanned;
        free(list.items);
        return 0;
    }
    ++file->stats.call_plans;
    file->stats.call_plan_extents += list.count;
    file->call_plan_planned = file->call_plan_read = 0;
    for (i = 0; i < list.count; ++i)
        file->call_plan_planned += list.items[i].length;
    file->stats.call_plan_bytes += file->call_plan_planned;
    free(list.items);
    file->call_plan = 1;
    H5FD__prefetch_sieve_follow(file); /* HDF5 reads the planned runs, not sieve blocks */
    *planned = file;
    *planned_info = info;
    return 1;
}

/* After the call: what it left of its plan is dropped. A plan HDF5 read less than half of (its
 * chunk cache held the chunks) passes the dataset's next calls on unplanned, twice as many each
 * time it happens again (at most 64): a reader that re-reads what HDF5 keeps is not made to
 * fetch it again and again. */
static void end_call(H5FD_prefetch_t *file, H5FD_prefetch_dataset_t *info)
{
    file->call_plan = 0;
    file->pending.count = 0;
    if (file->ctx != NULL && !H5FD__prefetch_engine_inherited(file)) {
        pfio_extent none = {0, 0, 0, 0};
        pfio_plan_replace(file->ctx, &none, 0);
    }
    H5FD__prefetch_sieve_follow(file);
    if (2 * file->call_plan_read < file->call_plan_planned) {
        ++file->stats.call_plans_unread;
        info->plans_backoff = info->plans_backoff == 0   ? 1
                              : info->plans_backoff < 64 ? 2 * info->plans_backoff
                                                         : 64;
        info->plans_skip = info->plans_backoff;
    } else {
        info->plans_backoff = 0;
    }
}

herr_t H5FD_prefetch_auto_read(hid_t dset_id, hid_t mem_type_id, hid_t mem_space_id,
                               hid_t file_space_id, hid_t dxpl_id, void *buf,
                               herr_t (*hdf5_read)(hid_t, hid_t, hid_t, hid_t, hid_t, void *))
{
    H5FD_prefetch_t *file = NULL;
    H5FD_prefetch_dataset_t *info = NULL;
    herr_t ret;
    pthread_mutex_lock(&calls);
    if (!is_foreign(dset_id)) {
        H5E_BEGIN_TRY /* planning is pfio's business: a failure is silent, the call goes on */
        {
            (void)plan_call(dset_id, file_space_id, &file, &info);
        }
        H5E_END_TRY;
    }
    ret = hdf5_read(dset_id, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf);
    if (file != NULL)
        end_call(file, info);
    pthread_mutex_unlock(&calls);
    return ret;
}
