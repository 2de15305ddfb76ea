#include "common/fs_type.h"

#include <sys/stat.h>
#include <sys/statfs.h>

#include "common/status.h"

namespace pfio {

namespace {
bool FsType(int fd, uint64_t *type) {
  struct statfs s;
  if (fstatfs(fd, &s) != 0) return false;
  *type = static_cast<uint64_t>(static_cast<unsigned long>(s.f_type));
  return true;
}
}  // namespace

std::string FsTypeName(int fd) {
  uint64_t type = 0;
  if (!FsType(fd, &type)) return "unknown file system";
  switch (type) {
    case 0x01021994:
      return "tmpfs";
    case 0xEF53:
      return "ext4";
    case 0x58465342:
      return "xfs";
    case 0x9123683E:
      return "btrfs";
    case 0x6969:
      return "nfs";
    case 0x794c7630:
      return "overlayfs";
    case kLustreSuperMagic:
      return "lustre";
    default:
      return Format("file system type 0x%llx", static_cast<unsigned long long>(type));
  }
}

namespace {
bool RemoteType(uint64_t type) {
  switch (type) {
    case 0x6969:      // NFS
    case 0xFF534D42:  // CIFS / SMB
    case 0xFE534D42:  // SMB2
    case kLustreSuperMagic:
    case 0x47504653:  // GPFS
    case 0x19830326:  // BeeGFS
    case 0x00C36400:  // CephFS
    case 0x20030528:  // OrangeFS (PVFS2)
    case 0x01021997:  // 9p
    case 0x65735546:  // FUSE
      return true;
    default:
      return false;
  }
}
}  // namespace

bool OnRemoteStorage(int fd) {
  uint64_t type = 0;
  return FsType(fd, &type) && RemoteType(type);
}

bool PathOnRemoteStorage(const std::string &path) {
  struct statfs s;
  return statfs(path.c_str(), &s) == 0 &&
         RemoteType(static_cast<uint64_t>(static_cast<unsigned long>(s.f_type)));
}

bool OnLustre(int fd) {
  uint64_t type = 0;
  return FsType(fd, &type) && type == kLustreSuperMagic;
}

const char *NotRegularKind(mode_t mode) {
  return S_ISLNK(mode)    ? "a symbolic link"
         : S_ISFIFO(mode) ? "a FIFO"
         : S_ISDIR(mode)  ? "a directory"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a regular file";
}

}  // namespace pfio
