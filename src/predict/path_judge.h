// PathJudge: whether a file's calls pay for pfio's path, judged on the calls it serves, so that a
// front end hands calls to its stock path while pfio loses (docs/romio-driver.md, "Stepping
// aside").
//
// Contract. Next() gives the path of each call in turn; the caller serves the call on it and
// reports its time and bytes with Record (a call not reported counts for nothing); a path's cost
// is the mean time per byte of its last period's measured calls but the dearest 1/kTrimmed of
// them and one more (one call the machine stalled does not decide; dear calls that come every
// few calls count). The schedule:
// the first calls take pfio, then a trial of the stock path; then the path whose time per byte
// was lower serves a stretch, and a trial of the other path follows it, and so on. A trial lasts
// at most kTrialCalls calls; it ends early when, with at least kMinMeasured of its calls
// measured, its path already costs kAbortRatio times the other's per byte (a trial of a path
// that loses badly costs a few calls), and at once when its calls, measured or not, took at
// least kTrialFloorNs and longer than every call before it, or than kCutRatio times what the
// other path's measured cost per byte gives for the trial's bytes: then its path loses (a few
// expensive calls, where one call of the slower path costs more than many of the other: random
// blocks through ROMIO's two-phase, docs/romio-driver.md, "Stepping aside"); the stretch that
// follows is sized by that ratio as by a measured one, and only doubles when the other path's
// cost is not known. A stretch is
// kFirstStretch calls, twice as long each time the same path wins again, and at least kOverhead
// times what the loser's next trial costs in the winner's calls, so trials take a bounded share of
// the time; at most kLongestStretch. The stock path must be faster by kMargin to be chosen: on a
// tie pfio keeps the calls. The first calls after each switch are not measured (kSkipPfio: pfio's
// predictor learns the pattern again; kSkipStock: the kernel's readahead starts). Whenever
// ExchangeDue(), the caller passes Judge the tallies (tally(), or the sums of every rank's in a
// collective layer) before the next Next(). Reset() (the pattern changed: a declared plan) starts
// again from pfio. NewFile() carries a judge on to another file read the same way
// (predict/judge_memory.h): its counts start again, and until the new file has a trial of its
// own, stretches (the one under way, or one a trial carried into the file decides) serve at most
// a file stretch of its calls, so that a file read otherwise soon has its trial (a stretch of a
// few thousand calls carried into a file where the other path is 10x faster would cost it more
// than the file); files shorter than that go on with the stretch, so that short files read alike
// share long stretches and few trials (docs/small-calls.md, "Many small files"). The file
// stretch is kFirstStretch, twice as long each time a file's own trial keeps the winner (files
// read alike, each longer than it), at most kLongestStretch, and kFirstStretch again when such a
// trial changes the winner.
// Deterministic: the same sequence of Next and Judge inputs gives the same paths, so ranks that
// judge on the same sums choose alike. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace pfio::predict {

class PathJudge {
 public:
  enum class Path { kPfio, kStock };
  static constexpr uint64_t kTrialCalls = 24;
  static constexpr uint64_t kSkipPfio = 4;
  static constexpr uint64_t kSkipStock = 4;
  static constexpr uint64_t kMinMeasured = 3;
  static constexpr size_t kSamples = 64;  // a period's last calls kept for its cost
  static constexpr size_t kTrimmed = 16;  // the dearest 1/kTrimmed of them (and one) left out
  static constexpr double kAbortRatio = 2.0;
  static constexpr double kCutRatio = 4.0;  // over warm-up too: wider than kAbortRatio
  static constexpr uint64_t kTrialFloorNs = 50'000'000;
  static constexpr uint64_t kFirstStretch = 64;
  static constexpr uint64_t kOverhead = 16;
  static constexpr uint64_t kLongestStretch = 16384;
  // Stock is chosen when its time per byte is below (1 - kMargin) x pfio's.
  static constexpr double kMargin = 0.05;

  // Each path's cost: the trimmed mean ns per byte of its last period (trial or stretch), 0 when
  // none of its calls was measured.
  // The trial's time and bytes so far (every call of it) and the time of every call before it.
  struct Tally {
    double pfio = 0, stock = 0;
    double trial_ns = 0, before_ns = 0;
    double trial_bytes = 0;
  };
  struct Counts {
    uint64_t pfio_calls = 0;    // calls given to pfio
    uint64_t stock_calls = 0;   // calls given to the stock path
    uint64_t decisions = 0;     // stretches chosen
    uint64_t stock_chosen = 0;  // ... of the stock path
    uint64_t trials_cut = 0;    // trials ended early (their path lost by kAbortRatio)
  };

  // The path of the next call; advances the schedule. Judge first when ExchangeDue().
  Path Next();
  // The call Next() last gave, served on `path`, took `ns` for `bytes`.
  void Record(Path path, uint64_t bytes, uint64_t ns);
  // A trial is on (it may end now), or has ended: Judge before Next().
  bool ExchangeDue() const;
  Tally tally() const;
  // Ends the trial when it is over or already lost, from `all` (tally(), or every rank's, combined
  // the same way on every rank).
  void Judge(const Tally &all);
  void Reset();
  // The calls this judge routes went another way for a while (a judge above it gave them to
  // another path): its next calls are not measured, as after a switch of its own.
  void Resumed() { since_switch_ = 0; }
  void NewFile();
  // A hash of the schedule (phase, path, calls left, stretches): equal on ranks that judged alike.
  // Not of the measures, which are each rank's own.
  uint64_t ScheduleHash() const;

  Path current() const { return path_; }
  // The last decision's stock over pfio time per byte (0 before the first).
  double last_ratio() const { return last_ratio_; }
  const Counts &counts() const { return counts_; }

 private:
  enum class Phase { kFirst, kTrial, kStretch };
  void Begin(Phase phase, Path path, uint64_t calls);
  // The next stretch's path: the one measured cheaper, or the other than `loser` when given,
  // which costs `loss` times the winner per byte (0: not known).
  void Decide(const Tally &all, std::optional<Path> loser = std::nullopt, double loss = 0);
  uint64_t Skip(Path path) const { return path == Path::kPfio ? kSkipPfio : kSkipStock; }

  Phase phase_ = Phase::kFirst;
  Path path_ = Path::kPfio;
  static constexpr uint64_t kUnbounded = UINT64_MAX;
  uint64_t left_ = kTrialCalls;            // calls left in this phase
  uint64_t file_left_ = kUnbounded;        // this file's calls stretches may serve before its trial
  uint64_t file_stretch_ = kFirstStretch;  // file_left_ of the next file
  bool file_trial_ = false;                // the trial under way is a file's own, file_left_'s
  uint64_t since_switch_ = 0;              // calls on this path since it last changed
  uint64_t stretch_ = 0;                   // the current stretch's length (0 before the first)
  Path last_winner_ = Path::kPfio;
  std::vector<double> samples_[2];  // ns per byte of each path's period (Path as index)
  size_t next_sample_[2] = {0, 0};  // where the next sample goes once kSamples are held
  Counts counts_;
  double last_ratio_ = 0;
  double trial_ns_ = 0;     // every call of this trial, measured or not
  double trial_bytes_ = 0;  // ... and their bytes
  double before_ns_ = 0;    // every call before this trial
};

}  // namespace pfio::predict
