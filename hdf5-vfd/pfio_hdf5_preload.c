/* libpfio_hdf5_preload.so: pfio's HDF5 driver under a program that was not written for it.
 *
 * Contract:
 *  - Started with this library in LD_PRELOAD, an HDF5 1.10 program (C, h5dump, nccopy, h5py,
 *    netCDF4/xarray) opens with pfio's driver every file it opens with H5Fopen and the default
 *    driver (sec2): the library defines H5Fopen, finds the HDF5 library the process runs with,
 *    loads the driver built against that same library (libpfio_hdf5_serial.so.0 for Debian's
 *    serial HDF5, libpfio_hdf5.so.0 for its Open MPI build; first from this library's own
 *    directory, then from the loader's path) and hands the open to H5FD_prefetch_auto_open. A
 *    process never loads a second HDF5.
 *  - Files created with H5Fcreate, opens with another driver and SWMR readers are left to HDF5.
 *  - Where there is no driver for the HDF5 in the process (another build, a driver that does not
 *    load), every open is passed to HDF5 unchanged after one message on stderr that says why.
 *  - Linked against no HDF5: the same library serves both builds. Thread-safe (the lookup runs
 *    once).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int64_t hid_t; /* HDF5 1.10's identifier type (H5Ipublic.h) */
typedef hid_t (*open_fn)(const char *name, unsigned flags, hid_t fapl);
typedef hid_t (*auto_open_fn)(const char *name, unsigned flags, hid_t fapl, open_fn hdf5_open);

/* Debian's HDF5 builds, and the driver built against each. */
static const struct {
    const char *hdf5;   /* the start of the library's file name */
    const char *driver; /* NULL: no driver for this build */
} flavours[] = {
    {"libhdf5_serial.so.", "libpfio_hdf5_serial.so.0"},
    {"libhdf5_openmpi.so.", "libpfio_hdf5.so.0"},
    {"libhdf5_mpich.so.", NULL},
    {"libhdf5.so.", NULL},
};
#define FLAVOURS (sizeof flavours / sizeof flavours[0])

static pthread_once_t looked_up = PTHREAD_ONCE_INIT;
static open_fn hdf5_open;      /* HDF5's own H5Fopen; NULL if none was found */
static auto_open_fn auto_open; /* the driver's; NULL: pass every open on */

typedef struct found_t {
    char path[4096];
    int flavour; /* index into flavours, -1 while none */
} found_t;

static int find_hdf5(struct dl_phdr_info *info, size_t size, void *data)
{
    found_t *found = (found_t *)data;
    const char *base = info->dlpi_name != NULL ? strrchr(info->dlpi_name, '/') : NULL;
    size_t i;
    (void)size;
    base = base != NULL ? base + 1 : info->dlpi_name;
    if (base == NULL || found->flavour >= 0)
        return 0;
    for (i = 0; i < FLAVOURS; ++i) {
        if (strncmp(base, flavours[i].hdf5, strlen(flavours[i].hdf5)) == 0) {
            snprintf(found->path, sizeof found->path, "%s", info->dlpi_name);
            found->flavour = (int)i;
            return 1;
        }
    }
    return 0;
}

/* Loads `name` from this library's directory, else from the loader's search path. */
static void *load_driver(const char *name, char *why, size_t why_size)
{
    Dl_info self;
    char path[4096];
    void *handle = NULL;
    if (dladdr((void *)&load_driver, &self) != 0 && self.dli_fname != NULL &&
        strrchr(self.dli_fname, '/') != NULL) {
        int dir = (int)(strrchr(self.dli_fname, '/') - self.dli_fname);
        snprintf(path, sizeof path, "%.*s/%s", dir, self.dli_fname, name);
        handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    if (handle == NULL)
        handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL)
        snprintf(why, why_size, "%s", dlerror());
    return handle;
}

static void look_up(void)
{
    found_t found = {"", -1};
    char why[1024] = "";
    void *hdf5, *driver;
    dl_iterate_phdr(find_hdf5, &found);
    if (found.flavour < 0) {
        fprintf(stderr, "pfio: H5Fopen called but no HDF5 library (libhdf5_serial.so.*, "
                        "libhdf5_openmpi.so.*, ...) is loaded: cannot open files\n");
        return;
    }
    hdf5 = dlopen(found.path, RTLD_NOLOAD | RTLD_LAZY);
    hdf5_open = hdf5 != NULL ? (open_fn)dlsym(hdf5, "H5Fopen") : NULL;
    if (hdf5_open == NULL) {
        fprintf(stderr, "pfio: %s has no H5Fopen: cannot open files\n", found.path);
        return;
    }
    if (flavours[found.flavour].driver == NULL) {
        fprintf(stderr,
                "pfio: this process runs HDF5 from %s, and pfio's HDF5 driver is built for "
                "Debian's serial and Open MPI builds only: files are opened without pfio\n",
                found.path);
        return;
    }
    driver = load_driver(flavours[found.flavour].driver, why, sizeof why);
    auto_open = driver != NULL ? (auto_open_fn)dlsym(driver, "H5FD_prefetch_auto_open") : NULL;
    if (auto_open == NULL)
        fprintf(stderr,
                "pfio: %s (the driver for %s) could not be loaded (%s): files are opened "
                "without pfio\n",
                flavours[found.flavour].driver, found.path, why[0] ? why : "no auto-open entry");
}

hid_t H5Fopen(const char *name, unsigned flags, hid_t fapl);

hid_t H5Fopen(const char *name, unsigned flags, hid_t fapl)
{
    pthread_once(&looked_up, look_up);
    if (hdf5_open == NULL)
        return -1;
    if (auto_open == NULL)
        return hdf5_open(name, flags, fapl);
    return auto_open(name, flags, fapl, hdf5_open);
}
