#include "io/willneed.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace pfio {
namespace {

// A sysfs number in KiB as bytes; 0 when the file is missing or holds no number.
uint64_t KibFile(const std::string &path) {
  std::ifstream in(path);
  uint64_t kib = 0;
  if (!(in >> kib)) return 0;
  return kib << 10;
}

}  // namespace

uint64_t WillneedLimit(int fd) {
  struct stat sb;
  if (fstat(fd, &sb) != 0) return kMinWillneedLimit;
  const std::string dev = std::to_string(major(sb.st_dev)) + ":" + std::to_string(minor(sb.st_dev));
  uint64_t limit = KibFile("/sys/class/bdi/" + dev + "/read_ahead_kb");
  const std::string block = "/sys/dev/block/" + dev;
  for (const char *queue : {"/queue/", "/../queue/"}) {  // a disk, or a partition's disk
    limit = std::max(limit, KibFile(block + queue + "read_ahead_kb"));
    limit = std::max(limit, KibFile(block + queue + "max_sectors_kb"));
  }
  return std::max(limit, kMinWillneedLimit);
}

int Willneed(int fd, uint64_t offset, uint64_t length, uint64_t limit) {
  limit = std::max(limit, kMinWillneedLimit);  // 0: not known
  while (length > 0) {
    const uint64_t piece = std::min(length, limit);
    const int rc = posix_fadvise(fd, static_cast<off_t>(offset), static_cast<off_t>(piece),
                                 POSIX_FADV_WILLNEED);
    if (rc != 0) return rc;
    offset += piece;
    length -= piece;
  }
  return 0;
}

}  // namespace pfio
