/* H5FDprefetch_raw.c: the driver's raw-data read path. A raw read goes through pfio when it
 * was planned (declared, or predicted) and the file's pfio context exists (started lazily, the
 * first time something is to be read through it); everything else is read from the file's own
 * descriptor, as sec2 reads it. After a write, the first raw read makes pfio drop what it fetched.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "H5FDprefetch.h"
#include "H5FDprefetch_private.h"

_Thread_local const H5FD_prefetch_t *H5FD__prefetch_declaring = NULL;

/* Reads [addr, addr+size) from the descriptor; zeros past the end of the file. 0 or -1. */
int H5FD__prefetch_read_direct(H5FD_prefetch_t *file, haddr_t addr, size_t size, unsigned char *buf,
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

/* The pages of index nodes read while declaring are noted, to be dropped from the page cache where
 * they would break the kernel's readahead (H5FD__prefetch_drop_index_pages,
 * H5FDprefetch_extents.c). Rounded out to whole pages: the kernel keeps a page that is only partly
 * inside a range it is told to drop. */
int H5FD__prefetch_read_index(H5FD_prefetch_t *file, haddr_t addr, size_t size, unsigned char *buf,
                              const char *func)
{
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t start = addr / page * page, end = (addr + size + page - 1) / page * page;
    if (H5FD__prefetch_read_direct(file, addr, size, buf, func) < 0)
        return -1;
    H5FD__prefetch_btree_node_read(file, buf, size);
    /* A node read again is noted again: the list is joined whenever it doubled since the last
     * join, so it stays about as long as the index has nodes, at a cost amortized per read. */
    if (file->index_pages.count >= 2 * file->index_pages_sorted &&
        file->index_pages.count >= 4096) {
        H5FD__prefetch_extents_sort_and_join(&file->index_pages, 0);
        file->index_pages_sorted = file->index_pages.count;
    }
    H5FD__prefetch_extents_push(&file->index_pages, -1, start, end - start);
    file->index_pages.failed = 0; /* a page not noted is a page not dropped: a hint lost */
    ++file->stats.index_reads;
    return 0;
}

int H5FD__prefetch_read_metadata(H5FD_prefetch_t *file, H5FD_mem_t type, haddr_t addr, size_t size,
                                 unsigned char *buf, const char *func)
{
    ++file->stats.metadata_reads;
    if (H5FD__prefetch_declaring == file)
        return H5FD__prefetch_read_index(file, addr, size, buf, func);
    if (H5FD__prefetch_read_direct(file, addr, size, buf, func) < 0)
        return -1;
    if (type == H5FD_MEM_BTREE && !file->declared && file->config.predict)
        H5FD__prefetch_btree_note_node(file, buf, size);
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
    file->declared = 0;                         /* the refresh dropped the plan too */
    H5FD__prefetch_dataset_forget_chunks(file); /* written chunks may have moved */
    file->index_children.count = 0;             /* and index nodes */
    file->pending.count = 0;
    file->ahead_info = NULL; /* a call foreseen was in the plan */
    ++file->stats.refreshes;
    H5FD__prefetch_predictor_reset(file);
    return 0;
}

/* A raw-data read: the part pfio knows through pfio (planned or not), the rest directly. */
int H5FD__prefetch_read_raw(H5FD_prefetch_t *file, haddr_t addr, size_t size, unsigned char *buf,
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
    if (file->call_plan) { /* the plan's bytes, or a read it did not name: an upper bound */
        file->call_plan_read += inside;
        /* A call's plan stops at its end; a column sweep, which the calls' reads may make,
         * advises the rows ahead of them, in the page cache where the plan's pages are too
         * (docs/hdf5-driver.md, "Per-call plans"). */
        if (inside > 0 && file->page_cache_kind && file->config.predict)
            H5FD__prefetch_sweep_observe(file, addr, size);
    }
    if (inside > 0 && !file->declared && !file->call_plan) {
        int predicted = 0;
        if (file->config.predict) {
            predicted = H5FD__prefetch_predictor_observe(file, addr, size);
            H5FD__prefetch_sweep_observe(file, addr, size);
        }
        file->stats.unplanned_reads += predicted == 0;
        if (predicted != 2)
            inside = 0;
    } else if (inside > 0 && file->ctx == NULL) {
        ++file->stats.unplanned_reads; /* declared nothing that started pfio */
        inside = 0;
    } else if (inside > 0 && H5FD__prefetch_engine_inherited(file)) {
        /* A child of fork(): the extents it declared were advised by itself (flush_pending) */
        ++file->stats.advised_reads;
        inside = 0;
    }
    if (inside > 0 && file->page_cache_kind && inside < file->config.engine_min) {
        /* The engine holds the file in its page-cache kind: the bytes are pages of the file, read
         * here through HDF5's own descriptor, and pfio's plan moves on without a read through it
         * (pfio_read_done), which saves pfio's copy and its cost per read. */
        ++file->stats.advised_reads;
        if (H5FD__prefetch_read_direct(file, addr, inside, buf, func) < 0)
            return -1;
        if (pfio_read_done(file->ctx, file->pfio_file, addr, inside, NULL) != PFIO_OK) {
            H5FD__prefetch_error(func, H5E_IO, H5E_READERROR,
                                 "pfio could not follow a read of %llu bytes at %llu: %s",
                                 (unsigned long long)inside, (unsigned long long)addr,
                                 pfio_last_error());
            return -1;
        }
        got = inside;
    } else if (inside > 0) {
        if (pfio_read(file->ctx, file->pfio_file, buf, addr, inside, &got) != PFIO_OK) {
            H5FD__prefetch_error(func, H5E_IO, H5E_READERROR, "pfio read of %llu bytes at %llu: %s",
                                 (unsigned long long)inside, (unsigned long long)addr,
                                 pfio_last_error());
            return -1;
        }
    }
    return H5FD__prefetch_read_direct(file, addr + got, size - got, buf + got, func);
}
