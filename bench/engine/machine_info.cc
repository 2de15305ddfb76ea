#include "machine_info.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/text_file.h"
#include "memory/memory_signals.h"

namespace pfio::bench {

MachineInfo DescribeMachine(const std::string &data_path) {
  MachineInfo m;
  std::ifstream cpu("/proc/cpuinfo");
  for (std::string line; std::getline(cpu, line);) {
    if (line.rfind("model name", 0) == 0) {
      m.cpu = line.substr(line.find(':') + 2);
      break;
    }
  }
  m.cores = static_cast<unsigned>(sysconf(_SC_NPROCESSORS_ONLN));
  m.mem_total = ReadMeminfoBytes("/proc/meminfo", "MemTotal");
  utsname u;
  if (uname(&u) == 0) m.kernel = std::string(u.sysname) + " " + u.release;
  struct stat st;
  if (stat(data_path.c_str(), &st) == 0) {
    std::string sys = "/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" +
                      std::to_string(minor(st.st_dev));
    std::error_code ec;
    auto real = std::filesystem::canonical(sys, ec);
    if (!ec) {
      m.device = real.filename().string();
      auto queue = real / "queue";
      if (!std::filesystem::exists(queue)) queue = real.parent_path() / "queue";  // a partition
      m.device_rotational = ReadFirstLine((queue / "rotational").string());
      m.scheduler = ReadFirstLine((queue / "scheduler").string());
    }
  }
  std::ifstream mounts("/proc/mounts");
  size_t best = 0;
  std::error_code ec;
  std::string abs = std::filesystem::absolute(data_path, ec).string();
  for (std::string dev, mnt, type, rest;
       mounts >> dev >> mnt >> type && std::getline(mounts, rest);) {
    if (abs.rfind(mnt, 0) == 0 && mnt.size() >= best) {
      best = mnt.size();
      m.filesystem = type;
    }
  }
  return m;
}

}  // namespace pfio::bench
