/* What pfio's own front ends built over the C API need beside it (not installed).
 *
 * Contract. pfio_front_end_fail(status, message) sets the calling thread's last error (what
 * pfio_last_error returns) to `message` and returns `status`, so that a layer outside libpfio
 * (the collective layer in the ROMIO driver: pfio_coll_*) reports failures the
 * way every pfio call does: a pfio_status, and one line in pfio_last_error. NULL message: "". */
#ifndef PFIO_FRONT_END_H_INCLUDED
#define PFIO_FRONT_END_H_INCLUDED

#include "pfio/pfio.h"

#ifdef __cplusplus
extern "C" {
#endif

pfio_status pfio_front_end_fail(pfio_status status, const char *message);

#ifdef __cplusplus
}
#endif

#endif
