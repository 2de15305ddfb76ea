// FiemapLayout: a local file's physical extents (FS_IOC_FIEMAP), so a plan can be sorted by where
// the bytes really are on a fragmented file (the mapping libprefetch §4.7 wished for). One target
// (the device); target_offset is the physical byte. Ranges with no physical place yet (holes,
// delayed allocation) map to their logical offset and are counted as unmapped.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "layout/layout.h"

namespace pfio {

struct PhysicalExtent {
  uint64_t logical = 0;
  uint64_t physical = 0;
  uint64_t length = 0;
};

class FiemapLayout : public Layout {
 public:
  // Reads the extents of `path`; PFIO_EIO names the path when the file system has no FIEMAP.
  static Status Read(const std::string &path, std::unique_ptr<FiemapLayout> *out);
  // From a known extent list (sorted by logical offset, not overlapping).
  FiemapLayout(std::vector<PhysicalExtent> extents, std::string source)
      : extents_(std::move(extents)), source_(std::move(source)) {}

  uint32_t targets() const override { return 1; }
  uint32_t buses() const override { return 1; }
  void Map(uint64_t offset, uint64_t length, std::vector<Placement> *out) const override;
  std::string Describe() const override;
  const std::vector<PhysicalExtent> &extents() const { return extents_; }

 private:
  std::vector<PhysicalExtent> extents_;
  std::string source_;
};

}  // namespace pfio
