// The file system a descriptor lives on, from fstatfs(2)'s f_type: a name for messages ("ext4",
// "lustre", "file system type 0x..."), the test for Lustre, whose striping and advice ioctls
// pfio issues only on Lustre files, and the test for storage reached over a network or through
// a user-space server (NFS, SMB, Lustre, GPFS, BeeGFS, CephFS, OrangeFS, 9p, FUSE), where every
// request pays a round trip: there fewer, larger requests pay (docs/limits.md, the test bed).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace pfio {

constexpr uint64_t kLustreSuperMagic = 0x0BD00BD0;

std::string FsTypeName(int fd);
bool OnLustre(int fd);
bool OnRemoteStorage(int fd);
// The same for the file system holding `path` (statfs); false when it cannot be looked at.
bool PathOnRemoteStorage(const std::string &path);
// What a file that is not a regular one is, from its st_mode, for messages ("a FIFO", "a
// symbolic link", "a directory", ...).
const char *NotRegularKind(mode_t mode);

}  // namespace pfio
