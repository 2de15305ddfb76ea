#include "layout/fiemap_layout.h"

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace pfio {

Status FiemapLayout::Read(const std::string &path, std::unique_ptr<FiemapLayout> *out) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Status::Invalid(Format("%s: cannot open: %s", path.c_str(), std::strerror(errno)));
  }
  constexpr unsigned kBatch = 512;
  std::vector<char> buf(sizeof(fiemap) + kBatch * sizeof(fiemap_extent));
  std::vector<PhysicalExtent> extents;
  uint64_t start = 0;
  for (;;) {
    std::memset(buf.data(), 0, buf.size());
    auto *fm = reinterpret_cast<fiemap *>(buf.data());
    fm->fm_start = start;
    fm->fm_length = FIEMAP_MAX_OFFSET - start;
    fm->fm_flags = FIEMAP_FLAG_SYNC;
    fm->fm_extent_count = kBatch;
    if (ioctl(fd, FS_IOC_FIEMAP, fm) != 0) {
      int e = errno;
      close(fd);
      return Status::Io(
          Format("%s: FIEMAP failed: %s (the file system does not report physical "
                 "extents)",
                 path.c_str(), std::strerror(e)));
    }
    bool last = fm->fm_mapped_extents == 0;
    for (unsigned i = 0; i < fm->fm_mapped_extents; ++i) {
      const fiemap_extent &x = fm->fm_extents[i];
      const bool placed = !(x.fe_flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC));
      extents.push_back({x.fe_logical, placed ? x.fe_physical : x.fe_logical, x.fe_length});
      start = x.fe_logical + x.fe_length;
      if (x.fe_flags & FIEMAP_EXTENT_LAST) last = true;
    }
    if (last) break;
  }
  close(fd);
  out->reset(new FiemapLayout(std::move(extents), "FIEMAP of " + path));
  return Status::Ok();
}

void FiemapLayout::Map(uint64_t offset, uint64_t length, std::vector<Placement> *out) const {
  const uint64_t end = offset + length;
  auto it = std::upper_bound(extents_.begin(), extents_.end(), offset,
                             [](uint64_t p, const PhysicalExtent &x) { return p < x.logical; });
  if (it != extents_.begin()) --it;
  for (uint64_t pos = offset; pos < end;) {
    while (it != extents_.end() && it->logical + it->length <= pos) ++it;
    Placement p;
    p.file_offset = pos;
    if (it != extents_.end() && it->logical <= pos) {
      p.length = std::min(end, it->logical + it->length) - pos;
      p.target_offset = it->physical + (pos - it->logical);
    } else {  // a hole, or past the last extent: no physical place, keep the logical offset
      p.length = std::min(end, it != extents_.end() ? it->logical : end) - pos;
      p.target_offset = pos;
    }
    out->push_back(p);
    pos += p.length;
  }
}

std::string FiemapLayout::Describe() const {
  uint64_t bytes = 0;
  size_t runs = extents_.empty() ? 0 : 1;
  for (size_t i = 0; i < extents_.size(); ++i) {
    bytes += extents_[i].length;
    if (i > 0 && extents_[i].physical != extents_[i - 1].physical + extents_[i - 1].length) ++runs;
  }
  return Format("local file: %zu extents, %zu physically contiguous runs, %s mapped (from %s)",
                extents_.size(), runs, Bytes(bytes).c_str(), source_.c_str());
}

}  // namespace pfio
