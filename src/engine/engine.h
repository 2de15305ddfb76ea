// Engine: one pfio context. Owns the plan, the reorder buffer, the AIMD budget, the backend and
// the I/O thread, and implements every call of the public C API (src/api/pfio_api.cc only
// converts). Tests build an Engine directly to inject a backend (faults) or memory signals.
//
// Threading: the application calls from one thread at a time; the I/O thread submits queued
// reads and lands completions. Both take mu_. Every wait is bounded by timeout_ms.
// With a virtual-time backend (the simulator) there is no I/O thread: reads are submitted and
// landed inline (Pump), waits step the backend's clock, and the backend's completion hook pumps
// while the application computes. The same code decides what is issued when in both cases.
//
// Scheduling (sched/issue_policy, partition/rounds): reads queue in rounds (one per target per
// round, C-LOOK per target); a read goes out when the queue depth, its target's in-flight limit,
// the look-ahead in rounds of its bus group, the issue policy and the memory budget all allow.
// After a read is issued the next queued read of its target is staged (Backend::Stage) when
// staging is on. When the budget was cut below what the window was planned with (pipelined
// mode), landed pieces needed furthest in the future are evicted for a read that has no memory,
// only if they are needed later than it (Belady with do no harm); they are read again later.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "buffer/reorder_buffer.h"
#include "common/status.h"
#include "engine/config.h"
#include "engine/file_table.h"
#include "engine/io_driver.h"
#include "engine/read_path.h"
#include "engine/window.h"
#include "io/backend.h"
#include "layout/layout.h"
#include "memory/memory_governor.h"
#include "memory/memory_signals.h"
#include "partition/request_builder.h"
#include "pfio/pfio.h"
#include "plan/access_plan.h"
#include "sched/issue_policy.h"
#include "sched/scheduler.h"
#include "sched/stager.h"

namespace pfio {

class Engine : private ReadPath::Host {
 public:
  // backend / signals may be null: then they come from the config and from /proc.
  static Status Create(const Config &config, std::unique_ptr<Backend> backend,
                       std::unique_ptr<MemorySignals> signals, std::unique_ptr<Engine> *out);
  ~Engine();
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;

  // Stops the I/O thread (waiting, bounded, for reads in flight) and writes the stats file.
  Status Shutdown();

  Status OpenFile(const std::string &path, int32_t *id);
  Status CloseFile(int32_t id);
  Status FileSize(int32_t id, uint64_t *size);

  Status PlanAppend(const pfio_extent *extents, size_t count);
  Status PlanReplace(const pfio_extent *extents, size_t count);
  Status PlanReplaceAfterMark(const pfio_extent *extents, size_t count);
  Status PlanLastMark(pfio_extent *mark);

  Status Read(int32_t id, void *buf, uint64_t offset, uint64_t length, uint64_t *nread);
  // Reads pieces in order as Read would; stops after a short piece (end of file) or an error.
  Status ReadV(int32_t id, const pfio_read_piece *pieces, size_t count, uint64_t *nread);
  Status Release(int32_t id, uint64_t offset, uint64_t length);
  Status Ignore();
  Status Unignore();

  pfio_stats Stats();
  Status WriteStats(const std::string &path);

 private:
  // Sets the layout (null: one target) and everything sized by it: per-target state, rounds per
  // bus, the issue policy, the per-target read limit and the look-ahead in rounds.
  void UseLayout(std::unique_ptr<Layout> layout);

  using Lock = std::unique_lock<std::mutex>;

  Engine(const Config &config, std::unique_ptr<Backend> backend,
         std::unique_ptr<MemorySignals> signals, std::unique_ptr<ReorderBuffer> buffer,
         uint64_t limit);

  Status ReplaceFrom(const Extent *extents, size_t count);

  // ReadPath::Host.
  void Refill(bool force) override;
  void ConsumeFront(double stalled) override;
  void Hurry(PendingRead *read) override;
  void HurryAll() override;
  bool BatchLanded() const override;
  bool WaitUntil(Lock &lock, const std::function<bool()> &done) override;
  std::string Describe() const override;
  // Seconds: the backend's virtual clock, or the steady clock.

  void SampleSignals();
  void PruneQueue();
  void Complete(PendingRead *pr);
  void Wake();
  // Moves what may go now from queue_ to *submit (memory allocated, counted in flight) and
  // the stage calls that follow to *stage. Caller submits outside the lock (real backends).
  void IssueLocked(std::vector<IoRequest *> *submit, std::vector<StageCall> *stage);
  bool EvictFor(const PendingRead *pr);
  double Now() const override { return clock_ ? clock_->Now() : SteadySeconds(); }
  bool AllocatePieces(PendingRead *pr);
  uint64_t Held() const;  // the buffer's bytes and the bookkeeping of the window and pieces
  pfio_stats SnapshotLocked() const;

  Config cfg_;
  std::string stats_path_;
  std::unique_ptr<Backend> backend_;
  VirtualClock *clock_ = nullptr;  // the simulator's; null: steady time
  std::unique_ptr<ReorderBuffer> buffer_;
  std::unique_ptr<Layout> layout_;      // null: one target
  bool lustre_layout_pending_ = false;  // layout = lustre: read at the first OpenFile
  MemoryGovernor memory_;
  char *discard_ = nullptr;
  RequestShape shape_;

  std::mutex mu_;
  FileTable files_;
  Window window_;
  ReadPath read_path_;
  pfio_stats stats_{};

  // Scheduling.
  Scheduler scheduler_;
  Stager stager_;
  double last_consume_ = -1;

  bool shut_down_ = false;
  bool abandoned_ = false;            // shutdown timed out with reads in flight
  std::unique_ptr<IoDriver> driver_;  // last: stopped and destroyed first
};

}  // namespace pfio
