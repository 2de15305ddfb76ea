/* H5FDprefetch_registered.c: the driver's id while it is registered with HDF5. H5FDprefetch.c
 * registers the driver and records the id here; the parts below it (which file is the driver's)
 * ask here, so that none of them calls up into the file that registers.
 */
#include "H5FDprefetch_private.h"

/* The id HDF5 gave the driver; 0 until registered, and again after HDF5 shut its VFL down. */
static hid_t H5FD_prefetch_registered_g = 0;

hid_t H5FD__prefetch_registered_id(void)
{
    if (H5FD_prefetch_registered_g <= 0 || H5Iget_type(H5FD_prefetch_registered_g) != H5I_VFL)
        return H5I_INVALID_HID;
    return H5FD_prefetch_registered_g;
}

void H5FD__prefetch_set_registered_id(hid_t id)
{
    H5FD_prefetch_registered_g = id;
}
