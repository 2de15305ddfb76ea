/* Advice outside pfio's plan: the ranges the stride prediction, a column sweep and the chunk
 * index's nodes want in the page cache ahead of the reader (declared extents are pfio's plan,
 * advised by the engine in its page-cache kind). The advice goes out from the advice thread of the
 * file's pfio context (pfio_advise_now), started here the first time: the kernel allocates the
 * pages and submits their reads in the thread that advises (docs/measurements.md, "Advice from
 * the advice thread"), and the reader meanwhile reads what is cached. Without a context (it could
 * not start, or this is a child of fork()), the reader advises itself. */
#include <fcntl.h>

#include "H5FDprefetch_private.h"

/* Whether the file's advice goes through its pfio context, started here the first time. */
static int advice_engine(H5FD_prefetch_t *file)
{
    if (!file->advise_inline && file->ctx == NULL &&
        H5FD__prefetch_engine(file, 0, "H5FD__prefetch_willneed") < 0)
        file->advise_inline = 1; /* the error says why; the reader advises from now on */
    return !file->advise_inline;
}

/* Memory control over the advice outside the plan: what a prediction or a sweep holds advised
 * ahead stays within half the budget the context's AIMD controller allows now (cut under memory
 * pressure, grown back after), at most H5FD_PREFETCH_ADVISE_AHEAD. Without a context (it could not
 * start, or this is a child of fork()), the fixed H5FD_PREFETCH_ADVISE_AHEAD. */
uint64_t H5FD__prefetch_advice_window(H5FD_prefetch_t *file)
{
    uint64_t budget = 0;
    if (advice_engine(file) && !H5FD__prefetch_engine_inherited(file) &&
        pfio_memory_budget(file->ctx, &budget) == PFIO_OK &&
        budget / 2 < H5FD_PREFETCH_ADVISE_AHEAD)
        return budget / 2;
    return H5FD_PREFETCH_ADVISE_AHEAD;
}

void H5FD__prefetch_willneed(H5FD_prefetch_t *file, uint64_t offset, uint64_t length)
{
    if (advice_engine(file) && offset < file->pfio_size) {
        pfio_extent e;
        e.file = file->pfio_file;
        e.marked = 0;
        e.offset = offset;
        e.length = length < file->pfio_size - offset ? length : file->pfio_size - offset;
        if (e.length == 0 || pfio_advise_now(file->ctx, &e, 1) == PFIO_OK)
            return;
        file->advise_inline = 1; /* refused (a forked child): a hint, so no error */
    }
    posix_fadvise(file->fd, (off_t)offset, (off_t)length, POSIX_FADV_WILLNEED);
}
