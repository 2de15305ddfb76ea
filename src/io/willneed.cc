#include "io/willneed.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
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

// The cap of device `dev_id`, read from sysfs.
uint64_t DeviceLimit(dev_t dev_id) {
  const std::string dev = std::to_string(major(dev_id)) + ":" + std::to_string(minor(dev_id));
  uint64_t limit = KibFile("/sys/class/bdi/" + dev + "/read_ahead_kb");
  const std::string block = "/sys/dev/block/" + dev;
  for (const char *queue : {"/queue/", "/../queue/"}) {  // a disk, or a partition's disk
    limit = std::max(limit, KibFile(block + queue + "read_ahead_kb"));
    limit = std::max(limit, KibFile(block + queue + "max_sectors_kb"));
  }
  return std::max(limit, kMinWillneedLimit);
}

}  // namespace

uint64_t WillneedLimit(int fd) {
  struct stat sb;
  if (fstat(fd, &sb) != 0) return kMinWillneedLimit;
  // Once per device and process: five sysfs opens were most of a file open's own cost
  // (docs/small-calls.md, "The cost of an open").
  static std::mutex mu;
  static std::map<dev_t, uint64_t> *known = new std::map<dev_t, uint64_t>;  // outlives exit
  static pid_t owner = 0;
  std::lock_guard<std::mutex> lock(mu);
  if (owner != getpid()) {
    known->clear();
    owner = getpid();
  }
  auto it = known->find(sb.st_dev);
  if (it == known->end()) it = known->emplace(sb.st_dev, DeviceLimit(sb.st_dev)).first;
  return it->second;
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
