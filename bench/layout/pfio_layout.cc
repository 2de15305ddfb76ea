// pfio-layout: prints what pfio believes about where a file's bytes live: its device and the bus
// that device hangs off (hwloc), md RAID geometry (sysfs), its physical extents (FIEMAP), and,
// given a striping description, how the file spreads over targets and bus groups.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/fs_type.h"
#include "layout/fiemap_layout.h"
#include "layout/lustre_layout.h"
#include "layout/striped_layout.h"
#include "layout/topology.h"

namespace {

const char kUsage[] = R"(usage: pfio-layout [--layout SPEC | --hints UNIT,FACTOR] [--extents N] PATH

Prints what pfio believes about where the bytes of PATH live, and where each fact came from:
  device     the block device under PATH (st_dev, sysfs) and its bus group (hwloc: devices
             behind the same PCI controller share one)
  md RAID    level, chunk size and members when the device is an md array (sysfs)
  extents    physical extents (FIEMAP), how many physically contiguous runs they form
  striping   with --layout (e.g. stripe=1MiB,targets=8,buses=2) or --hints (MPI-IO
             striping_unit,striping_factor): bytes of the file per target and bus group;
             without either, a file on Lustre reports its own (LL_IOC_LOV_GETSTRIPE)
options:
  --extents N   how many extents to list (default 8)
  --help        this text
)";

int Fail(const std::string &msg) {
  std::fprintf(stderr, "pfio-layout: %s\n", msg.c_str());
  return 1;
}

}  // namespace

int main(int argc, char **argv) {
  std::string path, spec, hints;
  size_t show = 8;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if ((a == "--layout" || a == "--hints" || a == "--extents") && i + 1 < argc) {
      std::string v = argv[++i];
      if (a == "--layout") spec = v;
      if (a == "--hints") hints = v;
      if (a == "--extents") show = std::strtoul(v.c_str(), nullptr, 10);
      continue;
    }
    if (a.rfind("--", 0) == 0) return Fail("unknown option " + a + " (see --help)");
    if (!path.empty()) return Fail("one PATH only; got " + path + " and " + a);
    path = a;
  }
  if (path.empty()) return Fail("missing PATH (see --help)");
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return Fail(path + ": " + std::strerror(errno));
  std::printf("file     %s, %llu bytes\n", path.c_str(), (unsigned long long)st.st_size);

  const std::string dev = pfio::DeviceOfPath(path);
  std::vector<pfio::BlockDevice> devs;
  pfio::Status s = pfio::DiscoverBlockDevices(&devs);
  if (!s.ok()) std::printf("device   %s (hwloc: %s)\n", dev.c_str(), s.message().c_str());
  auto describe = [&](const std::string &name) {
    for (const auto &d : devs) {
      if (d.name == name) {
        return pfio::Format("bus group %u (PCI %s)", d.bus_group,
                            d.bus_id.empty() ? "none found" : d.bus_id.c_str());
      }
    }
    return std::string("not reported by hwloc");
  };
  std::printf("device   %s: %s   [st_dev via /sys/dev/block, hwloc]\n",
              dev.empty() ? "(none)" : dev.c_str(), describe(dev).c_str());
  pfio::MdRaid md;
  if (!dev.empty() && pfio::ReadMdRaid(dev, &md).ok()) {
    std::printf("md RAID  %s, chunk %llu bytes, %u disks   [sysfs]\n", md.level.c_str(),
                (unsigned long long)md.chunk_bytes, md.raid_disks);
    for (const auto &m : md.members)
      std::printf("  member %s: %s\n", m.c_str(), describe(m).c_str());
  }

  std::unique_ptr<pfio::FiemapLayout> fl;
  s = pfio::FiemapLayout::Read(path, &fl);
  if (!s.ok()) {
    std::printf("extents  unavailable: %s\n", s.message().c_str());
  } else {
    std::printf("extents  %s   [FIEMAP]\n", fl->Describe().c_str());
    for (size_t i = 0; i < fl->extents().size() && i < show; ++i) {
      const auto &x = fl->extents()[i];
      std::printf("  logical %12llu  physical %14llu  length %12llu\n",
                  (unsigned long long)x.logical, (unsigned long long)x.physical,
                  (unsigned long long)x.length);
    }
    if (fl->extents().size() > show) std::printf("  ... %zu more\n", fl->extents().size() - show);
  }

  std::unique_ptr<pfio::StripedLayout> sl;
  if (!spec.empty()) {
    s = pfio::StripedLayout::Parse(spec, &sl);
  } else if (!hints.empty()) {
    const auto comma = hints.find(',');
    if (comma == std::string::npos) {
      return Fail("--hints = \"" + hints + "\": expected UNIT,FACTOR, e.g. 1048576,8");
    }
    s = pfio::StripedLayout::FromHints(hints.substr(0, comma), hints.substr(comma + 1), &sl);
  }
  if (!s.ok() && (!spec.empty() || !hints.empty())) return Fail(s.message());
  if (!sl) {
    // No striping given: a file on Lustre reports its own.
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    const bool lustre = fd >= 0 && pfio::OnLustre(fd);
    const std::string fs = fd >= 0 ? pfio::FsTypeName(fd) : std::string("unknown file system");
    if (fd >= 0) close(fd);
    if (!lustre) {
      std::printf("lustre   no: %s   [fstatfs]\n", fs.c_str());
    } else {
      s = pfio::ReadLustreLayout(path, &sl);
      if (!s.ok()) std::printf("lustre   striping unavailable: %s\n", s.message().c_str());
    }
  }
  if (sl) {
    std::printf("striping %s\n", sl->Describe().c_str());
    std::vector<pfio::Placement> v;
    sl->Map(0, static_cast<uint64_t>(st.st_size), &v);
    std::vector<unsigned long long> per_target(sl->targets()), per_bus(sl->buses());
    for (const auto &p : v) {
      per_target[p.target] += p.length;
      per_bus[p.bus] += p.length;
    }
    for (uint32_t t = 0; t < sl->targets(); ++t) {
      std::printf("  target %u (bus %u): %llu bytes\n", t, t % sl->buses(), per_target[t]);
    }
    for (uint32_t b = 0; b < sl->buses(); ++b) {
      std::printf("  bus group %u: %llu bytes\n", b, per_bus[b]);
    }
  }
  return 0;
}
