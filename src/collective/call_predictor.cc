#include "collective/call_predictor.h"

namespace pfio::collective {

bool CallPredictor::IsShiftOfPrevious(const std::vector<FileRanges> &plans, int64_t *shift) const {
  if (!have_previous_ || plans.size() != previous_.size()) return false;
  bool first = true;
  for (size_t r = 0; r < plans.size(); ++r) {
    if (plans[r].size() != previous_[r].size()) return false;
    for (size_t i = 0; i < plans[r].size(); ++i) {
      const FileRange &now = plans[r][i], &then = previous_[r][i];
      if (now.length != then.length) return false;
      const int64_t d = static_cast<int64_t>(now.offset - then.offset);
      if (first) {
        *shift = d;
        first = false;
      } else if (d != *shift) {
        return false;
      }
    }
  }
  return !first && *shift != 0;
}

bool CallPredictor::Observe(const std::vector<FileRanges> &plans) {
  int64_t shift = 0;
  const bool repeats = IsShiftOfPrevious(plans, &shift);
  bool hit = false;
  if (predicting_) {
    hit = repeats && shift == shift_;
    if (hit)
      ++hits_;
    else
      ++misses_;
  }
  predicting_ = repeats;
  shift_ = shift;
  previous_ = plans;
  have_previous_ = true;
  return hit;
}

std::vector<FileRanges> CallPredictor::Predicted(uint64_t j) const {
  if (!predicting_) return {};
  std::vector<FileRanges> out = previous_;
  const int64_t move = shift_ * static_cast<int64_t>(j);
  for (FileRanges &plan : out)
    for (FileRange &e : plan) {
      const int64_t moved = static_cast<int64_t>(e.offset) + move;
      if ((move > 0 && moved < static_cast<int64_t>(e.offset)) || moved < 0) return {};
      e.offset = static_cast<uint64_t>(moved);
    }
  return out;
}

}  // namespace pfio::collective
