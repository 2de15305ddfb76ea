/* H5FD_prefetch_auto_open: how an unmodified HDF5 program's H5Fopen reaches the driver.
 *
 * libpfio_hdf5_preload.so (pfio_hdf5_preload.c) takes the place of H5Fopen in a program started
 * with it in LD_PRELOAD, finds the HDF5 library the program runs with, loads the driver built
 * against that same library and calls this function with HDF5's own H5Fopen. Here a file the
 * program opens with the default driver (sec2) is opened with the prefetch driver instead;
 * every other open goes to HDF5 unchanged. If the driver cannot serve the file, it is opened
 * with the program's own property list, as if pfio were not there, after one message on stderr
 * naming the file and the reason; HDF5 reports an error only when that open fails too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "H5FDprefetch_private.h"

/* The first message of HDF5's error stack (the outermost call's) and the last (the cause). */
typedef struct auto_reason_t {
    char first[256];
    char last[256];
} auto_reason_t;

static herr_t auto_collect(unsigned n, const H5E_error2_t *err, void *data)
{
    auto_reason_t *reason = (auto_reason_t *)data;
    const char *desc = err->desc != NULL ? err->desc : "(no description)";
    if (n == 0)
        snprintf(reason->first, sizeof reason->first, "%s", desc);
    snprintf(reason->last, sizeof reason->last, "%s", desc);
    return 0;
}

/* The key "hdf5" (PFIO_HDF5=off, like every other setting) switches the preload off without
 * unsetting LD_PRELOAD. A config pfio refuses (a bad PFIO_* value) does not switch it off: the
 * driver's open then fails on the same value and the file falls back with its message. */
static int auto_switched_off(void)
{
    pfio_config *config = NULL;
    uint64_t on = 1;
    if (pfio_config_create(&config) == PFIO_OK)
        pfio_config_get_number(config, "hdf5", &on);
    pfio_config_destroy(config);
    return on == 0;
}

/* Whether an open with these flags and this property list is one the driver takes over: the
 * default driver (sec2), not a SWMR reader (another process writes the file while it reads, and
 * bytes read ahead could be older than the file). */
static int auto_applies(unsigned flags, hid_t fapl)
{
    hid_t driver;
    if (auto_switched_off() || (flags & H5F_ACC_SWMR_READ))
        return 0;
    driver = H5Pget_driver(fapl == H5P_DEFAULT ? H5P_FILE_ACCESS_DEFAULT : fapl);
    return driver >= 0 && driver == H5FD_SEC2;
}

/* How this process already has the file open in HDF5, found by device and inode through each
 * open file's descriptor (sec2's and pfio's handles are descriptors). */
typedef enum { AUTO_NOT_OPEN, AUTO_OPEN_SEC2, AUTO_OPEN_PFIO } auto_open_as;

static auto_open_as auto_already_open(const char *name)
{
    struct stat want, have;
    ssize_t count, i;
    hid_t *ids;
    auto_open_as found = AUTO_NOT_OPEN;
    if (name == NULL || stat(name, &want) != 0)
        return AUTO_NOT_OPEN;
    count = H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_FILE);
    if (count <= 0)
        return AUTO_NOT_OPEN;
    ids = malloc((size_t)count * sizeof *ids);
    if (ids == NULL)
        return AUTO_NOT_OPEN;
    count = H5Fget_obj_ids((hid_t)H5F_OBJ_ALL, H5F_OBJ_FILE, (size_t)count, ids);
    for (i = 0; i < count && found == AUTO_NOT_OPEN; ++i) {
        hid_t access = H5Fget_access_plist(ids[i]);
        hid_t driver = access >= 0 ? H5Pget_driver(access) : -1;
        void *handle = NULL;
        if ((driver == H5FD_SEC2 || driver == H5FD_PREFETCH) &&
            H5Fget_vfd_handle(ids[i], access, &handle) >= 0 && handle != NULL &&
            fstat(*(int *)handle, &have) == 0 && have.st_dev == want.st_dev &&
            have.st_ino == want.st_ino)
            found = driver == H5FD_SEC2 ? AUTO_OPEN_SEC2 : AUTO_OPEN_PFIO;
        if (access >= 0)
            H5Pclose(access);
    }
    free(ids);
    return found;
}

/* Closes a property list without clearing HDF5's error stack: every API call clears it on entry,
 * and the program (h5py maps it to OSError) reads the refused open's cause from it. */
static void auto_close_keeping_errors(hid_t plist, int failed)
{
    hid_t errors = failed ? H5Eget_current_stack() : H5I_INVALID_HID;
    H5Pclose(plist);
    if (errors >= 0)
        H5Eset_current_stack(errors);
}

hid_t H5FD_prefetch_auto_open(const char *name, unsigned flags, hid_t fapl,
                              hid_t (*hdf5_open)(const char *, unsigned, hid_t))
{
    H5E_auto2_t report = NULL;
    void *report_data = NULL;
    auto_reason_t reason = {"", ""};
    hid_t ours, file;
    herr_t set;
    auto_open_as already;

    if (!auto_applies(flags, fapl))
        return hdf5_open(name, flags, fapl);
    /* HDF5 holds one file object per file in a process, through one driver: a file the program
     * already has open (H5Fcreate with sec2, an earlier open through pfio) is opened through the
     * same driver, with no fallback, so that HDF5 shares it or refuses the open exactly as it
     * would without pfio (a sec2 retry made a second, disagreeing file object). */
    already = auto_already_open(name);
    if (already == AUTO_OPEN_SEC2)
        return hdf5_open(name, flags, fapl);
    if (already == AUTO_OPEN_PFIO) {
        ours = H5Pcopy(fapl == H5P_DEFAULT ? H5P_FILE_ACCESS_DEFAULT : fapl);
        file = ours >= 0 && H5Pset_fapl_prefetch(ours, NULL) >= 0 ? hdf5_open(name, flags, ours)
                                                                  : H5I_INVALID_HID;
        if (ours >= 0)
            auto_close_keeping_errors(ours, file < 0);
        return file;
    }
    /* Quiet while trying: a failure here is not the program's error. */
    H5Eget_auto2(H5E_DEFAULT, &report, &report_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    ours = H5Pcopy(fapl == H5P_DEFAULT ? H5P_FILE_ACCESS_DEFAULT : fapl);
    set = ours < 0 ? -1 : H5Pset_fapl_prefetch(ours, NULL);
    file = set < 0 ? H5I_INVALID_HID : hdf5_open(name, flags, ours);
    if (file < 0)
        H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, auto_collect, &reason);
    if (ours >= 0)
        H5Pclose(ours);
    H5Eclear2(H5E_DEFAULT);
    H5Eset_auto2(H5E_DEFAULT, report, report_data);
    if (file >= 0)
        return file;
    file = hdf5_open(name, flags, fapl);
    if (file >= 0)
        fprintf(stderr,
                "pfio: %s: opened with HDF5's sec2 driver, not pfio's (%s%s%s); set PFIO_HDF5=off "
                "to silence this\n",
                name != NULL ? name : "(null)", reason.first[0] ? reason.first : "no reason given",
                reason.last[0] && strcmp(reason.last, reason.first) ? ": " : "",
                reason.last[0] && strcmp(reason.last, reason.first) ? reason.last : "");
    return file;
}
