#include "memory/memory_signals.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "common/per_process.h"
#include "common/status.h"
#include "common/text_file.h"

namespace pfio {

namespace {
constexpr uint64_t kPsiStallUs = 10000;  // 10 ms of new stall between samples
// A fall of MemAvailable counts when it is at least 1 % of MemTotal, at 10 % of MemTotal per
// second or faster, between samples at most a second apart.
constexpr uint64_t kFallMinPercent = 1;
constexpr double kFallRatePercentPerSecond = 10;
constexpr double kFallWindowSeconds = 1.0;
// cgroup v1 writes "no limit" as a number near 2^63.
constexpr uint64_t kUnlimited = 1ull << 60;

// The whole text of `path`, read once ("" when unreadable).
std::string TextOf(const std::string &path) {
  KeptFile f(path);
  std::string text;
  f.Read(&text);
  return text;
}

// A file that holds one number ("max", empty or anything else: not ok).
uint64_t NumberIn(const std::string &text, bool *ok) {
  std::istringstream in(text);
  std::string s;
  *ok = static_cast<bool>(in >> s) && s != "max" && !s.empty() &&
        s.find_first_not_of("0123456789") == std::string::npos;
  return *ok ? std::stoull(s) : 0;
}

// "key value" lines (memory.events, memory.oom_control): the value of `key`, 0 when missing.
uint64_t KeyedValueIn(const std::string &text, const char *key) {
  std::istringstream in(text);
  std::string k;
  uint64_t v;
  while (in >> k >> v) {
    if (k == key) return v;
  }
  return 0;
}

// The sum of several keys' values in "key value" lines.
uint64_t KeyedSumIn(const std::string &text, std::initializer_list<const char *> keys) {
  uint64_t sum = 0;
  for (const char *k : keys) sum += KeyedValueIn(text, k);
  return sum;
}

// The "some" line's total= of a PSI file (0 when missing).
uint64_t PsiSomeTotalIn(const std::string &text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("some", 0) != 0) continue;
    auto pos = line.find("total=");
    if (pos != std::string::npos) return std::stoull(line.substr(pos + 6));
  }
  return 0;
}

// /proc/meminfo's `fields` (kB) in bytes into *out[i] (0 when missing).
void MeminfoIn(const std::string &text, std::initializer_list<const char *> fields,
               std::initializer_list<uint64_t *> out) {
  for (uint64_t *o : out) *o = 0;
  std::istringstream in(text);
  std::string line;
  size_t found = 0;
  while (found < fields.size() && std::getline(in, line)) {
    auto o = out.begin();
    for (const char *field : fields) {
      const size_t n = std::strlen(field);
      if (o != out.end() && line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':') {
        **o = std::stoull(line.substr(n + 1)) * 1024;  // values are kB
        ++found;
      }
      if (o != out.end()) ++o;
    }
  }
}

// The cgroup's limit and usage, each file's text from `text_of`.
CgroupMemory CgroupMemoryWith(const MemorySignalSources &src,
                              const std::function<std::string(const std::string &)> &text_of) {
  CgroupMemory m;
  bool has_limit = false, has_usage = false;
  if (!src.cgroup_v2_dir.empty()) {
    m.limit = NumberIn(text_of(src.cgroup_v2_dir + "/memory.max"), &has_limit);
    m.usage = NumberIn(text_of(src.cgroup_v2_dir + "/memory.current"), &has_usage);
  }
  if (!(has_limit && has_usage) && !src.cgroup_v1_dir.empty()) {
    m.limit = NumberIn(text_of(src.cgroup_v1_dir + "/memory.limit_in_bytes"), &has_limit);
    m.usage = NumberIn(text_of(src.cgroup_v1_dir + "/memory.usage_in_bytes"), &has_usage);
  }
  m.has_limit = has_limit && has_usage && m.limit < kUnlimited;
  return m;
}

bool IsDir(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

uint64_t ReadMeminfoBytes(const std::string &path, const char *field) {
  uint64_t v = 0;
  MeminfoIn(TextOf(path), {field}, {&v});
  return v;
}

void ReadMeminfoBytes(const std::string &path, std::initializer_list<const char *> fields,
                      std::initializer_list<uint64_t *> out) {
  MeminfoIn(TextOf(path), fields, out);
}

namespace {
MemorySignalSources OwnFromProc() {
  MemorySignalSources src;
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    // "0::/path" is cgroup v2; "N:a,memory,b:/path" is v1's memory controller.
    const size_t c1 = line.find(':'), c2 = c1 == std::string::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string::npos) continue;
    const std::string controllers = line.substr(c1 + 1, c2 - c1 - 1), path = line.substr(c2 + 1);
    if (line.compare(0, 3, "0::") == 0) {
      // unified hierarchy at /sys/fs/cgroup, or (hybrid) at /sys/fs/cgroup/unified; only with
      // the memory controller there (a hybrid one often has none: its files would be missing)
      for (const char *root : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
        std::ifstream probe(std::string(root) + "/cgroup.controllers");
        struct stat st;
        if (probe && IsDir(root + path) &&
            stat((root + path + "/memory.current").c_str(), &st) == 0) {
          src.cgroup_v2_dir = root + path;
          break;
        }
      }
      continue;
    }
    std::stringstream names(controllers);
    std::string name;
    while (std::getline(names, name, ',')) {
      if (name != "memory") continue;
      // inside a container the path may not be visible: its root is the process's cgroup
      const std::string full = "/sys/fs/cgroup/memory" + path;
      src.cgroup_v1_dir = IsDir(full) ? full : "/sys/fs/cgroup/memory";
    }
  }
  return src;
}
}  // namespace

MemorySignalSources MemorySignalSources::Own() {
  static auto *own = new PerProcess<MemorySignalSources>;  // outlives exit
  return own->Get(OwnFromProc);
}

CgroupMemory ReadCgroupMemory(const MemorySignalSources &src) {
  return CgroupMemoryWith(src, TextOf);
}

uint64_t MemoryTheRankMayUse(uint32_t reserve_percent, const MemorySignalSources &src) {
  uint64_t total = 0, avail = 0;
  ReadMeminfoBytes(src.meminfo, {"MemTotal", "MemAvailable"}, {&total, &avail});
  const uint64_t reserve = Reserve(total, reserve_percent);
  uint64_t may = avail > reserve ? avail - reserve : 0;
  const CgroupMemory cg = ReadCgroupMemory(src);
  if (cg.has_limit) {
    const uint64_t room = cg.limit > cg.usage ? cg.limit - cg.usage : 0;
    const uint64_t cg_reserve = Reserve(cg.limit, reserve_percent);
    may = std::min(may, room > cg_reserve ? room - cg_reserve : 0);
  }
  return may;
}

ProcMemorySignals::ProcMemorySignals(MemorySignalSources sources, uint32_t reserve_percent,
                                     Clock clock)
    : src_(std::move(sources)),
      reserve_percent_(reserve_percent),
      clock_(clock ? std::move(clock) : Clock(SteadySeconds)) {}

ProcMemorySignals::~ProcMemorySignals() = default;

namespace {
// The kernel files the process's contexts sample, one descriptor each for the process. Never
// destroyed: contexts may sample until the process exits.
struct ProcessKeptFiles {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<KeptFile>> files;
};

bool ReadKeptForProcess(const std::string &path, std::string *text) {
  static auto *kept = new ProcessKeptFiles;
  std::lock_guard<std::mutex> lock(kept->mu);
  std::unique_ptr<KeptFile> &f = kept->files[path];
  if (!f) f = std::make_unique<KeptFile>(path);
  return f->Read(text);  // a forked child's read reopens (KeptFile)
}

bool KernelFile(const std::string &path) {
  return path.rfind("/proc/", 0) == 0 || path.rfind("/sys/", 0) == 0;
}
}  // namespace

std::string ProcMemorySignals::Text(const std::string &path) {
  Kept &k = kept_[path];
  std::string text;
  const double now = clock_();
  // A file that could not be opened (a cgroup file the hierarchy does not have: most samples
  // of a run here opened two such files in vain) is tried again a second later.
  if (now < k.retry_at) return text;
  bool read;
  if (KernelFile(path)) {
    read = ReadKeptForProcess(path, &text);
  } else {
    if (!k.file) k.file = std::make_unique<KeptFile>(path);
    read = k.file->Read(&text);
  }
  if (!read) k.retry_at = now + kRetryMissingSeconds;
  return text;
}

void ProcMemorySignals::SampleCgroup(MemorySample *s) {
  if (!src_.cgroup_v2_dir.empty()) {
    const uint64_t events =
        KeyedSumIn(Text(src_.cgroup_v2_dir + "/memory.events"), {"high", "max", "oom", "oom_kill"});
    if (sampled_ && events > last_v2_events_) {
      s->contention = s->hard = true;
      s->reason = Format("cgroup memory.events: %llu new high/max/oom events",
                         (unsigned long long)(events - last_v2_events_));
    }
    last_v2_events_ = events;
  }
  if (!src_.cgroup_v1_dir.empty()) {
    const std::string oom = Text(src_.cgroup_v1_dir + "/memory.oom_control");
    const uint64_t kills = KeyedValueIn(oom, "oom_kill");
    if (KeyedValueIn(oom, "under_oom") > 0 || (sampled_ && kills > last_v1_oom_kills_)) {
      s->contention = s->hard = true;
      s->reason = Format("cgroup v1 memory.oom_control: under_oom, or %llu new OOM kills",
                         (unsigned long long)(kills - std::min(kills, last_v1_oom_kills_)));
    }
    last_v1_oom_kills_ = kills;
  }
  const CgroupMemory cg =
      CgroupMemoryWith(src_, [this](const std::string &path) { return Text(path); });
  if (!cg.has_limit) return;
  const uint64_t room = cg.limit > cg.usage ? cg.limit - cg.usage : 0;
  const uint64_t reserve = Reserve(cg.limit, reserve_percent_);
  s->headroom = std::min(s->headroom, room > reserve ? room - reserve : 0);
  if (room < reserve) {
    s->contention = s->hard = true;
    s->reason = Format("cgroup usage %s of its limit %s leaves less than the reserve %s (%u %%)",
                       Bytes(cg.usage).c_str(), Bytes(cg.limit).c_str(), Bytes(reserve).c_str(),
                       reserve_percent_);
  }
}

MemorySample RecentSample(MemorySignals *signals, uint32_t reserve_percent, double max_age) {
  struct Recent {
    std::mutex mu;
    pid_t owner = 0;
    uint32_t reserve_percent = 0;
    double at = 0;
    MemorySample sample;
  };
  static auto *recent = new Recent;  // outlives exit: contexts may be created until then
  const double now = SteadySeconds();
  std::lock_guard<std::mutex> lock(recent->mu);
  if (recent->owner != getpid() || recent->reserve_percent != reserve_percent ||
      now - recent->at > max_age) {
    recent->sample = signals->Sample();
    recent->sample.contention = recent->sample.hard = false;
    recent->sample.reason.clear();
    recent->owner = getpid();
    recent->reserve_percent = reserve_percent;
    recent->at = now;
  }
  return recent->sample;
}

uint64_t ResidentBytesIn(const std::string &statm) {
  unsigned long long size = 0, resident = 0;
  const int got = std::sscanf(statm.c_str(), "%llu %llu", &size, &resident);
  return got == 2 ? resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

uint64_t ProcessResidentBytes() {
  return ResidentBytesIn(TextOf("/proc/self/statm"));
}

MemorySample ProcMemorySignals::Sample() {
  MemorySample s;
  const double now = clock_();
  const uint64_t psi = PsiSomeTotalIn(Text(src_.psi));
  if (sampled_ && psi > last_psi_total_ + kPsiStallUs) {
    s.contention = true;
    s.reason =
        Format("psi: memory stall grew %llu us", (unsigned long long)(psi - last_psi_total_));
  }
  last_psi_total_ = psi;

  uint64_t total = 0, avail = 0, anon = 0, shmem = 0;
  MeminfoIn(Text(src_.meminfo), {"MemTotal", "MemAvailable", "AnonPages", "Shmem"},
            {&total, &avail, &anon, &shmem});
  if (total > 0) {
    s.total = total;
    s.anon_and_shmem = anon + shmem;
    s.process_resident = ResidentBytesIn(Text("/proc/self/statm"));
    const uint64_t reserve = Reserve(total, reserve_percent_);
    s.headroom = avail > reserve ? avail - reserve : 0;
    const double dt = now - last_time_;
    if (last_time_ >= 0 && dt > 0 && dt <= kFallWindowSeconds && last_available_ > avail) {
      const uint64_t fall = last_available_ - avail;
      const double rate = static_cast<double>(fall) / dt;
      if (fall >= total / 100 * kFallMinPercent &&
          rate >= static_cast<double>(total) / 100 * kFallRatePercentPerSecond) {
        s.contention = true;
        s.reason =
            Format("MemAvailable fell %s in %.0f ms (%s/s): memory is being taken",
                   Bytes(fall).c_str(), dt * 1000, Bytes(static_cast<uint64_t>(rate)).c_str());
      }
    }
    if (avail < reserve) {
      s.contention = s.hard = true;
      s.reason = Format("MemAvailable %s is below the reserve %s (%u %% of MemTotal)",
                        Bytes(avail).c_str(), Bytes(reserve).c_str(), reserve_percent_);
    }
    last_available_ = avail;
    last_time_ = now;
  }
  SampleCgroup(&s);
  sampled_ = true;
  return s;
}

}  // namespace pfio
