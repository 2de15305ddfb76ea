// Layout: where the bytes of a file live. Maps a file range to the storage targets that hold it
// (disk, stripe target, Lustre OST), the position on each target, and the bus group the target
// shares with others (Barve et al.: disks on one bus are served in rounds). A range is split at
// every stripe or extent boundary, so each Placement lies on exactly one target.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pfio {

struct Placement {
  uint64_t file_offset = 0;
  uint64_t length = 0;
  uint32_t target = 0;
  uint32_t bus = 0;
  uint64_t target_offset = 0;  // position on the target (physical byte for FIEMAP layouts)
};

class Layout {
 public:
  virtual ~Layout() = default;
  virtual uint32_t targets() const = 0;
  virtual uint32_t buses() const = 0;
  // Appends the placements of [offset, offset + length), in file order.
  virtual void Map(uint64_t offset, uint64_t length, std::vector<Placement> *out) const = 0;
  // One line saying what the layout is and where it came from.
  virtual std::string Describe() const = 0;
};

}  // namespace pfio
