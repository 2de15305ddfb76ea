#include "predict/path_judge.h"

#include <algorithm>
#include <optional>

namespace pfio::predict {
namespace {

// The mean of `v` without its dearest calls, kTrimmed of them and one more: one call the machine
// stalled does not decide, and a path whose every few calls are dear (the page-cache kind's
// advice, hot: a median ignored its dearest 10 %, docs/small-calls.md) pays for them.
double TrimmedMean(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t drop = v.size() < 2 ? 0 : v.size() / PathJudge::kTrimmed + 1;
  const size_t keep = v.size() - drop;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(keep - 1), v.end());
  double sum = 0;
  for (size_t i = 0; i < keep; ++i) sum += v[i];
  return sum / static_cast<double>(keep);
}

size_t Index(PathJudge::Path path) {
  return path == PathJudge::Path::kPfio ? 0 : 1;
}

}  // namespace

void PathJudge::Begin(Phase phase, Path path, uint64_t calls) {
  phase_ = phase;
  if (path != path_) since_switch_ = 0;
  path_ = path;
  left_ = calls;
  if (phase == Phase::kTrial) file_left_ = kUnbounded;  // the file has a trial of its own
  before_ns_ += trial_ns_;
  trial_ns_ = 0;
  trial_bytes_ = 0;
  samples_[Index(path)].clear();
  next_sample_[Index(path)] = 0;
}

PathJudge::Path PathJudge::Next() {
  if (left_ == 0 || (phase_ == Phase::kStretch && file_left_ == 0)) {
    if (phase_ == Phase::kFirst) {
      Begin(Phase::kTrial, Path::kStock, kTrialCalls);
    } else if (phase_ == Phase::kStretch) {
      file_trial_ = left_ > 0;  // the file's bound, not the stretch's end, called the trial
      Begin(Phase::kTrial, path_ == Path::kPfio ? Path::kStock : Path::kPfio, kTrialCalls);
    } else {
      Decide(tally());  // the caller did not Judge: this rank's own tally
    }
  }
  --left_;
  if (file_left_ != kUnbounded && file_left_ > 0) --file_left_;
  ++since_switch_;
  ++(path_ == Path::kPfio ? counts_.pfio_calls : counts_.stock_calls);
  return path_;
}

void PathJudge::Record(Path path, uint64_t bytes, uint64_t ns) {
  if (path != path_) return;
  if (phase_ == Phase::kTrial) {
    trial_ns_ += static_cast<double>(ns);
    trial_bytes_ += static_cast<double>(bytes);
  } else {
    before_ns_ += static_cast<double>(ns);
  }
  if (since_switch_ <= Skip(path) || bytes == 0) return;
  std::vector<double> &v = samples_[Index(path)];
  const double cost = static_cast<double>(ns) / static_cast<double>(bytes);
  if (v.size() < kSamples) {
    v.push_back(cost);
  } else {
    size_t &at = next_sample_[Index(path)];
    v[at] = cost;
    at = (at + 1) % kSamples;
  }
}

PathJudge::Tally PathJudge::tally() const {
  return {TrimmedMean(samples_[0]), TrimmedMean(samples_[1]), trial_ns_, before_ns_, trial_bytes_};
}

bool PathJudge::ExchangeDue() const {
  // A trial that has ended is judged even when a resume left nothing of it measured since:
  // Next() would otherwise decide on this rank's own tally, and ranks would part ways.
  return phase_ == Phase::kTrial && (since_switch_ > 0 || left_ == 0);
}

void PathJudge::Judge(const Tally &all) {
  if (phase_ != Phase::kTrial) return;
  if (left_ == 0) {
    Decide(all);
    return;
  }
  const bool pfio_on_trial = path_ == Path::kPfio;
  const double trial = pfio_on_trial ? all.pfio : all.stock;
  const double other = pfio_on_trial ? all.stock : all.pfio;
  // What the trial's bytes cost on the other path, at its measured cost (0: not known).
  const double on_other = other * all.trial_bytes;
  const bool past_other = on_other > 0 && all.trial_ns > kCutRatio * on_other;
  if (all.trial_ns > kTrialFloorNs && (all.trial_ns > all.before_ns || past_other)) {
    ++counts_.trials_cut;
    Decide(all, path_, on_other > 0 ? all.trial_ns / on_other : 0);  // too dear to finish
  } else if (since_switch_ >= Skip(path_) + kMinMeasured && trial > 0 && other > 0 &&
             trial > kAbortRatio * other) {
    ++counts_.trials_cut;
    Decide(all);
  }
}

void PathJudge::Decide(const Tally &all, std::optional<Path> loser_given, double loss_given) {
  ++counts_.decisions;
  Path winner = Path::kPfio;
  double loss = 1;  // the loser's time per byte over the winner's
  const double pfio = all.pfio, stock = all.stock;
  if (loser_given) {
    winner = *loser_given == Path::kPfio ? Path::kStock : Path::kPfio;
    if (pfio > 0 && stock > 0) last_ratio_ = stock / pfio;
    loss = loss_given;
  } else if (pfio > 0 && stock > 0) {
    last_ratio_ = stock / pfio;
    if (stock < (1 - kMargin) * pfio) winner = Path::kStock;
    loss = winner == Path::kStock ? pfio / stock : stock / pfio;
  }
  if (winner == Path::kStock) ++counts_.stock_chosen;
  if (file_trial_) {
    file_stretch_ =
        winner == last_winner_ ? std::min(2 * file_stretch_, kLongestStretch) : kFirstStretch;
    file_trial_ = false;
  }
  uint64_t length = stretch_ > 0 && winner == last_winner_ ? std::min(2 * stretch_, kLongestStretch)
                                                           : kFirstStretch;
  // The loser's next trial, in the winner's calls, at most 1/kOverhead of the stretch (when the
  // trials measured how much dearer the loser is, or a trial cut for its time said it).
  const Path loser = winner == Path::kPfio ? Path::kStock : Path::kPfio;
  const double trial_calls = loser_given ? 1 : static_cast<double>(Skip(loser) + kMinMeasured);
  const double trial_cost = trial_calls * std::max(loss, 1.0);
  if (!loser_given || loss > 0)
    length = std::max<uint64_t>(
        length, static_cast<uint64_t>(std::min(kOverhead * trial_cost, double(kLongestStretch))));
  stretch_ = length;
  last_winner_ = winner;
  Begin(Phase::kStretch, winner, length);
}

uint64_t PathJudge::ScheduleHash() const {
  uint64_t h = 1469598103934665603ull;
  for (const uint64_t v : {static_cast<uint64_t>(phase_), static_cast<uint64_t>(path_), left_,
                           file_left_, since_switch_, stretch_, static_cast<uint64_t>(last_winner_),
                           file_stretch_, static_cast<uint64_t>(file_trial_)})
    h = (h ^ v) * 1099511628211ull;
  return h;
}

void PathJudge::NewFile() {
  counts_ = {};
  file_left_ = file_stretch_;
}

void PathJudge::Reset() {
  stretch_ = 0;
  last_winner_ = Path::kPfio;
  file_stretch_ = kFirstStretch;
  file_trial_ = false;
  for (size_t i = 0; i < 2; ++i) {
    samples_[i].clear();
    next_sample_[i] = 0;
  }
  Begin(Phase::kFirst, Path::kPfio, kTrialCalls);
}

}  // namespace pfio::predict
