/* H5FDprefetch_errors.c: the driver's errors, pushed onto HDF5's error stack under the class
 * "pfio", and the closing of the ids the driver opens on the way without losing that stack. At
 * the bottom of the driver: it calls nothing of the driver's own.
 */
#include <stdarg.h>
#include <stdio.h>

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
