#include "memory/memory_governor.h"

namespace pfio {

MemoryGovernor::MemoryGovernor(uint64_t limit, uint64_t floor, bool aimd,
                               std::unique_ptr<MemorySignals> signals)
    : aimd_(limit, floor, aimd), signals_(std::move(signals)) {}

bool MemoryGovernor::Sample() {
  MemorySample s = signals_->Sample();
  headroom_ = s.headroom;
  if (!s.contention) return false;
  round_contention_ = true;
  return aimd_.OnContention(s.reason, s.hard);
}

bool MemoryGovernor::SampleIfDue(double now) {
  if (now - last_sample_ < kSampleEvery) return false;
  last_sample_ = now;
  return Sample();
}

bool MemoryGovernor::WaitOver(uint64_t held) {
  if (wanted_ == 0 || !Fits(held, wanted_)) return false;
  wanted_ = 0;
  return true;
}

void MemoryGovernor::Consumed(uint64_t bytes) {
  round_consumed_ += bytes;
  if (round_consumed_ < aimd_.budget()) return;
  aimd_.OnRoundEnd(!round_contention_, headroom_);
  round_contention_ = false;
  round_consumed_ = 0;
}

Piece *MemoryGovernor::Victim(const ReorderBuffer &buffer, uint64_t first_use) {
  Piece *victim = buffer.FurthestResident();
  if (victim == nullptr || victim->first_use <= first_use) return nullptr;  // do no harm
  return victim;
}

}  // namespace pfio
