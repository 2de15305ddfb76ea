/* H5FDprefetch_fapl.c: the driver on a file access property list. H5Pset_fapl_prefetch registers
 * the driver (H5FDprefetch.c) and sets a checked config on the list; H5Pget_fapl_prefetch reads it
 * back. Above the rest of the driver: nothing in it calls these.
 */
#include <string.h>

#include "H5FDprefetch_private.h"

/*-------------------------------------------------------------------------
 * Function:    H5Pset_fapl_prefetch
 *
 * Purpose:     Makes the file access property list use the prefetch driver with a copy of
 *              *config (NULL: defaults and the PFIO_* environment).
 *
 * Return:      Success:    Non-negative
 *              Failure:    Negative, the fapl unchanged
 *-------------------------------------------------------------------------
 */
herr_t H5Pset_fapl_prefetch(hid_t fapl_id, const H5FD_prefetch_config_t *config)
{
    H5FD_prefetch_config_t defaults;
    hid_t driver;
    if (config == NULL) {
        H5FD_prefetch_config_init(&defaults);
        config = &defaults;
    }
    if (!H5FD__prefetch_config_ok(config, __func__))
        return -1;
    if (H5Pisa_class(fapl_id, H5P_FILE_ACCESS) <= 0) {
        H5FD__prefetch_error(__func__, H5E_ARGS, H5E_BADTYPE,
                             "fapl_id %lld is not a file access property list", (long long)fapl_id);
        return -1;
    }
    driver = H5FD_prefetch_init();
    if (driver < 0) {
        H5FD__prefetch_error(__func__, H5E_VFL, H5E_CANTINIT, "could not register the driver");
        return -1;
    }
    return H5Pset_driver(fapl_id, driver, config);
}

/*-------------------------------------------------------------------------
 * Function:    H5Pget_fapl_prefetch
 *
 * Purpose:     Copies the config of a fapl that uses the prefetch driver into *config.
 *
 * Return:      Success:    Non-negative
 *              Failure:    Negative (another driver, or config NULL), *config unchanged
 *-------------------------------------------------------------------------
 */
herr_t H5Pget_fapl_prefetch(hid_t fapl_id, H5FD_prefetch_config_t *config /*out*/)
{
    const H5FD_prefetch_config_t *info;
    if (config == NULL) {
        H5FD__prefetch_error(__func__, H5E_ARGS, H5E_BADVALUE, "config is NULL: expected a struct");
        return -1;
    }
    if (H5Pget_driver(fapl_id) != H5FD_prefetch_init()) {
        H5FD__prefetch_error(__func__, H5E_PLIST, H5E_BADVALUE,
                             "fapl_id %lld does not use the prefetch driver", (long long)fapl_id);
        return -1;
    }
    info = (const H5FD_prefetch_config_t *)H5Pget_driver_info(fapl_id);
    if (info == NULL) {
        H5FD_prefetch_config_init(config);
        return 0;
    }
    memcpy(config, info, sizeof *config);
    return 0;
}
