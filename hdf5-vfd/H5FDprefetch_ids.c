/* H5FDprefetch_ids.c: from any id inside a file to the driver's file struct behind it (what the
 * declare and stats calls are given), and the stats call. A file is the driver's when its access
 * list names the driver's registered id (H5FDprefetch_registered.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "H5FDprefetch.h"
#include "H5FDprefetch_private.h"

/*-------------------------------------------------------------------------
 * Function:    H5FD__prefetch_file_of
 *
 * Purpose:     The driver's file struct behind any id inside a file opened with the driver.
 *
 * Return:      Success:    The struct
 *              Failure:    NULL, with an error that names the id
 *-------------------------------------------------------------------------
 */
H5FD_prefetch_t *H5FD__prefetch_file_of(hid_t obj_id, const char *func)
{
    hid_t file_id = H5Iget_file_id(obj_id), fapl = H5I_INVALID_HID;
    void *handle = NULL;
    H5FD_prefetch_t *file = NULL;
    if (file_id < 0) {
        H5FD__prefetch_error(func, H5E_ARGS, H5E_BADTYPE,
                             "id %lld is not a file or an object in a file", (long long)obj_id);
        return NULL;
    }
    fapl = H5Fget_access_plist(file_id);
    if (fapl < 0 || H5Pget_driver(fapl) != H5FD__prefetch_registered_id()) {
        H5FD__prefetch_error(func, H5E_ARGS, H5E_BADVALUE,
                             "the file of id %lld is not open with the prefetch driver "
                             "(use H5Pset_fapl_prefetch on its file access property list)",
                             (long long)obj_id);
    } else if (H5Fget_vfd_handle(file_id, fapl, &handle) < 0 || handle == NULL) {
        H5FD__prefetch_error(func, H5E_VFL, H5E_CANTGET,
                             "could not get the driver's handle of the file of id %lld",
                             (long long)obj_id);
    } else {
        file = (H5FD_prefetch_t *)((char *)handle - offsetof(H5FD_prefetch_t, fd));
    }
    H5FD__prefetch_close_ids(file == NULL, fapl, file_id, H5I_INVALID_HID);
    return file;
}

/*-------------------------------------------------------------------------
 * Function:    H5FD_prefetch_get_stats
 *
 * Purpose:     Copies the counters of the file holding obj_id, with pfio's current ones.
 *
 * Return:      Success:    0
 *              Failure:    -1, *stats unchanged
 *-------------------------------------------------------------------------
 */
herr_t H5FD_prefetch_get_stats(hid_t obj_id, H5FD_prefetch_stats_t *stats /*out*/)
{
    H5FD_prefetch_t *file;
    if (stats == NULL) {
        H5FD__prefetch_error(__func__, H5E_ARGS, H5E_BADVALUE, "stats is NULL: expected a struct");
        return -1;
    }
    file = H5FD__prefetch_file_of(obj_id, __func__);
    if (file == NULL)
        return -1;
    if (file->ctx == NULL || H5FD__prefetch_engine_inherited(file)) { /* a fork() child's: none */
        memset(&file->stats.engine, 0, sizeof file->stats.engine);
    } else if (pfio_stats_get(file->ctx, &file->stats.engine, sizeof file->stats.engine) !=
               PFIO_OK) {
        H5FD__prefetch_error(__func__, H5E_VFL, H5E_CANTGET, "%s", pfio_last_error());
        return -1;
    }
    pthread_mutex_lock(&file->plan_lock); /* raw reads move the counters under it */
    H5FD__prefetch_predictor_count(file);
    *stats = file->stats;
    pthread_mutex_unlock(&file->plan_lock);
    return 0;
}
