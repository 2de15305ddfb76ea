// Context: one pfio context, the coordinator of its parts. It holds the lock and implements the
// public calls (src/api/pfio_api.cc only converts C types); the work is done by the parts, each
// changed only through its own methods, data flowing down this list:
//
//   FileTable      ids, handles and buffer kinds (BufferKind), reads in flight per file,
//                  extent checks
//   Window         plan -> the next budget's worth of unique bytes; sequential runs
//   PieceMapper    new ranges -> pieces split at stripes (partition/)
//   Scheduler      queue in rounds, per-target limits, issue policy (sched/)
//   Stager         LoadIntoDiskBuffer (sched/)
//   MemoryGovernor AIMD budget, pressure, bookkeeping charge, eviction choice (memory/)
//   Admission      which read may take memory now; eviction and release under pressure
//   IoDriver       submit and reap through the Backend; the one bounded wait
//   ReorderBuffer  pieces and their pages (buffer/)
//   ReadPath       one application read
//
// The public plan calls are in context_plan.cc, the files that change on disk in
// file_changes.cc. The flows between parts are the Context's (context_flow.cc): planning a window
// (Refill), issuing what the Admission lets take memory (IssueLocked), landing a completion
// (Complete), consuming a plan entry (ConsumeFront).
//
// Threading: the application calls from one thread at a time; the I/O driver's thread (real
// backends) issues and lands reads. Every member below mu_ is guarded by it: methods named
// *Locked, the ReadPath::Host methods and the driver's hooks run with it held. Every wait is
// bounded by timeout_ms. Tests build a Context directly to inject a backend (faults, the
// simulator) or memory signals.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "buffer/reorder_buffer.h"
#include "common/status.h"
#include "engine/admission.h"
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

class PageCacheBackend;

class Context : private ReadPath::Host {
 public:
  // backend / signals may be null: then they come from the config and from /proc.
  static Status Create(const Config &config, std::unique_ptr<Backend> backend,
                       std::unique_ptr<MemorySignals> signals, std::unique_ptr<Context> *out);
  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  // Stops the I/O thread (waiting, bounded, for reads in flight) and writes the stats file.
  Status Shutdown();
  // Makes the context what a new one with its settings would be to its next user, keeping what
  // is costly to make again (its threads, the buffer's reserved region, its slot on the node):
  // every file closed, the plan and its reads dropped, the stats written (stats_path) and
  // counted from zero, the front end's memory charge ended. *vacated is false where it cannot
  // (reads still in flight after timeout_ms, shut down, the Lustre layout read from its first
  // file, a simulated clock, reads ignored): Shutdown then. Returns the stats file's outcome.
  Status Vacate(bool *vacated);
  // A vacated context taken by its next user (its stats are that user's from here).
  void Occupy();
  const Config &config() const { return cfg_; }

  Status OpenFile(const FileSource &source, int32_t *id);
  Status CloseFile(int32_t id);
  Status RefreshFile(int32_t id);
  // pfio_file_check: RefreshFile when the file's version no longer vouches for what was read.
  Status CheckFile(int32_t id, bool *changed);
  Status FileSize(int32_t id, uint64_t *size);
  Status FileBuffer(int32_t id, int *page_cache);  // 1: the page-cache kind

  Status PlanAppend(const pfio_extent *extents, size_t count);
  Status PlanReplace(const pfio_extent *extents, size_t count);
  Status PlanReplaceAfterMark(const pfio_extent *extents, size_t count);
  Status PlanLastMark(pfio_extent *mark);
  Status PlanReadahead(const pfio_extent *ranges, size_t count);
  Status AdviseNow(const pfio_extent *ranges, size_t count);

  Status Read(int32_t id, void *buf, uint64_t offset, uint64_t length, uint64_t *nread);
  // Reads pieces in order as Read would; stops after a short piece (end of file) or an error.
  Status ReadV(int32_t id, const pfio_read_piece *pieces, size_t count, uint64_t *nread);
  // The caller read the range itself (page-cache kind): the plan moves, nothing is read.
  Status ReadDone(int32_t id, uint64_t offset, uint64_t length, uint64_t *nread);
  Status Release(int32_t id, uint64_t offset, uint64_t length);
  Status ChargeMemory(uint64_t bytes);
  uint64_t MemoryCap();     // the budget's cap (fixed at creation)
  uint64_t MemoryBudget();  // the budget now (AIMD moves it under the cap)
  Status Ignore();
  Status Unignore();

  pfio_stats Stats();
  Status WriteStats(const std::string &path);

 private:
  // buffer = auto: opens `path` in the kind buffer_rule.h chooses for it.
  Status OpenByRule(const FileSource &source, FileHandle *h);
  using Lock = std::unique_lock<std::mutex>;

  // page_cache: `backend` itself when it is the PageCacheBackend Create wrapped around the
  // device's backend; null on the simulator.
  Context(const Config &config, std::unique_ptr<Backend> backend, PageCacheBackend *page_cache,
          std::unique_ptr<MemorySignals> signals, std::unique_ptr<NodeShare> node,
          std::unique_ptr<ReorderBuffer> buffer, uint64_t limit, const MemorySample *first);

  // Sets the layout (null: one target) and everything sized by it: per-target state, rounds per
  // bus, the issue policy, the per-target read limit and the look-ahead in rounds.
  void UseLayout(std::unique_ptr<Layout> layout);
  // Replaces the plan from its front with `extents` (checked), unless the new plan would hold
  // more than half the budget; ReplaceChecked does the replacing.
  Status ReplaceFrom(const pfio_extent *extents, size_t count);
  Status ReplaceChecked(const pfio_extent *extents, size_t count);
  // PFIO_ENOMEM (naming sizes) when the plan holds more than half the budget cap in memory.
  Status CheckPlanSize(size_t added) const;
  pfio_stats SnapshotLocked() const;
  Status WriteStatsPathLocked();
  // Drops the plan and waits (timeout_ms) for the reads in flight; false if they outlast it.
  bool DrainLocked(Lock &lock);
  Status DropFileLocked(Lock &lock, int32_t id, const char *doing);
  // RefreshFile and CheckFile with the lock held: the file's prefetched bytes and plan dropped
  // (as DropFileLocked), its size and version read again.
  Status RefreshLocked(Lock &lock, int32_t id, const char *doing);

  // ReadPath::Host (lock held).
  void Refill(bool force) override;
  void ConsumeFront(double stalled) override;
  void Hurry(PendingRead *read) override;
  void HurryAll() override;
  bool BatchLanded() const override;
  bool WaitUntil(Lock &lock, const std::function<bool()> &done) override;
  std::string Describe() const override;
  // Seconds: the backend's virtual clock, or the steady clock.
  double Now() const override { return clock_ ? clock_->Now() : SteadySeconds(); }

  // Read, ReadV, ReadDone: the lock, files changed on disk looked at (file_changes.cc), then
  // `read` with the lock held; *nread is 0 when the look fails.
  template <class ReadFn>
  Status Reading(uint64_t *nread, ReadFn read);

  // The flows (context_flow.cc; lock held).
  void PruneQueue();
  void Wake();
  // Moves what may go now to *submit (memory taken through the Admission, counted in flight)
  // and the stage calls that follow to *stage. The driver submits them (outside the lock on
  // real backends).
  void IssueLocked(std::vector<IoRequest *> *submit, std::vector<StageCall> *stage);
  void Complete(PendingRead *pr);

  // Files that changed on disk (file_changes.cc). Before a read: with revalidate, compares every
  // open file's version (size, mtime, ctime) with what was seen; then every changed file (seen
  // so, or marked by a short direct read) gets its size read again and the prefetched bytes of
  // the context are dropped and the plan kept, so its reads are issued again, after the change.
  Status RevalidateIfDue(Lock &lock);
  Status ReplanAfterChange(Lock &lock);

  // Constant after construction.
  const Config cfg_;
  std::string stats_path_;
  std::unique_ptr<Backend> backend_;
  PageCacheBackend *cache_backend_ = nullptr;  // backend_ itself on real devices; null on sim
  VirtualClock *clock_ = nullptr;              // the simulator's; null: steady time
  std::unique_ptr<ReorderBuffer> buffer_;
  char *discard_ = nullptr;  // where infill gap bytes land
  RequestShape shape_;

  std::mutex mu_;
  // Guarded by mu_.
  std::unique_ptr<Layout> layout_;      // null: one target
  bool lustre_layout_pending_ = false;  // layout = lustre: read at the first OpenFile
  MemoryGovernor memory_;
  FileTable files_;
  Window window_;
  ReadPath read_path_;
  Scheduler scheduler_;
  Stager stager_;
  pfio_stats stats_{};
  Admission admission_{
      {&cfg_, &memory_, buffer_.get(), &window_, &scheduler_, &files_, &shape_, &stats_}};
  double last_consume_ = -1;
  double gap_expansion_ = 1;  // charged / planned bytes of the last window's reads (cache kind)
  // The window's unread bytes when Refill last planned it to the plan's end (cache kind); none
  // when it stopped short of it
  uint64_t batch_unread_ = UINT64_MAX;
  bool shut_down_ = false;
  bool abandoned_ = false;        // shutdown timed out with reads in flight
  bool vacant_ = false;           // vacated and not yet occupied: its stats were written
  bool drain_timed_out_ = false;  // Vacate waited timeout_ms already: Shutdown does not again
  pfio_stats counted_before_{};   // counters kept outside stats_ at the last Vacate

  std::unique_ptr<IoDriver> driver_;  // last: stopped and destroyed first
};

}  // namespace pfio
