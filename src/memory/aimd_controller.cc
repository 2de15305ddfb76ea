#include "memory/aimd_controller.h"

#include <algorithm>

#include "common/page.h"

namespace pfio {

namespace {
constexpr size_t kMaxHistory = 4096;
}

AimdController::AimdController(uint64_t limit, uint64_t floor, bool enabled, Clock clock)
    : enabled_(enabled), clock_(clock ? std::move(clock) : Clock([] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
      })) {
  start_ = clock_();
  cap_ = Cap(limit);
  floor_ = std::min(floor, cap_);
  budget_ = cap_;
  Record("start at cap (90 % of the limit)");
}

bool AimdController::OnContention(const std::string &reason, bool hard) {
  if (!enabled_) return false;
  if (cut_this_round_ && !(hard && last_cut_ >= 0 && clock_() - last_cut_ >= kHardCutGap)) {
    return false;
  }
  uint64_t next = std::max(floor_, budget_ / 2);
  next = PageAlignDown(next);
  cut_this_round_ = true;
  if (next == budget_) return false;
  budget_ = next;
  ++cuts_;
  last_cut_ = clock_();
  Record("halve: " + reason);
  return true;
}

bool AimdController::ClampTo(uint64_t bytes, const std::string &reason) {
  const uint64_t next = PageAlignDown(std::max(floor_, bytes));
  if (!enabled_ || next >= budget_) return false;
  budget_ = next;
  ++cuts_;
  last_cut_ = clock_();
  Record("clamp: " + reason);
  return true;
}

void AimdController::OnRoundEnd(bool clean, uint64_t headroom) {
  const bool was_cut = cut_this_round_;
  cut_this_round_ = false;
  if (!enabled_ || !clean || was_cut || budget_ >= cap_) return;
  const uint64_t step = PageAlignDown(std::min(cap_ / 10, headroom));
  if (step == 0) return;  // nothing above the reserve: hold
  budget_ = PageAlignDown(std::min(cap_, budget_ + step));
  Record(step < cap_ / 10 ? "add the headroom above the memory reserve after a clean round"
                          : "add 10 % of cap after a clean round");
}

void AimdController::Record(const std::string &reason) {
  if (history_.size() >= kMaxHistory) return;
  const double t = clock_() - start_;
  history_.push_back({t, budget_, reason});
}

}  // namespace pfio
