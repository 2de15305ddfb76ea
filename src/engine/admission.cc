#include "engine/admission.h"

#include <algorithm>

namespace pfio {

uint64_t Admission::Held() const {
  // The plan (compact runs, at most half the budget: CheckPlanSize) is charged with the rest,
  // and so is what the caller holds outside for our reads (pfio_memory_charge).
  // The page indexes are counted as they are (about 1 % of the data), not estimated.
  return p_.buffer->in_use() +
         MemoryGovernor::Metadata(p_.window->size(), p_.buffer->piece_count()) +
         p_.buffer->index_bytes() + p_.window->plan().heap_bytes() + p_.memory->charged();
}

void Admission::Sample(double now) {
  // At most every MemoryGovernor::kSampleEvery: reading the signals costs system calls, too many
  // at every refill (docs/measurements.md, "Others").
  bool sampled = false;
  const bool cut = p_.memory->SampleIfDue(now, Held(), bytes_landing_, UINT64_MAX, &sampled);
  if (sampled) AfterSample(cut);
}

void Admission::AfterSample(bool cut) {
  if (cut) {
    ShrinkAfterCut();
  } else if (p_.memory->node_tight()) {
    p_.buffer->ReleaseFreeMemory();  // what was freed since the last sample leaves the process
  }
}

void Admission::ShrinkAfterCut() {
  // A cut that only stopped growth would leave the node short until consumption caught up:
  // landed pieces nobody has read yet give their memory back now, those needed furthest ahead
  // first (Belady), and never one the next read needs.
  if (p_.config->window_mode != PFIO_WINDOW_BATCH && Held() > p_.memory->budget()) {
    p_.buffer->TrackResident();
    // Page by page back to the kernel as they go: the reads requeued for the victims take heap
    // memory, which must not come before the pages leave.
    EvictUntil([this] { return Held() <= p_.memory->budget(); }, p_.window->plan().front_index(),
               /*release=*/true, /*held_later=*/true);
  }
  p_.buffer->ReleaseFreeMemory();
}

bool Admission::Admit(PendingRead *read, double now) {
  // Memory is taken read by read, so the signals are checked before each (at most every 10 ms
  // of the context's clock): a cut between windows applies to the next read.
  Sample(now);
  const bool fits = p_.memory->Fits(Held(), read->piece_bytes);
  if ((!fits && !EvictFor(read) && !read->urgent) || !AllocatePieces(read)) {
    p_.memory->Wait(read->piece_bytes);
    return false;
  }
  return true;
}

bool Admission::AllocatePieces(PendingRead *read) {
  const BufferKind &kind = p_.files->kind(read->file);
  for (size_t i = 0; i < read->pieces.size(); ++i) {
    if (!kind.Take(p_.buffer, read->pieces[i], read->urgent)) {
      for (size_t j = 0; j < i; ++j) p_.buffer->FreePages(read->pieces[j]);  // all or nothing
      return false;
    }
  }
  p_.stats->memory_peak = std::max(p_.stats->memory_peak, p_.buffer->in_use());
  return true;
}

bool Admission::EvictFor(const PendingRead *read) {
  // Only under pressure: the budget was cut below what the window was planned with, or the
  // application waits for this read, which goes anyway: without room made for it each such
  // read would add to what the node (its headroom holds growth back) or the budget must give,
  // and a window's pieces read for one entry and needed by a later one are not freed by
  // consumption (EngineFaults.AfterABudgetCutWhatIsHeldStaysWithinTheNewBudget). Otherwise
  // consumption frees memory soon enough.
  const bool cut = p_.memory->prefetch_budget() < p_.window->budget();
  const bool node_short = read->urgent && p_.memory->WithinBudget(Held(), read->piece_bytes);
  if (p_.config->window_mode == PFIO_WINDOW_BATCH || (!cut && !read->urgent)) return false;
  p_.buffer->TrackResident();  // from the first need on (a scan of the pieces, once)
  // Within the node's share, with pieces nothing has read from yet; and a read the application
  // waits for within the budget, with pieces read from that later entries need too (each is read
  // again when its entry comes: what a cut costs instead of memory).
  const bool fits = (!cut && !node_short) ||
                    EvictUntil([&] { return p_.memory->Fits(Held(), read->piece_bytes); },
                               read->first_use, /*release=*/false, /*held_later=*/false);
  const bool within = !read->urgent ||
                      EvictUntil([&] { return p_.memory->WithinBudget(Held(), read->piece_bytes); },
                                 read->first_use, /*release=*/false, /*held_later=*/true);
  return fits && within && p_.memory->Fits(Held(), read->piece_bytes);
}

bool Admission::EvictUntil(const std::function<bool()> &enough, uint64_t first_use, bool release,
                           bool held_later) {
  while (!enough()) {
    Piece *victim = MemoryGovernor::Victim(*p_.buffer, first_use, held_later);
    if (victim == nullptr) return false;
    p_.buffer->Evict(victim, release);
    ++p_.stats->evictions;
    p_.stats->bytes_evicted += victim->length;
    p_.scheduler->Requeue(BuildRequests({victim}, p_.files->handles(), p_.files->Joins(*p_.shape)));
  }
  return true;
}

}  // namespace pfio
