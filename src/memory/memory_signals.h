// MemorySignals: is the machine short of memory right now? The AIMD controller asks at every
// refill and round end. The interface lets tests drive contention; ProcMemorySignals reads Linux:
//  - PSI /proc/pressure/memory: "some" stall time grew by more than 10 ms since the last sample;
//  - /proc/meminfo MemAvailable below max(256 MiB, 2 % of MemTotal);
//  - cgroup v2 memory.events: the high, max, oom or oom_kill counters grew.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace pfio {

struct MemorySample {
  bool contention = false;
  std::string reason;  // which signal fired, for the AIMD history
};

class MemorySignals {
 public:
  virtual ~MemorySignals() = default;
  virtual MemorySample Sample() = 0;
};

class ProcMemorySignals : public MemorySignals {
 public:
  // Paths are parameters so tests can point them at files of their own.
  ProcMemorySignals(std::string psi_path = "/proc/pressure/memory",
                    std::string meminfo_path = "/proc/meminfo",
                    std::string cgroup_events_path = "");
  MemorySample Sample() override;

 private:
  uint64_t ReadPsiSomeTotal() const;
  uint64_t ReadCgroupEvents() const;

  std::string psi_path_, meminfo_path_, cgroup_events_path_;
  uint64_t last_psi_total_ = 0;
  uint64_t last_cgroup_events_ = 0;
};

// /proc/meminfo fields in bytes (0 when missing).
uint64_t ReadMeminfoBytes(const std::string &path, const char *field);

// The cgroup v2 directory of this process ("" when not on cgroup v2).
std::string OwnCgroupDir();

// Bytes this process may still use: MemAvailable, lowered by cgroup memory.max - memory.current.
uint64_t MemoryTheRankMayUse();

}  // namespace pfio
