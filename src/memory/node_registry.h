// NodeRegistry: the pfio processes of one node (MPI ranks of a job, and separate jobs) share what
// the node can give. Each process has a slot in a small shared file (by default
// /dev/shm/pfio-node-<uid>) where it records its budget, the memory it holds, its resident
// memory (RSS) and whether it is short (waiting for memory). A process's
// fair share is the memory the node could give to prefetching -- MemAvailable above the reserve,
// plus what every pfio process holds -- divided by the live processes. The MemoryGovernor clamps an
// auto budget to its fair share while a peer is short or while the budgets of all add up to more
// than the node could give (processes that started together, each sizing itself before it saw the
// others), and grows no further than it then.
//
// Robust to processes that die: updates take flock(2), which the kernel drops with the process;
// a slot whose process is gone (kill(pid, 0) fails, or its start time changed) is reused. The
// file is opened and mapped once per process (again in a forked child) for all its registries,
// each of which takes only a slot (docs/small-calls.md, "The cost of an open").
// Without a usable shared file (no /dev/shm, a full registry) every call reports "alone".
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"

namespace pfio {

struct NodeView {
  uint32_t processes = 1;        // live pfio processes on the node, this one included
  uint64_t held_by_all = 0;      // bytes every one of them holds, this one included
  uint64_t resident_of_all = 0;  // their processes' resident memory
  uint64_t budgets_of_all = 0;   // their budgets added up, this one's included
  bool peer_short = false;       // another process is waiting for memory
};

class NodeShare {
 public:
  virtual ~NodeShare() = default;
  // Records this process's state and reads everyone's.
  virtual NodeView Update(uint64_t budget, uint64_t held, uint64_t resident,
                          bool short_of_memory) = 0;
  // Leaves the node's count while the context waits for its next user (Context::Vacate), and
  // joins it again for that user.
  virtual void Leave() {}
  virtual void Rejoin() {}
};

// Every process alone (tests, the simulator, budget fixed by hand).
class AloneOnNode : public NodeShare {
 public:
  NodeView Update(uint64_t, uint64_t held, uint64_t resident, bool) override {
    NodeView v;
    v.held_by_all = held;
    v.resident_of_all = resident;
    v.budgets_of_all = 0;  // alone: nothing to share
    return v;
  }
};

class NodeRegistry : public NodeShare {
 public:
  static constexpr uint32_t kSlots = 256;
  // Opens (creating) the registry at `path` ("" = /dev/shm/pfio-node-<uid>) and takes a slot.
  // On failure the registry is inert (every Update says "alone") and status() says why.
  explicit NodeRegistry(std::string path = "");
  ~NodeRegistry() override;  // frees the slot
  NodeRegistry(const NodeRegistry &) = delete;
  NodeRegistry &operator=(const NodeRegistry &) = delete;

  NodeView Update(uint64_t budget, uint64_t held, uint64_t resident, bool short_of_memory) override;
  void Leave() override;   // frees the slot
  void Rejoin() override;  // takes one again (inert if none is free)
  bool active() const { return slot_ >= 0; }
  const Status &status() const { return status_; }
  const std::string &path() const { return path_; }

 private:
  struct Slot;
  struct Table;
  struct Mapped;
  // The process's mapping of `path`, opened, sized and mapped on first use (*mapped null on
  // failure: PFIO_EIO naming the path and the call that failed).
  static Status MappedAt(const std::string &path, Mapped **mapped);
  void Lock() const;
  void Unlock() const;
  void TakeSlot();

  std::string path_;
  Status status_;
  Mapped *mapped_ = nullptr;  // the process's mapping of path_, never freed; null: inert
  int slot_ = -1;
};

}  // namespace pfio
