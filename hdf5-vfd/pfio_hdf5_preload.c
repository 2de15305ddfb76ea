/* libpfio_hdf5_preload.so: pfio's HDF5 driver under a program that was not written for it.
 *
 * Contract:
 *  - Started with this library in LD_PRELOAD, an HDF5 1.10 program (C, h5dump, nccopy, h5py,
 *    netCDF4/xarray) opens with pfio's driver every file it opens with H5Fopen and the default
 *    driver (sec2): the library defines H5Fopen, finds the HDF5 library the process runs with,
 *    loads the driver built against that same library (libpfio_hdf5_serial.so.0 for Debian's
 *    serial HDF5, libpfio_hdf5.so.0 for its Open MPI build; first from this library's own
 *    directory, then from the loader's path) and hands the open to H5FD_prefetch_auto_open. A
 *    process never loads a second HDF5. "The HDF5 the process runs with" is the one the caller
 *    of H5Fopen linked: a process that holds two (netCDF4's serial HDF5 beside h5py's MPI
 *    build) has each open served by its own HDF5 and that HDF5's driver.
 *  - It defines H5Dread too: each read goes to H5FD_prefetch_auto_read of the same driver, which
 *    makes the call's selection its plan when the file is open with the driver (and passes every
 *    other call to HDF5's H5Dread unchanged).
 *  - Files created with H5Fcreate, opens with another driver and SWMR readers are left to HDF5.
 *  - Where there is no driver for the HDF5 in the process (another build, a driver that does not
 *    load), every open is passed to HDF5 unchanged after one message on stderr that says why.
 *  - Linked against no HDF5: the same library serves both builds. Thread-safe (the lookups,
 *    once per calling object and kept per call site, under a lock).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int64_t hid_t; /* HDF5 1.10's identifier type (H5Ipublic.h) */
typedef int herr_t;    /* and its status type (H5public.h) */
typedef hid_t (*open_fn)(const char *name, unsigned flags, hid_t fapl);
typedef hid_t (*auto_open_fn)(const char *name, unsigned flags, hid_t fapl, open_fn hdf5_open);
typedef herr_t (*read_fn)(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl,
                          void *buf);
typedef herr_t (*auto_read_fn)(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space,
                               hid_t dxpl, void *buf, read_fn hdf5_read);

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

/* The driver of each build, loaded at the first open through that build (NULL: none, said once). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int looked;
    auto_open_fn auto_open;
    auto_read_fn auto_read; /* NULL in a driver without per-call plans: reads pass on */
} drivers[FLAVOURS];

/* Where an H5Fopen goes, for each object that called it: the HDF5 that object linked (a process
 * may hold two: netCDF4's serial HDF5 beside h5py's MPI build) and the driver built for it. */
typedef struct route_t {
    const void *caller; /* the calling object's load address */
    open_fn hdf5_open;
    auto_open_fn auto_open;
    read_fn hdf5_read;
    auto_read_fn auto_read;
} route_t;
static route_t routes[32];
static int nroutes;
/* The route of each call site seen (its return address), so that an H5Dread, which a program makes
 * far more often than an H5Fopen, costs no dladdr. */
static struct {
    const void *site;
    int route;
} sites[256];
static int nsites;

typedef struct found_t {
    char path[4096];
    int flavour; /* index into flavours, -1 while none */
} found_t;

static int flavour_of(const char *path)
{
    const char *base = path != NULL ? strrchr(path, '/') : NULL;
    size_t i;
    base = base != NULL ? base + 1 : path;
    for (i = 0; base != NULL && i < FLAVOURS; ++i)
        if (strncmp(base, flavours[i].hdf5, strlen(flavours[i].hdf5)) == 0)
            return (int)i;
    return -1;
}

static int find_hdf5(struct dl_phdr_info *info, size_t size, void *data)
{
    found_t *found = (found_t *)data;
    int flavour = flavour_of(info->dlpi_name);
    (void)size;
    if (found->flavour >= 0 || flavour < 0)
        return 0;
    snprintf(found->path, sizeof found->path, "%s", info->dlpi_name);
    found->flavour = flavour;
    return 1;
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

/* The driver for the HDF5 at `path` (of build `flavour`), loaded once; NULL after one message. */
static auto_open_fn driver_for(const char *path, int flavour)
{
    char why[1024] = "";
    void *driver;
    if (drivers[flavour].looked)
        return drivers[flavour].auto_open;
    drivers[flavour].looked = 1;
    if (flavours[flavour].driver == NULL) {
        fprintf(stderr,
                "pfio: this process runs HDF5 from %s, and pfio's HDF5 driver is built for "
                "Debian's serial and Open MPI builds only: its files are opened without pfio\n",
                path);
        return NULL;
    }
    driver = load_driver(flavours[flavour].driver, why, sizeof why);
    drivers[flavour].auto_open =
        driver != NULL ? (auto_open_fn)dlsym(driver, "H5FD_prefetch_auto_open") : NULL;
    drivers[flavour].auto_read =
        driver != NULL ? (auto_read_fn)dlsym(driver, "H5FD_prefetch_auto_read") : NULL;
    if (drivers[flavour].auto_open == NULL)
        fprintf(stderr,
                "pfio: %s (the driver for %s) could not be loaded (%s): its files are opened "
                "without pfio\n",
                flavours[flavour].driver, path, why[0] ? why : "no auto-open entry");
    return drivers[flavour].auto_open;
}

hid_t H5Fopen(const char *name, unsigned flags, hid_t fapl);
herr_t H5Dread(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl,
               void *buf);

/* H5Dread of the HDF5 library at `path` (NULL when it has none). */
static read_fn read_of(const char *path)
{
    void *hdf5 = dlopen(path, RTLD_NOLOAD | RTLD_LAZY);
    read_fn fn = hdf5 != NULL ? (read_fn)dlsym(hdf5, "H5Dread") : NULL;
    if (hdf5 != NULL)
        dlclose(hdf5);
    return fn == H5Dread ? NULL : fn;
}

/* The HDF5 whose H5Fopen the object at `caller` would call without this library: the first
 * H5Fopen in that object's own dependencies (dlsym on its handle never sees LD_PRELOAD), else
 * the first HDF5 the process loaded. */
static void route(const void *caller, route_t *out)
{
    Dl_info at, lib;
    found_t found = {"", -1};
    void *object = NULL, *hdf5 = NULL;
    open_fn fn = NULL;
    out->caller = NULL;
    out->hdf5_open = NULL;
    out->auto_open = NULL;
    if (dladdr(caller, &at) != 0) {
        out->caller = at.dli_fbase;
        if (at.dli_fname != NULL && at.dli_fname[0] != '\0')
            object = dlopen(at.dli_fname, RTLD_NOLOAD | RTLD_LAZY);
    }
    if (object != NULL) {
        fn = (open_fn)dlsym(object, "H5Fopen");
        dlclose(object);
    }
    if (fn != NULL && fn != H5Fopen && dladdr((void *)fn, &lib) != 0 &&
        flavour_of(lib.dli_fname) >= 0) {
        snprintf(found.path, sizeof found.path, "%s", lib.dli_fname);
        found.flavour = flavour_of(lib.dli_fname);
    } else {
        dl_iterate_phdr(find_hdf5, &found);
        if (found.flavour < 0) {
            fprintf(stderr, "pfio: H5Fopen called but no HDF5 library (libhdf5_serial.so.*, "
                            "libhdf5_openmpi.so.*, ...) is loaded: cannot open files\n");
            return;
        }
        hdf5 = dlopen(found.path, RTLD_NOLOAD | RTLD_LAZY);
        fn = hdf5 != NULL ? (open_fn)dlsym(hdf5, "H5Fopen") : NULL;
        if (hdf5 != NULL)
            dlclose(hdf5);
        if (fn == NULL || fn == H5Fopen) {
            fprintf(stderr, "pfio: %s has no H5Fopen: cannot open files\n", found.path);
            return;
        }
    }
    out->hdf5_open = fn;
    out->auto_open = driver_for(found.path, found.flavour);
    out->hdf5_read = read_of(found.path);
    out->auto_read = out->auto_open != NULL ? drivers[found.flavour].auto_read : NULL;
}

/* The route of the call made from return address `site` (hdf5_open NULL: none, said on stderr). */
static route_t route_of(const void *site)
{
    Dl_info at;
    const void *base;
    route_t r = {NULL, NULL, NULL, NULL, NULL};
    int i;
    pthread_mutex_lock(&lock);
    for (i = 0; i < nsites && sites[i].site != site; ++i)
        ;
    if (i < nsites) {
        r = routes[sites[i].route];
        pthread_mutex_unlock(&lock);
        return r;
    }
    base = dladdr(site, &at) != 0 ? at.dli_fbase : NULL;
    for (i = 0; i < nroutes && routes[i].caller != base; ++i)
        ;
    if (i < nroutes) {
        r = routes[i];
    } else {
        route(site, &r);
        if (r.hdf5_open != NULL && nroutes < (int)(sizeof routes / sizeof routes[0]))
            routes[i = nroutes++] = r;
    }
    if (i < nroutes && nsites < (int)(sizeof sites / sizeof sites[0])) {
        sites[nsites].site = site;
        sites[nsites++].route = i;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

hid_t H5Fopen(const char *name, unsigned flags, hid_t fapl)
{
    route_t r = route_of(__builtin_return_address(0));
    if (r.hdf5_open == NULL)
        return -1;
    if (r.auto_open == NULL)
        return r.hdf5_open(name, flags, fapl);
    return r.auto_open(name, flags, fapl, r.hdf5_open);
}

herr_t H5Dread(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, void *buf)
{
    route_t r = route_of(__builtin_return_address(0));
    if (r.hdf5_read == NULL) {
        fprintf(stderr, "pfio: H5Dread called but the HDF5 library in this process has none\n");
        return -1;
    }
    if (r.auto_read == NULL)
        return r.hdf5_read(dset, mem_type, mem_space, file_space, dxpl, buf);
    return r.auto_read(dset, mem_type, mem_space, file_space, dxpl, buf, r.hdf5_read);
}
