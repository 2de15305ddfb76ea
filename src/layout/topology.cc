#include "layout/topology.h"

#include <hwloc.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "common/text_file.h"

namespace pfio {

// hwloc's topology, loaded once per process and kept: loading it walks sysfs and PCI (tens of
// milliseconds), and destroying it unloads the PCI plugin, whose libpciaccess state then shows
// up as leaked.
hwloc_topology_t SharedTopology(Status *status) {
  static std::once_flag once;
  static hwloc_topology_t topo = nullptr;
  static Status load_status;
  std::call_once(once, [] {
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0) {
      load_status = Status::Io("hwloc_topology_init failed");
      return;
    }
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(t) != 0) {
      hwloc_topology_destroy(t);
      load_status = Status::Io("hwloc_topology_load failed");
      return;
    }
    topo = t;
  });
  *status = load_status;
  return topo;
}

Status DiscoverBlockDevices(std::vector<BlockDevice> *out) {
  out->clear();
  Status s;
  hwloc_topology_t topo = SharedTopology(&s);
  if (topo == nullptr) return s;
  std::map<std::string, uint32_t> groups;
  for (hwloc_obj_t o = hwloc_get_next_osdev(topo, nullptr); o; o = hwloc_get_next_osdev(topo, o)) {
    if (o->attr->osdev.type != HWLOC_OBJ_OSDEV_BLOCK) continue;
    BlockDevice d;
    d.name = o->name ? o->name : "";
    for (hwloc_obj_t p = o->parent; p; p = p->parent) {
      if (p->type == HWLOC_OBJ_PCI_DEVICE) {
        const auto &pci = p->attr->pcidev;
        d.bus_id = Format("%04x:%02x:%02x.%01x", pci.domain, pci.bus, pci.dev, pci.func);
        break;
      }
    }
    auto [it, added] = groups.emplace(d.bus_id, static_cast<uint32_t>(groups.size()));
    d.bus_group = it->second;
    out->push_back(d);
  }
  return Status::Ok();
}

Status ReadMdRaid(const std::string &dev, MdRaid *out, const std::string &sysfs_root) {
  namespace fs = std::filesystem;
  const fs::path md = fs::path(sysfs_root) / "block" / dev / "md";
  std::error_code ec;
  if (!fs::is_directory(md, ec)) {
    return Status::Invalid(
        Format("%s: not an md RAID array (no %s)", dev.c_str(), md.string().c_str()));
  }
  MdRaid r;
  r.level = ReadFirstLine((md / "level").string());
  const std::string chunk = ReadFirstLine((md / "chunk_size").string());
  const std::string disks = ReadFirstLine((md / "raid_disks").string());
  try {
    r.chunk_bytes = chunk.empty() ? 0 : std::stoull(chunk);
    r.raid_disks = disks.empty() ? 0 : static_cast<uint32_t>(std::stoul(disks));
  } catch (const std::exception &) {
    return Status::Invalid(
        Format("%s: md chunk_size = \"%s\", raid_disks = \"%s\": expected "
               "numbers",
               dev.c_str(), chunk.c_str(), disks.c_str()));
  }
  for (const auto &e :
       fs::directory_iterator(fs::path(sysfs_root) / "block" / dev / "slaves", ec)) {
    r.members.push_back(e.path().filename().string());
  }
  std::sort(r.members.begin(), r.members.end());
  *out = r;
  return Status::Ok();
}

std::string DeviceOfPath(const std::string &path) {
  namespace fs = std::filesystem;
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return "";
  const std::string sys = Format("/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
  std::error_code ec;
  fs::path real = fs::canonical(sys, ec);
  if (ec) return "";
  if (fs::exists(real / "partition")) real = real.parent_path();  // the whole disk
  return real.filename().string();
}

}  // namespace pfio
