/* Whether a file reads through pfio at this moment (ADIOI_PREFETCH_Usable: not broken, not
 * bypassed, not atomic; ADIOI_PREFETCH_Current: not changed on disk under a read-only open), pfio's
 * handle on the file started at its first read (ADIOI_PREFETCH_Start; an independent read asks
 * its judge before, ADIOI_PREFETCH_Usable_unstarted), what is forgotten when it changed (the
 * independent reads' history), and pfio's errors as MPI's. At the bottom of the driver: the read,
 * collective-read, hint and open parts call it; it calls none of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ad_prefetch.h"
#include "adioi.h"

int ADIOI_PREFETCH_Error(const char *caller, int line, pfio_status status)
{
    return MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, caller, line, MPI_ERR_IO, "**io",
                                "**io %s", status == PFIO_OK ? "pfio" : pfio_last_error());
}

/* ROMIO refuses MPI_File_sync on a file opened read-only, so sync-barrier-sync cannot reach
 * the driver there: before every read of such a file pfio looks whether it changed on disk (one
 * fstat: size, mtime, ctime; pfio/pfio.h says when a look is too close to a change to vouch) and
 * drops what it prefetched if so. Another process's writes are seen as with the stock driver.
 * Returns 0 when pfio cannot tell (the file then reads through the stock path until close). */
static int check_read_only(ADIO_File fd, ADIOI_PREFETCH_File *pf)
{
    int changed = 0;
    if (!(fd->access_mode & ADIO_RDONLY))
        return 1;
    if (pfio_file_check(pf->ctx, pf->file, &changed) == PFIO_OK &&
        (!changed || pfio_file_size(pf->ctx, pf->file, &pf->size) == PFIO_OK)) {
        if (changed) {
            ++pf->invalidations;
            ADIOI_PREFETCH_Forget_history(pf);
        }
        return 1;
    }
    snprintf(pf->why_stock, sizeof pf->why_stock, "%s", pfio_last_error());
    if (pf->rank == 0 || getenv("PFIO_VERBOSE") != NULL)
        fprintf(stderr, "pfio: file %s: rank %d: reads use the stock path from now on: %s\n",
                fd->filename, pf->rank, pf->why_stock);
    pf->broken = 1;
    return 0;
}

void ADIOI_PREFETCH_Start(ADIO_File fd, ADIOI_PREFETCH_File *pf)
{
    pfio_status s;
    if (!pf->start_pending)
        return;
    pf->start_pending = 0;
    /* The file's buffer kind is the setting buffer (hints prefetch_buffer, prefetch_coll_path,
     * prefetch_read_path): the driver's default, cache, unless PFIO_* or a hint names one. The
     * collective layer and independent reads go through the engine in either kind. */
    s = pfio_context_create(pf->config, &pf->ctx);
    if (s == PFIO_OK)
        s = pfio_file_open_fd(pf->ctx, fd->fd_sys, fd->filename, &pf->file);
    if (s == PFIO_OK)
        s = pfio_file_size(pf->ctx, pf->file, &pf->size);
    if (s == PFIO_OK)
        s = pfio_file_buffer(pf->ctx, pf->file, &pf->page_cache);
    if (s != PFIO_OK) {
        snprintf(pf->why_stock, sizeof pf->why_stock, "%s", pfio_last_error());
        if (pf->rank == 0)
            fprintf(stderr, "pfio: file %s: prefetching is off, reads use the stock path: %s\n",
                    fd->filename, pf->why_stock);
        pfio_context_destroy(pf->ctx);
        pf->ctx = NULL;
    }
}

int ADIOI_PREFETCH_Kind_known(ADIOI_PREFETCH_File *pf)
{
    char kind[16];
    if (pf->ctx != NULL)
        return 1;
    if (pfio_config_get(pf->config, "buffer", kind, sizeof kind) != PFIO_OK ||
        strcmp(kind, "auto") == 0)
        return 0;
    pf->page_cache = strcmp(kind, "cache") == 0;
    return 1;
}

ADIOI_PREFETCH_File *ADIOI_PREFETCH_Usable_unstarted(ADIO_File fd)
{
    ADIOI_PREFETCH_File *pf = fd->fs_ptr;
    if (pf != NULL && pf->sieving)
        return pf; /* ROMIO's data sieving inside a read that was let through: its reads too */
    if (pf != NULL && pf->stepping_aside)
        return NULL; /* a collective call handed to ROMIO (counted there): its reads too */
    if (pf == NULL || (pf->ctx == NULL && !pf->start_pending) || pf->broken || pf->bypass > 0 ||
        fd->atomicity) {
        if (pf != NULL)
            ++pf->stock_reads;
        return NULL;
    }
    return pf;
}

int ADIOI_PREFETCH_Started(ADIO_File fd, ADIOI_PREFETCH_File *pf)
{
    ADIOI_PREFETCH_Start(fd, pf);
    if (pf->ctx != NULL)
        return 1;
    ++pf->stock_reads;
    return 0;
}

ADIOI_PREFETCH_File *ADIOI_PREFETCH_Usable(ADIO_File fd)
{
    ADIOI_PREFETCH_File *pf = ADIOI_PREFETCH_Usable_unstarted(fd);
    return pf != NULL && ADIOI_PREFETCH_Started(fd, pf) ? pf : NULL;
}

int ADIOI_PREFETCH_Current(ADIO_File fd, ADIOI_PREFETCH_File *pf)
{
    if (pf->sieving || check_read_only(fd, pf))
        return 1;
    ++pf->stock_reads;
    return 0;
}

ADIOI_PREFETCH_File *ADIOI_PREFETCH_Active(ADIO_File fd)
{
    ADIOI_PREFETCH_File *pf = ADIOI_PREFETCH_Usable(fd);
    return pf != NULL && ADIOI_PREFETCH_Current(fd, pf) ? pf : NULL;
}

void ADIOI_PREFETCH_Forget_history(ADIOI_PREFETCH_File *pf)
{
    if (pf->stride != NULL)
        pfio_stride_reset(pf->stride);
    if (pf->calls != NULL)
        pfio_calls_reset(pf->calls);
    pf->planned_calls = 0;
}

uint64_t ADIOI_PREFETCH_Now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
