#include "memory/memory_signals.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/status.h"

namespace pfio {

namespace {
constexpr uint64_t kPsiStallUs = 10000;  // 10 ms of new stall between samples
constexpr uint64_t kMiB = 1024 * 1024;

uint64_t ReadNumberFile(const std::string &path, bool *ok) {
  std::ifstream in(path);
  std::string s;
  *ok = static_cast<bool>(in >> s) && s != "max";
  return *ok ? std::stoull(s) : 0;
}
}  // namespace

uint64_t ReadMeminfoBytes(const std::string &path, const char *field) {
  std::ifstream in(path);
  std::string line;
  const size_t n = std::strlen(field);
  while (std::getline(in, line)) {
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':') {
      return std::stoull(line.substr(n + 1)) * 1024;  // values are kB
    }
  }
  return 0;
}

std::string OwnCgroupDir() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("0::", 0) == 0) return "/sys/fs/cgroup" + line.substr(3);
  }
  return "";
}

uint64_t MemoryTheRankMayUse() {
  uint64_t avail = ReadMeminfoBytes("/proc/meminfo", "MemAvailable");
  std::string dir = OwnCgroupDir();
  if (!dir.empty()) {
    bool has_max = false, has_cur = false;
    uint64_t max = ReadNumberFile(dir + "/memory.max", &has_max);
    uint64_t cur = ReadNumberFile(dir + "/memory.current", &has_cur);
    if (has_max && has_cur) avail = std::min(avail, max > cur ? max - cur : 0);
  }
  return avail;
}

ProcMemorySignals::ProcMemorySignals(std::string psi_path, std::string meminfo_path,
                                     std::string cgroup_events_path)
    : psi_path_(std::move(psi_path)),
      meminfo_path_(std::move(meminfo_path)),
      cgroup_events_path_(std::move(cgroup_events_path)) {
  if (cgroup_events_path_.empty()) {
    std::string dir = OwnCgroupDir();
    if (!dir.empty()) cgroup_events_path_ = dir + "/memory.events";
  }
  last_psi_total_ = ReadPsiSomeTotal();
  last_cgroup_events_ = ReadCgroupEvents();
}

uint64_t ProcMemorySignals::ReadPsiSomeTotal() const {
  std::ifstream in(psi_path_);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("some", 0) != 0) continue;
    auto pos = line.find("total=");
    if (pos != std::string::npos) return std::stoull(line.substr(pos + 6));
  }
  return 0;
}

uint64_t ProcMemorySignals::ReadCgroupEvents() const {
  if (cgroup_events_path_.empty()) return 0;
  std::ifstream in(cgroup_events_path_);
  std::string key;
  uint64_t value, sum = 0;
  while (in >> key >> value) {
    if (key == "high" || key == "max" || key == "oom" || key == "oom_kill") sum += value;
  }
  return sum;
}

MemorySample ProcMemorySignals::Sample() {
  MemorySample s;
  uint64_t psi = ReadPsiSomeTotal();
  if (psi > last_psi_total_ + kPsiStallUs) {
    s.contention = true;
    s.reason =
        Format("psi: memory stall grew %llu us", (unsigned long long)(psi - last_psi_total_));
  }
  last_psi_total_ = psi;
  uint64_t events = ReadCgroupEvents();
  if (events > last_cgroup_events_) {
    s.contention = true;
    s.reason = Format("cgroup memory.events: %llu new high/max/oom events",
                      (unsigned long long)(events - last_cgroup_events_));
  }
  last_cgroup_events_ = events;
  uint64_t total = ReadMeminfoBytes(meminfo_path_, "MemTotal");
  uint64_t avail = ReadMeminfoBytes(meminfo_path_, "MemAvailable");
  if (total > 0 && avail < std::max<uint64_t>(256 * kMiB, total / 50)) {
    s.contention = true;
    s.reason =
        Format("MemAvailable %s is below max(256 MiB, 2 %% of MemTotal)", Bytes(avail).c_str());
  }
  return s;
}

}  // namespace pfio
