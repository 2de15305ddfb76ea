// MemorySignals: is the machine short of memory right now, and how much more may prefetching
// take before it would be? The MemoryGovernor asks before issuing reads (at most every 10 ms) and
// at every refill. The interface lets tests drive contention; ProcMemorySignals reads Linux:
//  - the reserve: MemAvailable below `reserve_percent` of MemTotal (default 8 %), the memory the
//    kernel needs to stay away from reclaim storms and the OOM killer. Acted on before it is
//    gone, unlike a stall: growth is allowed only into the headroom above the reserve;
//  - a fast fall: MemAvailable dropping by at least 1 % of MemTotal at a rate of 10 % of
//    MemTotal per second or more (another process is taking memory; act before PSI stalls);
//  - PSI /proc/pressure/memory: "some" stall time grew by more than 10 ms since the last sample;
//  - the process's memory cgroup: v2 (memory.max, memory.current, memory.events high/max/oom/
//    oom_kill growing) and v1 (memory.limit_in_bytes, memory.usage_in_bytes, memory.oom_control
//    under_oom or a growing oom_kill); usage within the reserve of the limit is contention too.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>

namespace pfio {

class KeptFile;

struct MemorySample {
  bool contention = false;
  bool hard = false;   // below a reserve or an OOM condition, not just a stall or a fall
  std::string reason;  // which signal fired, for the AIMD history
  uint64_t headroom = UINT64_MAX;  // bytes that may still be taken before reaching a reserve
  uint64_t total = 0;              // MemTotal (0: unknown)
  uint64_t anon_and_shmem = 0;     // AnonPages + Shmem: what programs hold (0: unknown)
  uint64_t process_resident = 0;   // this process's resident memory (0: unknown)
};

class MemorySignals {
 public:
  virtual ~MemorySignals() = default;
  virtual MemorySample Sample() = 0;
};

// Where ProcMemorySignals reads; tests point these at files of their own.
struct MemorySignalSources {
  std::string psi = "/proc/pressure/memory";
  std::string meminfo = "/proc/meminfo";
  std::string cgroup_v2_dir;  // "" = not on cgroup v2
  std::string cgroup_v1_dir;  // the memory controller's directory; "" = none
  // The process's own cgroups (from /proc/self/cgroup, read once per process).
  static MemorySignalSources Own();
};

constexpr uint32_t kDefaultReservePercent = 8;

class ProcMemorySignals : public MemorySignals {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic
  explicit ProcMemorySignals(MemorySignalSources sources = MemorySignalSources::Own(),
                             uint32_t reserve_percent = kDefaultReservePercent,
                             Clock clock = nullptr);
  ~ProcMemorySignals() override;
  MemorySample Sample() override;

 private:
  // The text of `path` now, through a descriptor kept open for it (common/text_file.h): a
  // sample reads each file with one pread instead of open, read and close. The kernel's files
  // (/proc, /sys) are kept once per process for all its contexts, so that a new context opens
  // none of them (docs/small-calls.md, "The cost of an open"); others (tests' files) per object.
  std::string Text(const std::string &path);
  void SampleCgroup(MemorySample *s);

  struct Kept {
    std::unique_ptr<KeptFile> file;
    double retry_at = 0;  // after a failed read: not before this time of clock_
  };
  static constexpr double kRetryMissingSeconds = 1.0;
  std::map<std::string, Kept> kept_;

  MemorySignalSources src_;
  uint32_t reserve_percent_;
  Clock clock_;
  // The counters' growth is measured from the first sample on: a context that starts from a
  // recent sample of another (RecentSample) reads nothing at creation.
  bool sampled_ = false;
  uint64_t last_psi_total_ = 0;
  uint64_t last_v2_events_ = 0;
  uint64_t last_v1_oom_kills_ = 0;
  uint64_t last_available_ = 0;
  double last_time_ = -1;
};

// A sample of the machine's memory for `reserve_percent`, taken by `signals` now or by any
// thread of this process at most `max_age` seconds ago (its contention flags cleared: a sample
// given to another sampler's first use): what a burst of contexts, one per file opened, starts
// from (docs/small-calls.md, "The cost of an open"). Thread-safe; a forked child samples anew.
MemorySample RecentSample(MemorySignals *signals, uint32_t reserve_percent, double max_age);

// This process's resident memory in bytes (/proc/self/statm; 0 when unreadable).
uint64_t ProcessResidentBytes();

// /proc/meminfo fields in bytes (0 when missing).
uint64_t ReadMeminfoBytes(const std::string &path, const char *field);
// Several in one read of the file: fields[i] goes to *out[i] (0 when missing).
void ReadMeminfoBytes(const std::string &path, std::initializer_list<const char *> fields,
                      std::initializer_list<uint64_t *> out);

// What a cgroup allows: limit and usage in bytes (has_limit false when unlimited or unknown).
struct CgroupMemory {
  bool has_limit = false;
  uint64_t limit = 0, usage = 0;
};
CgroupMemory ReadCgroupMemory(const MemorySignalSources &src);

// The reserve for `total` bytes of memory: reserve_percent of it.
inline uint64_t Reserve(uint64_t total, uint32_t reserve_percent) {
  return total / 100 * reserve_percent;
}

// Bytes this process may use with an auto budget: MemAvailable above the reserve, lowered by
// the cgroup's limit less its usage and its own reserve.
uint64_t MemoryTheRankMayUse(uint32_t reserve_percent = kDefaultReservePercent,
                             const MemorySignalSources &src = MemorySignalSources::Own());

}  // namespace pfio
