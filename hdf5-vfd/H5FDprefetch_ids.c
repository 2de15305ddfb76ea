/* H5FDprefetch_ids.c: the driver's dealings with HDF5's ids and error stack: errors pushed under
 * the class "pfio", from any id to the driver's file (what the declare and stats calls are
 * given), closing the ids the driver opens on the way without losing the error stack, and the
 * stats call.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "H5FDprefetch.h"
#include "H5FDprefetch_private.h"

/* The error class the driver's messages are pushed under; 0 until first needed. */
static hid_t H5FD_prefetch_err_class_g = 0;

/*-------------------------------------------------------------------------
 * Function:    H5FD__prefetch_error
 *
 * Purpose:     Pushes one formatted message onto HDF5's default error stack under the class
 *              "pfio" (registered on first use).
 *-------------------------------------------------------------------------
 */
void H5FD__prefetch_error(const char *func, hid_t major, hid_t minor, const char *format, ...)
{
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    if (H5FD_prefetch_err_class_g <= 0 || H5Iis_valid(H5FD_prefetch_err_class_g) <= 0)
        H5FD_prefetch_err_class_g = H5Eregister_class("pfio", "pfio", pfio_version_string());
    H5Epush2(H5E_DEFAULT, __FILE__, func, __LINE__, H5FD_prefetch_err_class_g, major, minor, "%s",
             message);
}

/*-------------------------------------------------------------------------
 * Function:    H5FD__prefetch_close_ids
 *
 * Purpose:     Closes the ids given (negative ones are skipped). Every HDF5 API call clears
 *              the error stack, so when `failed` the stack is saved first and put back after.
 *-------------------------------------------------------------------------
 */
void H5FD__prefetch_close_ids(int failed, hid_t a, hid_t b, hid_t c)
{
    hid_t ids[3] = {a, b, c}, saved = failed ? H5Eget_current_stack() : H5I_INVALID_HID;
    int i;
    for (i = 0; i < 3; ++i) {
        if (ids[i] < 0)
            continue;
        switch (H5Iget_type(ids[i])) {
        case H5I_FILE:
            H5Fclose(ids[i]);
            break;
        case H5I_GENPROP_LST:
            H5Pclose(ids[i]);
            break;
        case H5I_DATASPACE:
            H5Sclose(ids[i]);
            break;
        case H5I_DATATYPE:
            H5Tclose(ids[i]);
            break;
        default:
            break;
        }
    }
    if (saved >= 0)
        H5Eset_current_stack(saved);
}

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
    if (fapl < 0 || H5Pget_driver(fapl) != H5FD_prefetch_init()) {
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
    if (file->ctx == NULL) {
        memset(&file->stats.engine, 0, sizeof file->stats.engine);
    } else if (pfio_stats_get(file->ctx, &file->stats.engine, sizeof file->stats.engine) !=
               PFIO_OK) {
        H5FD__prefetch_error(__func__, H5E_VFL, H5E_CANTGET, "%s", pfio_last_error());
        return -1;
    }
    *stats = file->stats;
    return 0;
}
