// MemoryGovernor: how much memory prefetching may hold right now, and what to give back when it
// must shrink. It owns the AIMD budget (libprefetch §4.6) and the pressure signals, charges the
// window's bookkeeping against the budget (so small extents cannot grow the heap past it),
// counts consumption into AIMD rounds, remembers how much a blocked issue is waiting for, and
// picks the piece to evict after a cut (Belady: the landed, untouched piece needed furthest in
// the future, only if it is needed later than the read that wants its memory: do no harm).
//
// Guarded by the context's mutex: every method is called with it held.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "buffer/reorder_buffer.h"
#include "memory/aimd_controller.h"
#include "memory/memory_signals.h"
#include "memory/node_registry.h"
#include "memory/others_taking.h"

namespace pfio {

class MemoryGovernor {
 public:
  // Heap bytes per plan entry in the window and per piece (structures, index node, page list),
  // rounded up from their sizes with malloc overhead; charged against the budget.
  static constexpr uint64_t kEntryMeta = 96;
  static constexpr uint64_t kPieceMeta = 224;
  // Per page of data in the window: its page index (16-byte slots at most 3/4 full, and while
  // the table grows the old and the new table at once: 64 bytes at most).
  static constexpr uint64_t kIndexPageMeta = 64;
  // A budget is held to the node's fair share once it is more than 1/kShareSlack above it.
  static constexpr uint64_t kShareSlack = 16;
  // Before each read is issued, the signals are sampled at most this often (seconds).
  static constexpr double kSampleEvery = 0.01;
  // Growth stops this far above the memory reserve (for the node, not per process): what the
  // processes take that the budget does not see (the heap of reads requeued after a cut,
  // bookkeeping beyond its estimate) lands in it, not below the reserve.
  static constexpr uint64_t kGateMargin = 64 << 20;

  // limit: bytes the rank may use; floor: the smallest budget; aimd: adapt (else fixed).
  // node: the other pfio processes of the node; with share_node (an auto budget) the budget
  // starts at the fair share of the processes present and is held to it while a peer is short
  // (null: alone). clock: seconds, monotonic (null: the steady clock; tests script it).
  // first: a sample of `signals` just taken (null: the governor takes its own).
  MemoryGovernor(uint64_t limit, uint64_t floor, bool aimd, std::unique_ptr<MemorySignals> signals,
                 std::unique_ptr<NodeShare> node = nullptr, bool share_node = false,
                 AimdController::Clock clock = nullptr, const MemorySample *first = nullptr);

  uint64_t budget() const { return aimd_.budget(); }
  // What prefetching may plan with: the budget less the memory charged to it from outside
  // (Charge), at least kMinPrefetch so a plan still moves.
  static constexpr uint64_t kMinPrefetch = 64 << 10;
  uint64_t prefetch_budget() const {
    return budget() > charged_ + kMinPrefetch ? budget() - charged_ : kMinPrefetch;
  }
  // Memory held outside the context for its reads (pfio_memory_charge); the caller adds it to
  // what it reports as held.
  void Charge(uint64_t bytes) { charged_ = bytes; }
  uint64_t charged() const { return charged_; }
  // The node's count without this context while it waits for a user (Context::Vacate), and
  // with it again.
  void LeaveNode() { node_->Leave(); }
  void RejoinNode() { node_->Rejoin(); }
  uint64_t cap() const { return aimd_.cap(); }
  uint64_t cuts() const { return aimd_.cuts(); }
  const std::vector<AimdEvent> &history() const { return aimd_.history(); }

  // The bookkeeping of `entries` window entries and `pieces` pieces holding `pages` pages.
  static uint64_t Metadata(uint64_t entries, uint64_t pieces, uint64_t pages = 0) {
    return entries * kEntryMeta + pieces * kPieceMeta + pages * kIndexPageMeta;
  }
  // Whether `bytes` more fit the budget with `held` bytes already held (the node aside).
  bool WithinBudget(uint64_t held, uint64_t bytes) const { return held + bytes <= aimd_.budget(); }
  // Whether `bytes` more fit with `held` bytes (data and bookkeeping) already held: within the
  // budget and, adapting, within this process's share of the node's headroom above the memory
  // reserve at the last sample (headroom less kGateMargin, / the pfio processes present), so
  // that the processes of a node stop growing before MemAvailable reaches the reserve, not after
  // (they may all be growing at once between two samples). The share pays first for the reads that
  // were in flight at the sample (their pages are taken, but the kernel counts them only when the
  // data lands in them), then for what was taken since.
  bool Fits(uint64_t held, uint64_t bytes) const {
    if (!WithinBudget(held, bytes)) return false;
    if (!gate_ || headroom_ == UINT64_MAX || held + bytes <= held_at_sample_) return true;
    const uint64_t above = headroom_ > kGateMargin ? headroom_ - kGateMargin : 0;
    const uint64_t share = above / processes_;
    return landing_at_sample_ <= share &&
           held + bytes - held_at_sample_ <= share - landing_at_sample_;
  }

  // Reads the pressure signals, records `held` (bytes held now, `landing` of them for reads in
  // flight) and the process's resident memory (`resident`; UINT64_MAX: as the signals read it,
  // else held - landing) in the node registry, and looks for memory taken by programs other than
  // pfio (OthersTaking). On contention halves the budget (once per round); sharing the node, holds
  // the budget to the fair share while a peer is short. True when it cut: the caller gives memory
  // back.
  bool Sample(uint64_t held = 0, uint64_t landing = 0, uint64_t resident = UINT64_MAX);
  // The same, at most every kSampleEvery seconds of `now` (before a read is issued); *sampled
  // (if given) tells whether it was due.
  bool SampleIfDue(double now, uint64_t held = 0, uint64_t landing = 0,
                   uint64_t resident = UINT64_MAX, bool *sampled = nullptr);
  // Adapting, and the node was within kGateMargin of the reserve at the last sample: pages
  // freed should go back to the kernel rather than wait in the pool for reuse.
  bool node_tight() const { return gate_ && headroom_ < kGateMargin; }
  // The node's fair share at the last sample (UINT64_MAX when unknown or alone).
  uint64_t fair_share() const { return fair_share_; }

  // Issuing stopped: a read needs `bytes` that are not free.
  void Wait(uint64_t bytes) { wanted_ = bytes; }
  bool waiting() const { return wanted_ > 0; }
  // After memory was freed: true (and the wait is over) when the awaited bytes now fit.
  bool WaitOver(uint64_t held);

  // `bytes` of the plan were consumed; a budget's worth ends an AIMD round (grow if clean).
  void Consumed(uint64_t bytes);

  // Belady with do no harm: the piece to evict so a read first needed at plan index
  // `first_use` can have memory, or null (nothing listed, or every candidate is needed sooner).
  // With `held_later`, when no such piece is left, a piece already read from that a later entry
  // needs (its next use unknown: read again when that entry comes).
  static Piece *Victim(const ReorderBuffer &buffer, uint64_t first_use, bool held_later);

 private:
  AimdController aimd_;
  std::unique_ptr<MemorySignals> signals_;
  uint64_t wanted_ = 0;   // > 0: issuing waits for this much free budget
  uint64_t charged_ = 0;  // held outside (pfio_memory_charge)
  uint64_t round_consumed_ = 0;
  bool round_contention_ = false;
  uint64_t headroom_ = UINT64_MAX;  // above the memory reserve, at the last sample
  uint64_t held_at_sample_ = 0;     // what this process held then
  uint64_t landing_at_sample_ = 0;  // of which for reads in flight (not yet in the kernel's count)
  uint64_t processes_ = 1;          // pfio processes on the node then
  bool gate_ = true;                // adapting: growth is held to the headroom
  std::unique_ptr<NodeShare> node_;
  OthersTaking others_;
  bool share_node_ = false;
  uint64_t fair_share_ = UINT64_MAX;
  bool peer_short_ = false;
  double last_sample_ = 0;
};

}  // namespace pfio
