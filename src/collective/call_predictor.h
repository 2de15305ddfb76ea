// CallPredictor: look-ahead across collective calls from repetition.
//
// Contract. Observe() is given every rank's extents of each collective call, in call order.
// When a call equals the previous one shifted by a constant (every extent of every rank moved
// by the same number of bytes: ior-hard segments, time steps of a fixed-size record), the next
// calls are predicted as further shifts: Predicted(j) is call "now + j" (j >= 1). A call that
// differs from the prediction counts as a miss and clears it; prediction resumes after the
// pattern is seen again. Predictions cost reading time when wrong, never bytes: callers use
// them only to plan reads, never to answer one.
#pragma once

#include <cstdint>
#include <vector>

#include "collective/file_range.h"

namespace pfio::collective {

class CallPredictor {
 public:
  // Returns true when a prediction existed for this call and it was right.
  bool Observe(const std::vector<FileRanges> &plans);

  bool predicting() const { return predicting_; }
  // Bytes between successive calls while predicting (0 otherwise).
  int64_t shift() const { return predicting_ ? shift_ : 0; }
  // Call now + j, every rank's extents; empty vector when a shift leaves 64-bit offsets.
  std::vector<FileRanges> Predicted(uint64_t j) const;
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  bool IsShiftOfPrevious(const std::vector<FileRanges> &plans, int64_t *shift) const;

  std::vector<FileRanges> previous_;
  bool have_previous_ = false;
  bool predicting_ = false;
  int64_t shift_ = 0;
  uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace pfio::collective
