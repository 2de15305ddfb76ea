// Admission: which prefetch read may take memory now, and memory given back under pressure; the
// engine's side of the MemoryGovernor (which decides budgets from the signals) for the reads the
// Scheduler would issue.
//
// Contract. Held() is what the context holds against its budget: the reorder buffer's pages and
// the page-cache kind's charged bytes, the bookkeeping of the window and its pieces, the page
// indexes, the plan, and what the caller charged (pfio_memory_charge). Admit(read) takes the
// read's memory (its pieces' pages, or their charge in the page cache with the gaps advised
// with them) when it fits the budget; after a budget cut, or when the application waits for the
// read while the node is short, Belady's victims (the landed pieces needed furthest ahead, never
// one needed before the read) are evicted to make room and their reads queued again; a read the
// application waits for goes even above a budget just cut, so a cut never stalls progress.
// Otherwise it returns false and the governor waits for that many bytes. Sample() reads the
// memory signals when due (at most every MemoryGovernor::kSampleEvery), and after a cut brings
// what is held down to the new budget at once. Issued/Landed count the pages taken by reads in
// flight. Batch windows are fetched whole by design: nothing is evicted from them.
// Guarded by the context's mutex: every method is called with it held.
#pragma once

#include <cstdint>
#include <functional>

#include "buffer/reorder_buffer.h"
#include "engine/config.h"
#include "engine/file_table.h"
#include "engine/window.h"
#include "memory/memory_governor.h"
#include "partition/request_builder.h"
#include "pfio/pfio.h"
#include "sched/scheduler.h"

namespace pfio {

class Admission {
 public:
  struct Parts {
    const Config *config;
    MemoryGovernor *memory;
    ReorderBuffer *buffer;
    const Window *window;
    Scheduler *scheduler;
    const FileTable *files;
    const RequestShape *shape;
    pfio_stats *stats;
  };
  explicit Admission(const Parts &parts) : p_(parts) {}

  uint64_t Held() const;
  void Sample(double now);
  bool Admit(PendingRead *read, double now);
  void Issued(const PendingRead *read) { bytes_landing_ += read->piece_bytes; }
  void Landed(const PendingRead *read) { bytes_landing_ -= read->piece_bytes; }

 private:
  void AfterSample(bool cut);
  void ShrinkAfterCut();
  bool EvictFor(const PendingRead *read);
  // Evicts Belady's victims for reads first needed at plan index `first_use` until `enough`;
  // false when no victim is left first. With `release` their pages go back to the kernel at
  // once, else to the pool. With `held_later`, pieces read from that later entries need too.
  bool EvictUntil(const std::function<bool()> &enough, uint64_t first_use, bool release,
                  bool held_later);
  bool AllocatePieces(PendingRead *read);

  Parts p_;
  uint64_t bytes_landing_ = 0;  // pages taken by reads in flight (not yet filled)
};

}  // namespace pfio
