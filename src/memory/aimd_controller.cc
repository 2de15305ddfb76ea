#include "memory/aimd_controller.h"

#include <algorithm>

#include "common/page.h"

namespace pfio {

namespace {
constexpr size_t kMaxHistory = 4096;
}

AimdController::AimdController(uint64_t limit, uint64_t floor, bool enabled)
    : enabled_(enabled), start_(std::chrono::steady_clock::now()) {
  cap_ = Cap(limit);
  floor_ = std::min(floor, cap_);
  budget_ = cap_;
  Record("start at cap (90 % of the limit)");
}

bool AimdController::OnContention(const std::string &reason) {
  if (!enabled_ || cut_this_round_) return false;
  uint64_t next = std::max(floor_, budget_ / 2);
  next = PageAlignDown(next);
  cut_this_round_ = true;
  if (next == budget_) return false;
  budget_ = next;
  ++cuts_;
  Record("halve: " + reason);
  return true;
}

void AimdController::OnRoundEnd(bool clean) {
  const bool was_cut = cut_this_round_;
  cut_this_round_ = false;
  if (!enabled_ || !clean || was_cut || budget_ >= cap_) return;
  uint64_t step = cap_ / 10;
  budget_ = std::min(cap_, budget_ + step);
  budget_ = PageAlignDown(budget_);
  Record("add 10 % of cap after a clean round");
}

void AimdController::Record(const std::string &reason) {
  if (history_.size() >= kMaxHistory) return;
  double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  history_.push_back({t, budget_, reason});
}

}  // namespace pfio
