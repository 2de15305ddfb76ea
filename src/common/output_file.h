// The one rule for every file pfio writes: the stats JSON, the plan record, the ROMIO driver's
// job summary and the HDF5 driver's report (docs/reliability.md, "Files pfio writes").
//
// Contract. A path may be written when nothing is there, or when a regular file of the same
// kind is (it begins with the kind's signature: pfio wrote it before). Anything else is refused
// and left as it is, with a message naming the path, what is there and what was expected: an
// existing file that is not pfio's own of that kind (the data file being read among them), a
// file that is the data file itself (`data_path`, by device and inode), a symbolic link, a
// directory or any other non-regular file. The bytes go to a new file beside the path, created
// with O_CREAT | O_EXCL | O_NOFOLLOW (so no link planted at the temporary name is followed and
// no existing file is written into), and are renamed over the path when complete, so a reader
// never sees half a file and a job that dies leaves the earlier file or none.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace pfio {

// A kind of file pfio writes: its name in messages ("plan record") and the bytes every file of
// the kind begins with.
struct OutputKind {
  const char *name;
  std::string_view signature;
};

// OK when `path` may be written as a file of `kind`, else why not, in a whole sentence naming
// `what` (the setting that named the path): PFIO_EINVAL when the rule refuses the path, PFIO_EIO
// when the system could not say what is there. `data_path` ("" for none) is a file pfio reads
// that the path must not be.
Status CheckOutputTarget(const std::string &path, const OutputKind &kind,
                         const std::string &data_path, const char *what);

// A new temporary file beside `path`, opened for writing by the rule: its descriptor in *fd and
// its name in *temporary; else PFIO_EIO and why.
Status CreateOutputTemporary(const std::string &path, const char *what, std::string *temporary,
                             int *fd);

// Checks `path` and writes `content` (which begins with the kind's signature, else PFIO_EINVAL)
// to it by the rule: CheckOutputTarget's refusals, or PFIO_EIO when writing failed; nothing is
// left behind on failure.
Status WriteOutputFile(const std::string &path, const OutputKind &kind, std::string_view content,
                       const std::string &data_path, const char *what);

}  // namespace pfio
