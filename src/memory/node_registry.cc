#include "memory/node_registry.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "common/per_process.h"
#include "common/status.h"

namespace pfio {

namespace {
constexpr uint64_t kMagic = 0x70666e6f64653032ull;  // "pfnode02" (01 had no resident field)

// The start time of process `pid` in clock ticks since boot (field 22 of /proc/pid/stat), 0
// when the process does not exist. With the pid it names one process, even after pid reuse.
uint64_t StartTime(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return 0;
  const size_t close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::istringstream rest(text.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 22) return std::stoull(field);
  }
  return 0;
}

bool Alive(pid_t pid, uint64_t start) {
  if (pid <= 0) return false;
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  return StartTime(pid) == start;
}
}  // namespace

struct NodeRegistry::Slot {
  int32_t pid;
  uint32_t short_of_memory;
  uint64_t start_time;
  uint64_t budget;
  uint64_t held;
  uint64_t resident;
};

struct NodeRegistry::Table {
  uint64_t magic;
  uint64_t slots;
  Slot slot[kSlots];
};

// A registry file as this process has it open and mapped. `mu` orders the process's own
// registries (a flock belongs to the open file description, which they share); flock orders
// the processes.
struct NodeRegistry::Mapped {
  std::mutex mu;
  pid_t owner = 0;
  int fd = -1;
  Table *table = nullptr;
};

Status NodeRegistry::MappedAt(const std::string &path, Mapped **mapped) {
  static auto *guard = new std::mutex;  // outlive exit: registries may close until then
  static auto *all = new std::map<std::string, Mapped *>;
  std::lock_guard<std::mutex> lock(*guard);
  *mapped = nullptr;
  Mapped *&m = (*all)[path];
  const pid_t me = getpid();
  if (m != nullptr && m->owner == me && m->table != nullptr) {
    *mapped = m;
    return Status::Ok();
  }
  // In a forked child the parent's mapping stays for the registries made before the fork.
  static auto *parents = new std::vector<Mapped *>;
  if (m != nullptr && m->owner != me) parents->push_back(m);
  if (m == nullptr || m->owner != me) m = new Mapped;
  m->owner = me;
  m->fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (m->fd < 0)
    return Status::Io(
        Format("node registry %s: open failed: %s", path.c_str(), std::strerror(errno)));
  while (flock(m->fd, LOCK_EX) != 0 && errno == EINTR) {
  }
  struct stat st;
  void *p = MAP_FAILED;
  Status why;
  if (fstat(m->fd, &st) == 0 && static_cast<size_t>(st.st_size) < sizeof(Table) &&
      ftruncate(m->fd, sizeof(Table)) != 0) {
    why = Status::Io(
        Format("node registry %s: cannot size it: %s", path.c_str(), std::strerror(errno)));
  } else {
    p = mmap(nullptr, sizeof(Table), PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
    if (p == MAP_FAILED)
      why = Status::Io(
          Format("node registry %s: mmap failed: %s", path.c_str(), std::strerror(errno)));
  }
  if (p != MAP_FAILED) {
    m->table = static_cast<Table *>(p);
    if (m->table->magic != kMagic) {  // new (zero-filled) or foreign: start clean
      std::memset(m->table, 0, sizeof(Table));
      m->table->magic = kMagic;
      m->table->slots = kSlots;
    }
  }
  flock(m->fd, LOCK_UN);
  if (m->table == nullptr) {  // tried again by the next registry
    close(m->fd);
    m->fd = -1;
    return why;
  }
  *mapped = m;
  return Status::Ok();
}

NodeRegistry::NodeRegistry(std::string path) : path_(std::move(path)) {
  if (path_.empty()) path_ = "/dev/shm/pfio-node-" + std::to_string(getuid());
  status_ = MappedAt(path_, &mapped_);
  if (!status_.ok()) return;
  TakeSlot();
}

void NodeRegistry::TakeSlot() {
  Lock();
  const pid_t me = getpid();
  static PerProcess<uint64_t> *my_start = new PerProcess<uint64_t>;  // outlives exit
  const uint64_t start = my_start->Get([me] { return StartTime(me); });
  // A free slot first; a dead process's slot only when none is free (its liveness costs a read
  // of /proc per slot, and Update clears such slots anyway).
  for (int pass = 0; pass < 2 && slot_ < 0; ++pass) {
    for (uint32_t i = 0; i < kSlots && slot_ < 0; ++i) {
      Slot &s = mapped_->table->slot[i];
      if (s.pid != 0 && (pass == 0 || Alive(s.pid, s.start_time))) continue;
      s = Slot{me, 0, start, 0, 0, 0};
      slot_ = static_cast<int>(i);
    }
  }
  status_ =
      slot_ >= 0
          ? Status::Ok()
          : Status::State(Format("node registry %s: all %u slots taken", path_.c_str(), kSlots));
  Unlock();
}

NodeRegistry::~NodeRegistry() {
  Leave();
}

void NodeRegistry::Leave() {
  // a registry destroyed in a forked child frees nothing of the parent's mapping's slot
  if (slot_ >= 0 && mapped_->owner == getpid()) {
    Lock();
    mapped_->table->slot[slot_] = Slot{};
    Unlock();
  }
  slot_ = -1;
}

void NodeRegistry::Rejoin() {
  if (mapped_ != nullptr && slot_ < 0) TakeSlot();
}

void NodeRegistry::Lock() const {
  mapped_->mu.lock();
  while (flock(mapped_->fd, LOCK_EX) != 0 && errno == EINTR) {
  }
}

void NodeRegistry::Unlock() const {
  flock(mapped_->fd, LOCK_UN);
  mapped_->mu.unlock();
}

NodeView NodeRegistry::Update(uint64_t budget, uint64_t held, uint64_t resident,
                              bool short_of_memory) {
  NodeView v;
  v.held_by_all = held;
  v.resident_of_all = resident;
  v.budgets_of_all = budget;
  if (slot_ < 0) return v;
  // kill(pid, 0) every time; the start time (pid reuse) at most once a second per process (its
  // contexts each have a registry, one per file open)
  static std::atomic<int64_t> last_full_check{0};
  const int64_t now = static_cast<int64_t>(time(nullptr));
  const bool full = last_full_check.exchange(now, std::memory_order_relaxed) != now;
  Lock();
  Slot &mine = mapped_->table->slot[slot_];
  mine.budget = budget;
  mine.held = held;
  mine.resident = resident;
  mine.short_of_memory = short_of_memory ? 1 : 0;
  for (uint32_t i = 0; i < kSlots; ++i) {
    Slot &s = mapped_->table->slot[i];
    if (static_cast<int>(i) == slot_ || s.pid == 0) continue;
    const bool gone =
        (kill(s.pid, 0) != 0 && errno == ESRCH) || (full && StartTime(s.pid) != s.start_time);
    if (gone) {  // died without leaving: its memory went with it
      s = Slot{};
      continue;
    }
    ++v.processes;
    v.held_by_all += s.held;
    v.resident_of_all += s.resident;
    v.budgets_of_all += s.budget;
    v.peer_short = v.peer_short || s.short_of_memory != 0;
  }
  Unlock();
  return v;
}

}  // namespace pfio
