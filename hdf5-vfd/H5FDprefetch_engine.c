/* H5FDprefetch_engine.c: a file's pfio context, started the first time something is to be read
 * through pfio. Below the read, declare and predict paths, which all may start it.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "H5FDprefetch_private.h"

/* This process's id without a system call per read (getpid() is one, and the driver asks at
 * every raw read whether its context is a parent's): noted once, and again in every child of
 * fork(). */
static pid_t this_process;
static pthread_once_t this_process_once = PTHREAD_ONCE_INIT;

static void note_this_process(void)
{
    this_process = getpid();
}

static void watch_forks(void)
{
    note_this_process();
    (void)pthread_atfork(NULL, NULL, note_this_process);
}

static pid_t current_process(void)
{
    (void)pthread_once(&this_process_once, watch_forks);
    return this_process;
}

/* Under buffer = auto, a file whose plans are the driver's own (per-call plans, predictions,
 * advice) is held in the page-cache kind wherever it is: behind FUSE or a network too, where the
 * rule gives a program's declared plan the reorder buffer. The page cache advises a call's small
 * pieces at once and keeps them for the calls after it; the reorder buffer reads them one by one
 * or leaves them unplanned (docs/hdf5-driver.md, "Which kind, where"). */
static pfio_status driver_plans_in_page_cache(pfio_config *engine, int declared)
{
    char buffer[16] = "";
    if (declared || pfio_config_get(engine, "buffer", buffer, sizeof buffer) != PFIO_OK ||
        strcmp(buffer, "auto") != 0)
        return PFIO_OK;
    return pfio_config_set(engine, "buffer", "cache");
}

/* Starts the file's pfio context and opens the file in it, the first time something is to be read
 * through pfio (a file read only through the page cache never starts one: a context costs
 * threads and time, docs/measurements.md, "Others"). 0, or -1 after pushing pfio's error. */
int H5FD__prefetch_engine(H5FD_prefetch_t *file, int declared, const char *func)
{
    const char *name = file->name;
    pfio_config *engine;
    pfio_context *ctx = NULL;
    pfio_status status;
    int32_t id = -1;
    uint64_t size = 0;
    int page_cache_kind = 0, started;
    /* Made outside plan_lock (pfio's calls may take a while, an error is pushed to HDF5), and set
     * under it: a thread planning a call may start it while another thread's raw read looks. */
    pthread_mutex_lock(&file->plan_lock);
    started = file->ctx != NULL;
    pthread_mutex_unlock(&file->plan_lock);
    if (started)
        return 0;
    engine = H5FD__prefetch_engine_config(&file->config, func);
    if (engine == NULL)
        return -1;
    status = driver_plans_in_page_cache(engine, declared);
    if (status == PFIO_OK)
        status = pfio_context_create(engine, &ctx);
    pfio_config_destroy(engine);
    if (status == PFIO_OK)
        status = pfio_file_open_fd(ctx, file->fd, name, &id);
    if (status == PFIO_OK)
        status = pfio_file_size(ctx, id, &size);
    if (status == PFIO_OK) /* the kind pfio gave the file (buffer = auto chooses it at open) */
        status = pfio_file_buffer(ctx, id, &page_cache_kind);
    if (status != PFIO_OK) {
        H5FD__prefetch_error(func, H5E_VFL, H5E_CANTOPENFILE, "pfio could not open %s: %s", name,
                             pfio_last_error());
        pfio_context_destroy(ctx);
        return -1;
    }
    pthread_mutex_lock(&file->plan_lock);
    if (file->ctx == NULL) {
        file->ctx = ctx;
        file->ctx_owner = current_process();
        file->pfio_file = id;
        file->pfio_size = size;
        file->page_cache_kind = page_cache_kind;
        ctx = NULL;
    }
    pthread_mutex_unlock(&file->plan_lock);
    if (ctx != NULL) /* another thread started one meanwhile */
        pfio_context_destroy(ctx);
    return 0;
}

int H5FD__prefetch_engine_inherited(const H5FD_prefetch_t *file)
{
    return file->ctx != NULL && file->ctx_owner != current_process();
}
