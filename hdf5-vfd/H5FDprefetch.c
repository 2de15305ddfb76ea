/* H5FDprefetch: a terminal HDF5 virtual file driver that reads raw data through pfio.
 *
 * Laid out like HDF5's own sec2 driver: the class table with every slot named, then one function
 * per slot, each with a Purpose / Return block. The file struct is in H5FDprefetch_private.h.
 * Raw data (H5FD_MEM_DRAW) is read through pfio, which serves it from its reorder buffer when the
 * read was planned (declared, or predicted) and from the file otherwise. Everything else goes to
 * the file's own descriptor exactly as sec2 would do it: metadata reads, writes, truncation,
 * locks. A write makes pfio drop what it fetched before the next raw read (the `stale` flag); the
 * raw read path is H5FDprefetch_raw.c. The driver does not ask HDF5 for data sieving at open:
 * pfio and the advised page cache are the read cache, and a sieve would turn each declared or
 * predicted read into a larger one than the plan's. On a read-only file it switches the sieve on
 * while its prediction is off for missing (a random reader), as sec2 always has it
 * (H5FD__prefetch_sieve_follow in H5FDprefetch_predict.c).
 */
#include "H5FDprefetch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "H5FDprefetch_private.h"

/* The largest address and size the driver accepts: what a signed off_t holds. */
#define MAXADDR (((haddr_t)1 << (8 * sizeof(off_t) - 1)) - 1)
#define ADDR_OVERFLOW(A) (HADDR_UNDEF == (A) || ((A) & ~(haddr_t)MAXADDR))
#define REGION_OVERFLOW(A, Z)                                                                      \
    (ADDR_OVERFLOW(A) || (Z) > (size_t)MAXADDR || HADDR_UNDEF == (A) + (Z) ||                      \
     (haddr_t)((A) + (Z)) < (A))

static herr_t H5FD__prefetch_term(void);
static void *H5FD__prefetch_fapl_get(H5FD_t *file);
static void *H5FD__prefetch_fapl_copy(const void *fapl);
static herr_t H5FD__prefetch_fapl_free(void *fapl);
static H5FD_t *H5FD__prefetch_open(const char *name, unsigned flags, hid_t fapl_id,
                                   haddr_t maxaddr);
static herr_t H5FD__prefetch_close(H5FD_t *file);
static int H5FD__prefetch_cmp(const H5FD_t *f1, const H5FD_t *f2);
static herr_t H5FD__prefetch_query(const H5FD_t *file, unsigned long *flags);
static haddr_t H5FD__prefetch_get_eoa(const H5FD_t *file, H5FD_mem_t type);
static herr_t H5FD__prefetch_set_eoa(H5FD_t *file, H5FD_mem_t type, haddr_t addr);
static haddr_t H5FD__prefetch_get_eof(const H5FD_t *file, H5FD_mem_t type);
static herr_t H5FD__prefetch_get_handle(H5FD_t *file, hid_t fapl, void **file_handle);
static herr_t H5FD__prefetch_read(H5FD_t *file, H5FD_mem_t type, hid_t dxpl_id, haddr_t addr,
                                  size_t size, void *buf);
static herr_t H5FD__prefetch_write(H5FD_t *file, H5FD_mem_t type, hid_t dxpl_id, haddr_t addr,
                                   size_t size, const void *buf);
static herr_t H5FD__prefetch_truncate(H5FD_t *file, hid_t dxpl_id, hbool_t closing);
static herr_t H5FD__prefetch_lock(H5FD_t *file, hbool_t rw);
static herr_t H5FD__prefetch_unlock(H5FD_t *file);

static const H5FD_class_t H5FD_prefetch_g = {
    H5FD_PREFETCH_NAME,             /* name          */
    MAXADDR,                        /* maxaddr       */
    H5F_CLOSE_WEAK,                 /* fc_degree     */
    H5FD__prefetch_term,            /* terminate     */
    NULL,                           /* sb_size       */
    NULL,                           /* sb_encode     */
    NULL,                           /* sb_decode     */
    sizeof(H5FD_prefetch_config_t), /* fapl_size     */
    H5FD__prefetch_fapl_get,        /* fapl_get      */
    H5FD__prefetch_fapl_copy,       /* fapl_copy     */
    H5FD__prefetch_fapl_free,       /* fapl_free     */
    0,                              /* dxpl_size     */
    NULL,                           /* dxpl_copy     */
    NULL,                           /* dxpl_free     */
    H5FD__prefetch_open,            /* open          */
    H5FD__prefetch_close,           /* close         */
    H5FD__prefetch_cmp,             /* cmp           */
    H5FD__prefetch_query,           /* query         */
    NULL,                           /* get_type_map  */
    NULL,                           /* alloc         */
    NULL,                           /* free          */
    H5FD__prefetch_get_eoa,         /* get_eoa       */
    H5FD__prefetch_set_eoa,         /* set_eoa       */
    H5FD__prefetch_get_eof,         /* get_eof       */
    H5FD__prefetch_get_handle,      /* get_handle    */
    H5FD__prefetch_read,            /* read          */
    H5FD__prefetch_write,           /* write         */
    NULL,                           /* flush: writes went to the descriptor, none buffered */
    H5FD__prefetch_truncate,        /* truncate      */
    H5FD__prefetch_lock,            /* lock          */
    H5FD__prefetch_unlock,          /* unlock        */
    H5FD_FLMAP_DICHOTOMY            /* fl_map        */
};

/*-------------------------------------------------------------------------
 * Function:    H5FD_prefetch_init
 *
 * Purpose:     Registers the driver with HDF5 unless it is registered already (it is again
 *              after H5close).
 *
 * Return:      Success:    The driver's id
 *              Failure:    H5I_INVALID_HID
 *-------------------------------------------------------------------------
 */
hid_t H5FD_prefetch_init(void)
{
    hid_t id = H5FD__prefetch_registered_id();
    if (id < 0) {
        id = H5FDregister(&H5FD_prefetch_g);
        H5FD__prefetch_set_registered_id(id > 0 ? id : 0);
    }
    return id > 0 ? id : H5I_INVALID_HID;
}

/*-------------------------------------------------------------------------
 * Function:    H5FD__prefetch_term
 *
 * Purpose:     Forgets the driver's id when HDF5 shuts its VFL interface down.
 *
 * Return:      SUCCEED
 *-------------------------------------------------------------------------
 */
static herr_t H5FD__prefetch_term(void)
{
    H5FD__prefetch_set_registered_id(0);
    return 0;
}

/*-------------------------------------------------------------------------
 * Function:    H5FD__prefetch_fapl_get / _fapl_copy / _fapl_free
 *
 * Purpose:     The config of an open file (a new copy), a copy of a config, and its release.
 *
 * Return:      Success:    The copy (get, copy) or 0 (free)
 *              Failure:    NULL
 *-------------------------------------------------------------------------
 */
static void *H5FD__prefetch_fapl_get(H5FD_t *_file)
{
    return H5FD__prefetch_fapl_copy(&((H5FD_prefetch_t *)_file)->config);
}

static void *H5FD__prefetch_fapl_copy(const void *fapl)
{
    H5FD_prefetch_config_t *copy = malloc(sizeof *copy);
    if (copy != NULL)
        memcpy(copy, fapl, sizeof *copy);
    return copy;
}

static herr_t H5FD__prefetch_fapl_free(void *fapl)
{
    free(fapl);
    return 0;
}

/*-------------------------------------------------------------------------
 * Function:    H5FD__prefetch_open
 *
 * Purpose:     Opens `name` with the access `flags` ask for (H5F_ACC_RDWR, _TRUNC, _CREAT,
 *              _EXCL), and a pfio context that reads its raw data. SWMR readers are refused by
 *              HDF5 itself: the driver does not claim H5FD_FEAT_SUPPORTS_SWMR_IO, because data
 *              fetched ahead could be older than what a writer appends meanwhile.
 *
 * Return:      Success:    A new file struct
 *              Failure:    NULL, nothing left open
 *-------------------------------------------------------------------------
 */
static H5FD_t *H5FD__prefetch_open(const char *name, unsigned flags, hid_t fapl_id, haddr_t maxaddr)
{
    H5FD_prefetch_t *file = NULL;
    const H5FD_prefetch_config_t *config;
    struct stat sb;
    int o_flags = (H5F_ACC_RDWR & flags) ? O_RDWR : O_RDONLY;
    if (H5F_ACC_TRUNC & flags)
        o_flags |= O_TRUNC;
    if (H5F_ACC_CREAT & flags)
        o_flags |= O_CREAT;
    if (H5F_ACC_EXCL & flags)
        o_flags |= O_EXCL;

    if (name == NULL || *name == '\0') {
        H5FD__prefetch_error(__func__, H5E_ARGS, H5E_BADVALUE, "file name is empty or NULL");
        return NULL;
    }
    if (0 == maxaddr || ADDR_OVERFLOW(maxaddr)) {
        H5FD__prefetch_error(__func__, H5E_ARGS, H5E_OVERFLOW,
                             "maxaddr = %llu for %s: expected 1 .. %llu",
                             (unsigned long long)maxaddr, name, (unsigned long long)MAXADDR);
        return NULL;
    }
    file = calloc(1, sizeof *file);
    if (file == NULL) {
        H5FD__prefetch_error(__func__, H5E_VFL, H5E_CANTALLOC,
                             "no memory for the file struct of %s", name);
        return NULL;
    }
    {
        /* recursive: the raw read path holds it and may start the context, which takes it */
        pthread_mutexattr_t recursive;
        pthread_mutexattr_init(&recursive);
        pthread_mutexattr_settype(&recursive, PTHREAD_MUTEX_RECURSIVE);
        pthread_mutex_init(&file->plan_lock, &recursive);
        pthread_mutexattr_destroy(&recursive);
    }
    config = (const H5FD_prefetch_config_t *)H5Pget_driver_info(fapl_id);
    if (config != NULL)
        memcpy(&file->config, config, sizeof file->config);
    else
        H5FD_prefetch_config_init(&file->config);

    file->fd = open(name, o_flags | O_CLOEXEC, 0666);
    if (file->fd < 0 || fstat(file->fd, &sb) < 0) {
        H5FD__prefetch_error(__func__, H5E_FILE, H5E_CANTOPENFILE,
                             "unable to %s %s (flags 0x%x): %s", file->fd < 0 ? "open" : "fstat",
                             name, flags, strerror(errno));
        goto failed;
    }
    file->eof = (haddr_t)sb.st_size;
    file->device = sb.st_dev;
    file->inode = sb.st_ino;
    file->pfio_size = file->eof;
    file->read_only = !(H5F_ACC_RDWR & flags);
    file->name = strdup(name);
    if (file->name == NULL) {
        H5FD__prefetch_error(__func__, H5E_VFL, H5E_CANTALLOC, "no memory for the name %s", name);
        goto failed;
    }
    if (H5FD__prefetch_settle_config(&file->config, &file->stats_path, &file->page_cache_kind,
                                     __func__) < 0)
        goto failed; /* a bad PFIO_* value */
    H5FD__prefetch_predictor_reset(file);
    return (H5FD_t *)file;
failed:
    free(file->name);
    free(file->stats_path);
    if (file->fd >= 0)
        close(file->fd);
    pthread_mutex_destroy(&file->plan_lock);
    free(file);
    return NULL;
}

/*-------------------------------------------------------------------------
 * Function:    H5FD__prefetch_close
 *
 * Purpose:     Stops the file's pfio context (which writes its stats when a stats path is
 *              set; the driver's counters go beside them; queued advice is dropped), and closes
 *              the descriptor.
 *
 * Return:      Success:    0
 *              Failure:    -1; the struct is freed either way
 *-------------------------------------------------------------------------
 */
static herr_t H5FD__prefetch_close(H5FD_t *_file)
{
    H5FD_prefetch_t *file = (H5FD_prefetch_t *)_file;
    herr_t ret = 0;
    /* A child of fork() leaves its parent's context alone: pfio frees nothing of it there.
     * Close is total: what pfio cannot do at close (write its stats, a bounded wait for reads in
     * flight that timed out) is said on stderr, and the file still closes with success, since
     * the data is not at stake and HDF5 does not survive a driver close that fails after freeing
     * (docs/reliability.md, round 4). */
    if (file->ctx != NULL && !H5FD__prefetch_engine_inherited(file) &&
        pfio_context_destroy(file->ctx) != PFIO_OK)
        fprintf(stderr, "pfio: closing %s: %s (the file is closed)\n", file->name,
                pfio_last_error());
    H5FD__prefetch_predictor_count(file);
    H5FD__prefetch_write_report(file);
    free(file->stats_path);
    free(file->pending.items);
    free(file->index_pages.items);
    free(file->index_children.items);
    free(file->name);
    H5FD__prefetch_predictor_free(file);
    free(file->probe_buffer);
    if (close(file->fd) < 0) {
        H5FD__prefetch_error(__func__, H5E_IO, H5E_CANTCLOSEFILE, "close: %s", strerror(errno));
        ret = -1;
    }
    pthread_mutex_destroy(&file->plan_lock);
    free(file);
    return ret;
}

/*-------------------------------------------------------------------------
 * Function:    H5FD__prefetch_cmp
 *
 * Purpose:     Orders files by device and inode, so one file opened twice compares equal.
 *
 * Return:      -1, 0 or 1
 *-------------------------------------------------------------------------
 */
static int H5FD__prefetch_cmp(const H5FD_t *_f1, const H5FD_t *_f2)
{
    const H5FD_prefetch_t *f1 = (const H5FD_prefetch_t *)_f1;
    const H5FD_prefetch_t *f2 = (const H5FD_prefetch_t *)_f2;
    if (f1->device != f2->device)
        return f1->device < f2->device ? -1 : 1;
    if (f1->inode != f2->inode)
        return f1->inode < f2->inode ? -1 : 1;
    return 0;
}

/*-------------------------------------------------------------------------
 * Function:    H5FD__prefetch_query
 *
 * Purpose:     The features HDF5 may use: metadata aggregation and accumulation, small raw
 *              data aggregation, a POSIX descriptor as handle, sec2's file format. No SWMR.
 *              The data sieve as the open file has it: on from the open only for read-only
 *              files with no prediction (predict = off), else switched on later for random
 *              readers of read-only files (H5FD__prefetch_sieve_follow). HDF5 sets the flags it
 *              is given here after the open callback, so a flag set there is kept only if
 *              returned here.
 *
 * Return:      0
 *-------------------------------------------------------------------------
 */
static herr_t H5FD__prefetch_query(const H5FD_t *file, unsigned long *flags)
{
    if (flags != NULL)
        *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA |
                 H5FD_FEAT_AGGREGATE_SMALLDATA | H5FD_FEAT_POSIX_COMPAT_HANDLE |
                 H5FD_FEAT_DEFAULT_VFD_COMPATIBLE |
                 (file != NULL ? file->feature_flags & H5FD_FEAT_DATA_SIEVE : 0);
    return 0;
}

/*-------------------------------------------------------------------------
 * Function:    H5FD__prefetch_get_eoa / _set_eoa / _get_eof
 *
 * Purpose:     The end of the address space HDF5 allocated, and the end of the file.
 *
 * Return:      The address (get), 0 (set)
 *-------------------------------------------------------------------------
 */
static haddr_t H5FD__prefetch_get_eoa(const H5FD_t *file, H5FD_mem_t type)
{
    (void)type;
    return ((const H5FD_prefetch_t *)file)->eoa;
}

static herr_t H5FD__prefetch_set_eoa(H5FD_t *file, H5FD_mem_t type, haddr_t addr)
{
    (void)type;
    ((H5FD_prefetch_t *)file)->eoa = addr;
    return 0;
}

static haddr_t H5FD__prefetch_get_eof(const H5FD_t *file, H5FD_mem_t type)
{
    (void)type;
    return ((const H5FD_prefetch_t *)file)->eof;
}

/*-------------------------------------------------------------------------
 * Function:    H5FD__prefetch_get_handle
 *
 * Purpose:     The address of the file's descriptor (an int), for H5Fget_vfd_handle.
 *
 * Return:      Success:    0
 *              Failure:    -1 (file_handle NULL)
 *-------------------------------------------------------------------------
 */
static herr_t H5FD__prefetch_get_handle(H5FD_t *_file, hid_t fapl, void **file_handle)
{
    (void)fapl;
    if (file_handle == NULL) {
        H5FD__prefetch_error(__func__, H5E_ARGS, H5E_BADVALUE, "file_handle is NULL");
        return -1;
    }
    *file_handle = &((H5FD_prefetch_t *)_file)->fd;
    return 0;
}

/*-------------------------------------------------------------------------
 * Function:    H5FD__prefetch_read
 *
 * Purpose:     Reads `size` bytes at `addr` into buf: raw data through pfio, metadata from the
 *              descriptor. Bytes past the end of the file read as zeros.
 *
 * Return:      Success:    0, buf filled
 *              Failure:    -1, the contents of buf undefined
 *-------------------------------------------------------------------------
 */
static herr_t H5FD__prefetch_read(H5FD_t *_file, H5FD_mem_t type, hid_t dxpl_id, haddr_t addr,
                                  size_t size, void *buf)
{
    H5FD_prefetch_t *file = (H5FD_prefetch_t *)_file;
    (void)dxpl_id;
    if (REGION_OVERFLOW(addr, size)) {
        H5FD__prefetch_error(__func__, H5E_ARGS, H5E_OVERFLOW,
                             "read of %zu bytes at address %llu: past the largest address %llu",
                             size, (unsigned long long)addr, (unsigned long long)MAXADDR);
        return -1;
    }
    if (type == H5FD_MEM_DRAW && H5FD__prefetch_probe.file == file) {
        H5FD__prefetch_probe.addr = addr;
        H5FD__prefetch_probe.size = size;
        return 0;
    }
    if (type == H5FD_MEM_DRAW) {
        int done;
        pthread_mutex_lock(&file->plan_lock);
        done = H5FD__prefetch_read_raw(file, addr, size, buf, __func__);
        pthread_mutex_unlock(&file->plan_lock);
        return done < 0 ? -1 : 0;
    }
    return H5FD__prefetch_read_metadata(file, type, addr, size, buf, __func__) < 0 ? -1 : 0;
}

/*-------------------------------------------------------------------------
 * Function:    H5FD__prefetch_write
 *
 * Purpose:     Writes `size` bytes at `addr` through the descriptor; pfio drops what it fetched
 *              before the next raw read.
 *
 * Return:      Success:    0
 *              Failure:    -1 (the file may hold part of the write)
 *-------------------------------------------------------------------------
 */
static herr_t H5FD__prefetch_write(H5FD_t *_file, H5FD_mem_t type, hid_t dxpl_id, haddr_t addr,
                                   size_t size, const void *_buf)
{
    H5FD_prefetch_t *file = (H5FD_prefetch_t *)_file;
    const unsigned char *buf = _buf;
    (void)type;
    (void)dxpl_id;
    if (REGION_OVERFLOW(addr, size)) {
        H5FD__prefetch_error(__func__, H5E_ARGS, H5E_OVERFLOW,
                             "write of %zu bytes at address %llu: past the largest address %llu",
                             size, (unsigned long long)addr, (unsigned long long)MAXADDR);
        return -1;
    }
    pthread_mutex_lock(&file->plan_lock);
    ++file->stats.writes;
    file->stale = 1; /* before the first byte lands: a failed write may have changed the file */
    pthread_mutex_unlock(&file->plan_lock);
    while (size > 0) {
        ssize_t n = pwrite(file->fd, buf, size, (off_t)addr);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            H5FD__prefetch_error(__func__, H5E_IO, H5E_WRITEERROR,
                                 "pwrite of %zu bytes at %llu: %s", size, (unsigned long long)addr,
                                 n < 0 ? strerror(errno) : "nothing written");
            return -1;
        }
        addr += (haddr_t)n;
        buf += n;
        size -= (size_t)n;
    }
    if (addr > file->eof)
        file->eof = addr;
    return 0;
}

/*-------------------------------------------------------------------------
 * Function:    H5FD__prefetch_truncate
 *
 * Purpose:     Makes the file as long as HDF5's allocated space (eoa), as sec2 does.
 *
 * Return:      Success:    0
 *              Failure:    -1
 *-------------------------------------------------------------------------
 */
static herr_t H5FD__prefetch_truncate(H5FD_t *_file, hid_t dxpl_id, hbool_t closing)
{
    H5FD_prefetch_t *file = (H5FD_prefetch_t *)_file;
    (void)dxpl_id;
    (void)closing;
    if (file->eoa == file->eof)
        return 0;
    pthread_mutex_lock(&file->plan_lock);
    file->stale = 1;
    pthread_mutex_unlock(&file->plan_lock);
    if (ftruncate(file->fd, (off_t)file->eoa) < 0) {
        H5FD__prefetch_error(__func__, H5E_IO, H5E_SEEKERROR, "ftruncate to %llu bytes: %s",
                             (unsigned long long)file->eoa, strerror(errno));
        return -1;
    }
    file->eof = file->eoa;
    return 0;
}

/*-------------------------------------------------------------------------
 * Function:    H5FD__prefetch_lock / _unlock
 *
 * Purpose:     HDF5's file locking: flock, shared for readers, exclusive for writers, never
 *              waiting. A file system without flock (ENOSYS) is not an error, as with sec2 when
 *              HDF5_USE_FILE_LOCKING allows it.
 *
 * Return:      Success:    0
 *              Failure:    -1 (the file is locked by another process)
 *-------------------------------------------------------------------------
 */
static herr_t H5FD__prefetch_lock(H5FD_t *_file, hbool_t rw)
{
    H5FD_prefetch_t *file = (H5FD_prefetch_t *)_file;
    if (flock(file->fd, (rw ? LOCK_EX : LOCK_SH) | LOCK_NB) < 0 && errno != ENOSYS) {
        H5FD__prefetch_error(__func__, H5E_VFL, H5E_CANTLOCKFILE,
                             "unable to lock the file (%s lock): %s", rw ? "exclusive" : "shared",
                             strerror(errno));
        return -1;
    }
    return 0;
}

static herr_t H5FD__prefetch_unlock(H5FD_t *_file)
{
    H5FD_prefetch_t *file = (H5FD_prefetch_t *)_file;
    if (flock(file->fd, LOCK_UN) < 0 && errno != ENOSYS) {
        H5FD__prefetch_error(__func__, H5E_VFL, H5E_CANTUNLOCKFILE, "unable to unlock the file: %s",
                             strerror(errno));
        return -1;
    }
    return 0;
}
