/* H5FDprefetch_engine.c: a file's pfio context, started the first time something is to be read
 * through pfio. Below the read, declare and predict paths, which all may start it.
 */
#include <unistd.h>

#include "H5FDprefetch_private.h"

/* Starts the file's pfio context and opens the file in it, the first time something is to be read
 * through pfio (a file read only through the page cache never starts one: a context costs an
 * I/O thread; creating it, opening the file and destroying it took 0.3-0.5 ms together on this
 * project's VM, 2026-11-27). 0, or -1 after pushing pfio's error. */
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
    file->ctx_owner = getpid();
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

int H5FD__prefetch_engine_inherited(const H5FD_prefetch_t *file)
{
    return file->ctx != NULL && file->ctx_owner != getpid();
}
