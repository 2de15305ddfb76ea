/* What pfio's own front ends built over the C API need beside it (not installed).
 *
 * Contract. pfio_front_end_fail(status, message) sets the calling thread's last error (what
 * pfio_last_error returns) to `message` and returns `status`, so that a layer outside libpfio
 * (the collective layer in the ROMIO driver: pfio_coll_*) reports failures the
 * way every pfio call does: a pfio_status, and one line in pfio_last_error. NULL message: "".
 *
 * pfio_front_end_write(path, kind, signature, content, length, data_path, what) writes a file of
 * a front end's own (the ROMIO driver's job summary, the HDF5 driver's report) by the rule of
 * every file pfio writes (src/common/output_file.h): a new file, or one of the same kind (it
 * begins with `signature`, as `content` must) replaced whole through a temporary file created
 * with O_EXCL | O_NOFOLLOW; a symbolic link, a non-regular file, `data_path` (NULL: none) or any
 * other file is refused and left as it is. PFIO_OK, or PFIO_EIO with the reason (naming `what`,
 * the setting that named the path) in pfio_last_error.
 *
 * pfio_front_end_edit_distance(a, b): the edit distance of two names (common/edit_distance.h),
 * so that a front end's "nearest" for a misspelt name is measured as the engine's for a
 * misspelt key; NULL counts as "". */
#ifndef PFIO_FRONT_END_H_INCLUDED
#define PFIO_FRONT_END_H_INCLUDED

#include <stddef.h>

#include "pfio/pfio.h"

#ifdef __cplusplus
extern "C" {
#endif

pfio_status pfio_front_end_fail(pfio_status status, const char *message);
pfio_status pfio_front_end_write(const char *path, const char *kind, const char *signature,
                                 const char *content, size_t length, const char *data_path,
                                 const char *what);
size_t pfio_front_end_edit_distance(const char *a, const char *b);

#ifdef __cplusplus
}
#endif

#endif
