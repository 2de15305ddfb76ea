// AimdController: the per-rank prefetch memory budget (libprefetch §4.6), adjusted like TCP's
// congestion window. Starts at the cap; halves on a contention signal (at most once per round,
// except that a hard signal -- memory below a reserve, an OOM condition -- may halve again every
// half second); after a round consumed without contention adds 10 % of the cap, but never more
// than the headroom the signals report above the reserve; never above the cap (90 % of what the
// rank may use) nor below the floor. Every change is kept in the history for the stats.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/page.h"

namespace pfio {

struct AimdEvent {
  double seconds;  // since the controller was made
  uint64_t budget;
  std::string reason;
};

class AimdController {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic (tests script it)
  // limit: bytes the rank may use. floor: smallest budget (at least one large request).
  AimdController(uint64_t limit, uint64_t floor, bool enabled, Clock clock = nullptr);

  // Its clock, in seconds.
  double Now() const { return clock_(); }

  // A hard signal may halve again this long after the last cut, within one round.
  static constexpr double kHardCutGap = 0.5;

  // The cap for `limit`: 90 % of it, whole pages (libprefetch §4.6).
  static uint64_t Cap(uint64_t limit) { return PageAlignDown(limit / 10 * 9); }

  uint64_t budget() const { return budget_; }
  uint64_t cap() const { return cap_; }
  uint64_t cuts() const { return cuts_; }
  const std::vector<AimdEvent> &history() const { return history_; }

  // A contention signal: halve, unless already halved in this round (a hard one: unless halved
  // less than kHardCutGap ago). Returns true if it halved.
  bool OnContention(const std::string &reason, bool hard = false);
  // Lowers the budget to `bytes` (not below the floor) when it is above: the node's fair share
  // while another process is short. Returns true if it lowered it.
  bool ClampTo(uint64_t bytes, const std::string &reason);
  // A round was consumed; `clean` when no contention was seen in it. Growth is at most
  // `headroom` bytes (what may still be taken above the memory reserve).
  void OnRoundEnd(bool clean, uint64_t headroom = UINT64_MAX);

 private:
  void Record(const std::string &reason);

  bool enabled_;
  uint64_t cap_, floor_, budget_;
  uint64_t cuts_ = 0;
  bool cut_this_round_ = false;
  Clock clock_;
  double start_ = 0, last_cut_ = -1;
  std::vector<AimdEvent> history_;
};

}  // namespace pfio
