// Topology: the block devices of this machine and the bus each hangs off (hwloc: a block
// device's PCI parent; devices behind one PCI controller share its bus, Barve et al.), plus md
// RAID geometry from sysfs. Used to group targets into bus groups for rounds-aware scheduling.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace pfio {

struct BlockDevice {
  std::string name;        // e.g. "vda", "nvme0n1"
  std::string bus_id;      // PCI address of the controller, "" when hwloc finds none
  uint32_t bus_group = 0;  // devices with the same bus_id share a group
};

// Every block device hwloc reports, grouped by PCI parent.
Status DiscoverBlockDevices(std::vector<BlockDevice> *out);

struct MdRaid {
  std::string level;  // "raid0", "raid5", ...
  uint64_t chunk_bytes = 0;
  uint32_t raid_disks = 0;
  std::vector<std::string> members;  // component devices, from slaves/
};

// Reads /sys/block/<dev>/md (sysfs_root lets tests use a directory of their own).
// PFIO_EINVAL names the device when it is not an md array.
Status ReadMdRaid(const std::string &dev, MdRaid *out, const std::string &sysfs_root = "/sys");

// The block device (kernel name, whole disk) that holds `path`, from its st_dev; "" if none.
std::string DeviceOfPath(const std::string &path);

}  // namespace pfio
