/* H5FDprefetch: a terminal HDF5 virtual file driver that reads raw data through pfio.
 *
 * Laid out like HDF5's own sec2 driver: the class table with every slot named, then one function
 * per slot, each with a Purpose / Return block. The file struct is in H5FDprefetch_private.h.
 * Raw data (H5FD_MEM_DRAW) is read through pfio, which serves it from its reorder buffer when the
 * read was planned (declared, or predicted) and from the file otherwise. Everything else goes to
 * the file's own descriptor exactly as sec2 would do it: metadata reads, writes, truncation,
 * locks. A write makes pfio drop what it fetched before the next raw read (the `stale` flag).
 *
 * The driver does not ask HDF5 for data sieving: pfio is the read cache, and a sieve would turn
 * each declared extent into a larger read that no longer matches the plan.
 */
#include "H5FDprefetch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "H5FDprefetch_private.h"

/* The driver's id; 0 until first registered. */
static hid_t H5FD_PREFETCH_g = 0;

/* The error class the driver's messages are pushed under; 0 until first needed. */
static hid_t H5FD_prefetch_err_class_g = 0;

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
static herr_t H5FD__prefetch_flush(H5FD_t *file, hid_t dxpl_id, hbool_t closing);
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
    H5FD__prefetch_flush,           /* flush         */
    H5FD__prefetch_truncate,        /* truncate      */
    H5FD__prefetch_lock,            /* lock          */
    H5FD__prefetch_unlock,          /* unlock        */
    H5FD_FLMAP_DICHOTOMY            /* fl_map        */
};

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
    if (H5FD_PREFETCH_g <= 0 || H5Iget_type(H5FD_PREFETCH_g) != H5I_VFL)
        H5FD_PREFETCH_g = H5FDregister(&H5FD_prefetch_g);
    return H5FD_PREFETCH_g > 0 ? H5FD_PREFETCH_g : H5I_INVALID_HID;
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
    H5FD_PREFETCH_g = 0;
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

/* Starts the file's pfio context and opens the file in it, the first time something is to be read
 * through pfio (a file read only through the page cache never starts one: a context costs an
 * I/O thread, and tens of milliseconds to stop). 0, or -1 after pushing pfio's error. */
int H5FD__prefetch_engine(H5FD_prefetch_t *file, const char *func)
{
    const char *name = file->name;
    pfio_config *engine;
    pfio_status status;
    if (file->ctx != NULL)
        return 0;
    engine = H5FD__prefetch_engine_config(&file->config, func);
    if (engine == NULL)
        return -1;
    status = pfio_context_create(engine, &file->ctx);
    pfio_config_destroy(engine);
    if (status == PFIO_OK)
        status = pfio_file_open(file->ctx, name, &file->pfio_file);
    if (status == PFIO_OK)
        status = pfio_file_size(file->ctx, file->pfio_file, &file->pfio_size);
    if (status != PFIO_OK) {
        H5FD__prefetch_error(func, H5E_VFL, H5E_CANTOPENFILE, "pfio could not open %s: %s", name,
                             pfio_last_error());
        pfio_context_destroy(file->ctx);
        file->ctx = NULL;
        return -1;
    }
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
    pfio_config *engine;
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
    config = (const H5FD_prefetch_config_t *)H5Pget_driver_info(fapl_id);
    if (config != NULL)
        memcpy(&file->config, config, sizeof file->config);
    else
        H5FD_prefetch_config_init(&file->config);

    file->fd = open(name, o_flags | O_CLOEXEC, 0666);
    if (file->fd < 0) {
        H5FD__prefetch_error(__func__, H5E_FILE, H5E_CANTOPENFILE,
                             "unable to open %s (flags 0x%x): %s", name, flags, strerror(errno));
        free(file);
        return NULL;
    }
    if (fstat(file->fd, &sb) < 0) {
        H5FD__prefetch_error(__func__, H5E_FILE, H5E_BADFILE, "unable to fstat %s: %s", name,
                             strerror(errno));
        close(file->fd);
        free(file);
        return NULL;
    }
    file->eof = (haddr_t)sb.st_size;
    file->device = sb.st_dev;
    file->inode = sb.st_ino;
    file->pfio_size = file->eof;
    file->name = strdup(name);
    engine = H5FD__prefetch_engine_config(&file->config,
                                          __func__); /* a bad PFIO_* variable fails the open */
    pfio_config_destroy(engine);
    if (file->name == NULL || engine == NULL) {
        if (file->name == NULL)
            H5FD__prefetch_error(__func__, H5E_VFL, H5E_CANTALLOC, "no memory for the name %s",
                                 name);
        free(file->name);
        close(file->fd);
        free(file);
        return NULL;
    }
    H5FD__prefetch_predictor_reset(file);
    return (H5FD_t *)file;
}

/*-------------------------------------------------------------------------
 * Function:    H5FD__prefetch_close
 *
 * Purpose:     Stops the file's pfio context (which writes its stats when a stats path is
 *              set) and closes the descriptor.
 *
 * Return:      Success:    0
 *              Failure:    -1; the struct is freed either way
 *-------------------------------------------------------------------------
 */
static herr_t H5FD__prefetch_close(H5FD_t *_file)
{
    H5FD_prefetch_t *file = (H5FD_prefetch_t *)_file;
    herr_t ret = 0;
    if (file->ctx != NULL && pfio_context_destroy(file->ctx) != PFIO_OK) {
        H5FD__prefetch_error(__func__, H5E_IO, H5E_CANTCLOSEFILE, "closing pfio's context: %s",
                             pfio_last_error());
        ret = -1;
    }
    free(file->pending.items);
    free(file->name);
    free(file->advice.items);
    free(file->probe_buffer);
    if (close(file->fd) < 0) {
        H5FD__prefetch_error(__func__, H5E_IO, H5E_CANTCLOSEFILE, "close: %s", strerror(errno));
        ret = -1;
    }
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
 *              data aggregation, a POSIX descriptor as handle, sec2's file format. No data sieve
 *              (see the top of this file) and no SWMR.
 *
 * Return:      0
 *-------------------------------------------------------------------------
 */
static herr_t H5FD__prefetch_query(const H5FD_t *file, unsigned long *flags)
{
    (void)file;
    if (flags != NULL)
        *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA |
                 H5FD_FEAT_AGGREGATE_SMALLDATA | H5FD_FEAT_POSIX_COMPAT_HANDLE |
                 H5FD_FEAT_DEFAULT_VFD_COMPATIBLE;
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

/* Reads [addr, addr+size) from the descriptor; zeros past the end of the file. 0 or -1. */
static int read_direct(H5FD_prefetch_t *file, haddr_t addr, size_t size, unsigned char *buf,
                       const char *func)
{
    while (size > 0) {
        ssize_t n = pread(file->fd, buf, size, (off_t)addr);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            H5FD__prefetch_error(func, H5E_IO, H5E_READERROR, "pread of %zu bytes at %llu: %s",
                                 size, (unsigned long long)addr, strerror(errno));
            return -1;
        }
        if (n == 0) {
            memset(buf, 0, size);
            return 0;
        }
        addr += (haddr_t)n;
        buf += n;
        size -= (size_t)n;
    }
    return 0;
}

int H5FD__prefetch_refresh(H5FD_prefetch_t *file, const char *func)
{
    if (file->ctx == NULL) {
        file->pfio_size = file->eof;
    } else if (pfio_file_refresh(file->ctx, file->pfio_file) != PFIO_OK ||
               pfio_file_size(file->ctx, file->pfio_file, &file->pfio_size) != PFIO_OK) {
        H5FD__prefetch_error(func, H5E_IO, H5E_READERROR,
                             "pfio could not drop what it read before a write: %s",
                             pfio_last_error());
        return -1;
    }
    file->stale = 0;
    file->declared = 0; /* the refresh dropped the plan too */
    file->pending.count = 0;
    H5FD__prefetch_advise_clear(file);
    ++file->stats.refreshes;
    H5FD__prefetch_predictor_reset(file);
    return 0;
}

/* A raw-data read: the part pfio knows through pfio (planned or not), the rest directly. */
static int read_raw(H5FD_prefetch_t *file, haddr_t addr, size_t size, unsigned char *buf,
                    const char *func)
{
    uint64_t inside = 0, got = 0;
    if (file->stale && H5FD__prefetch_refresh(file, func) < 0)
        return -1;
    if (H5FD__prefetch_flush_pending(file, func) < 0)
        return -1;
    ++file->stats.raw_reads;
    if (addr < file->pfio_size)
        inside = size < file->pfio_size - addr ? size : file->pfio_size - addr;
    /* Without a plan for this read, it is served as sec2 serves it (through the page cache,
     * with the kernel's readahead): pfio would read it directly, at the same cost or more. */
    if (inside > 0 && !file->declared) {
        int predicted =
            file->config.predict ? H5FD__prefetch_predictor_observe(file, addr, size) : 0;
        file->stats.unplanned_reads += predicted == 0;
        if (predicted != 2)
            inside = 0;
    } else if (inside > 0 && size < file->config.engine_min &&
               H5FD__prefetch_advise_read(file, addr, size)) {
        ++file->stats.advised_reads; /* a small declared extent: in the page cache by now */
        inside = 0;
    } else if (inside > 0 && file->ctx == NULL) {
        ++file->stats.unplanned_reads; /* nothing declared goes through pfio */
        inside = 0;
    }
    if (inside > 0) {
        if (pfio_read(file->ctx, file->pfio_file, buf, addr, inside, &got) != PFIO_OK) {
            H5FD__prefetch_error(func, H5E_IO, H5E_READERROR, "pfio read of %llu bytes at %llu: %s",
                                 (unsigned long long)inside, (unsigned long long)addr,
                                 pfio_last_error());
            return -1;
        }
    }
    return read_direct(file, addr + got, size - got, buf + got, func);
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
    if (type == H5FD_MEM_DRAW && file->probing) {
        file->probe_addr = addr;
        file->probe_size = size;
        return 0;
    }
    if (type == H5FD_MEM_DRAW)
        return read_raw(file, addr, size, buf, __func__) < 0 ? -1 : 0;
    ++file->stats.metadata_reads;
    return read_direct(file, addr, size, buf, __func__) < 0 ? -1 : 0;
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
    ++file->stats.writes;
    file->stale = 1; /* before the first byte lands: a failed write may have changed the file */
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
 * Function:    H5FD__prefetch_flush
 *
 * Purpose:     Nothing is buffered on the write side: writes went to the descriptor.
 *
 * Return:      0
 *-------------------------------------------------------------------------
 */
static herr_t H5FD__prefetch_flush(H5FD_t *file, hid_t dxpl_id, hbool_t closing)
{
    (void)file;
    (void)dxpl_id;
    (void)closing;
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
    file->stale = 1;
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
