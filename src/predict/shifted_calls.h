// ShiftedCalls: prediction of whole requests from repetition: request k+1 = request k with every
// extent moved by one constant (ior-hard's segments, time steps of a fixed-size record). Used by
// the collective layer (a call's extents of every rank: one group per rank) and the ROMIO
// driver's independent multi-extent requests (one group).
//
// Contract. Observe(groups) is given every request in order; groups[g] are the extents of group
// g (any type with `offset` and `length`). A request is a shifted copy of the previous one when
// it has the same groups of the same extent lengths and every offset moved by the same non-zero
// shift. After `confirmations` shifted copies in a row with one shift, the requests ahead are
// predicted: Predicted(j) is request "now + j" (j >= 1), empty when the shift leaves 64-bit
// offsets. Observe returns whether the request was the one predicted (a hit); a request that
// differs from a prediction is a miss and predicts again only after `confirmations` more
// copies. Predictions cost reading time when wrong, never bytes: callers use them only to plan
// reads, never to answer one. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pfio::predict {

template <class Range>
class ShiftedCalls {
 public:
  using Groups = std::vector<std::vector<Range>>;

  explicit ShiftedCalls(uint32_t confirmations = 1) : confirmations_(confirmations) {}

  bool Observe(const Groups &groups) {
    int64_t shift = 0;
    const bool copy = IsShiftOfPrevious(groups, &shift);
    const bool was = predicting();
    const bool hit = was && copy && shift == shift_;
    if (was) ++(hit ? hits_ : misses_);
    if (copy && shift == shift_ && repeats_ > 0) {
      ++repeats_;
    } else {
      shift_ = copy ? shift : 0;
      repeats_ = copy ? 1 : 0;
    }
    previous_ = groups;
    have_previous_ = true;
    return hit;
  }

  bool predicting() const { return repeats_ >= confirmations_ && repeats_ > 0; }
  // Bytes between successive requests while predicting (0 otherwise).
  int64_t shift() const { return predicting() ? shift_ : 0; }
  Groups Predicted(uint64_t j) const {
    if (!predicting()) return {};
    Groups out = previous_;
    int64_t move = 0;
    if (j > static_cast<uint64_t>(INT64_MAX) ||
        __builtin_mul_overflow(shift_, static_cast<int64_t>(j), &move))
      return {};
    for (auto &group : out)
      for (Range &e : group) {
        int64_t moved = 0;
        if (e.offset > static_cast<uint64_t>(INT64_MAX) ||
            __builtin_add_overflow(static_cast<int64_t>(e.offset), move, &moved) || moved < 0)
          return {};
        e.offset = static_cast<uint64_t>(moved);
      }
    return out;
  }
  // Whether a request was seen since the last Reset.
  bool seen() const { return have_previous_; }
  void Reset() {
    previous_.clear();
    have_previous_ = false;
    repeats_ = 0;
    shift_ = 0;
  }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  bool IsShiftOfPrevious(const Groups &groups, int64_t *shift) const {
    if (!have_previous_ || groups.size() != previous_.size()) return false;
    bool first = true;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].size() != previous_[g].size()) return false;
      for (size_t i = 0; i < groups[g].size(); ++i) {
        const Range &now = groups[g][i], &then = previous_[g][i];
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

  uint32_t confirmations_;
  Groups previous_;
  bool have_previous_ = false;
  uint32_t repeats_ = 0;  // shifted copies in a row with shift_
  int64_t shift_ = 0;
  uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace pfio::predict
