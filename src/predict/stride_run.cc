#include "predict/stride_run.h"

#include <algorithm>

namespace pfio::predict {

void StrideRun::Drop(StrideEvent *event) {
  if (!planning_) return;
  event->dropped = true;
  const uint64_t dropped = planned_ahead_ * last_length_;
  bytes_.dropped += dropped;
  recent_hit_ = recent_hit_ / 2 + run_hit_bytes_;
  recent_dropped_ = recent_dropped_ / 2 + dropped;
  if (recent_dropped_ > recent_hit_) {
    if (options_.misses_off > 0 && ++misses_ >= options_.misses_off) {
      if (off_length_ == 0) off_length_ = options_.off_first;
      off_reads_ = off_length_;
      off_length_ = std::min(off_length_ * 2, options_.off_longest);
      misses_ = 0;
      recent_hit_ = recent_dropped_ = 0;  // when prediction is on again, its record starts anew
      event->switched_off = true;
    }
  } else {
    misses_ = 0;
  }
  planning_ = false;
  planned_ahead_ = run_hit_bytes_ = 0;
}

StrideEvent StrideRun::Observe(uint64_t offset, uint64_t length, bool allow_near_shift) {
  StrideEvent event;
  // Differences of 64-bit offsets, as two's complement (a step back is negative); a phase shift
  // that does not fit is no near shift.
  const int64_t delta = have_last_ ? static_cast<int64_t>(offset - last_offset_) : 0;
  int64_t shift = 0;
  const bool shift_fits = !__builtin_sub_overflow(delta, stride_, &shift);
  const bool same_length = have_last_ && length == last_length_;
  if (same_length && delta == stride_ && delta != 0) {
    ++repeats_;
    if (planned_ahead_ > 0) {
      --planned_ahead_;
      run_hit_bytes_ += length;
      bytes_.hit += length;
      event.hit = true;
    }
  } else if (same_length && allow_near_shift && shift_fits && options_.near_shift > 0 &&
             repeats_ >= 2 && stride_ != 0 && (delta > 0) == (stride_ > 0) &&
             shift >= -options_.near_shift && shift <= options_.near_shift) {
    ++repeats_;
    event.shifted = true;
    if (planned_ahead_ > 0) {
      --planned_ahead_;
      run_hit_bytes_ += length;
      bytes_.hit += length;
      event.hit = true;
    }
    if (planning_) {
      next_planned_ += shift;
      event.phase_shift = shift;
    }
  } else {
    Drop(&event);
    stride_ = delta;
    repeats_ = same_length && delta != 0 ? 1 : 0;
  }
  have_last_ = true;
  last_offset_ = offset;
  last_length_ = length;
  if (off_reads_ > 0 && repeats_ >= 2 + options_.min_extents) {
    off_reads_ = 0;  // the pattern returned: a first plan would have been read whole
    off_length_ = 0;
  }
  if (off_reads_ > 0) {
    --off_reads_;
    event.off = true;
  } else {
    event.running = repeats_ >= 2;
  }
  return event;
}

uint64_t StrideRun::Want(uint64_t length, uint32_t ramp, uint64_t cap) const {
  uint64_t most = std::min(
      {options_.lookahead_bytes / std::max<uint64_t>(length, 1), cap, options_.max_extents});
  most = std::max(most, options_.min_extents);
  uint64_t want = ramp == 0 ? most : static_cast<uint64_t>(ramp) * repeats_;
  want = std::min(std::max(want, options_.min_extents), most);
  if (planning_ && planned_ahead_ > want / 2) return 0;
  return want > planned_ahead_ ? want - planned_ahead_ : 0;
}

int64_t StrideRun::Next(uint64_t offset) const {
  if (planning_) return next_planned_;
  int64_t next = 0;
  if (offset > static_cast<uint64_t>(INT64_MAX) ||
      __builtin_add_overflow(static_cast<int64_t>(offset), stride_, &next))
    return -1;  // past what a file offset can be: nothing to plan
  return next;
}

int64_t StrideRun::Expected() const {
  int64_t next = 0;
  if (repeats_ < 2 || off_reads_ > 0 || last_offset_ > static_cast<uint64_t>(INT64_MAX) ||
      __builtin_add_overflow(static_cast<int64_t>(last_offset_), stride_, &next) || next < 0)
    return -1;
  return next;
}

void StrideRun::Planned(uint64_t count, int64_t next) {
  if (count == 0) return;
  planning_ = true;
  next_planned_ = next;
  planned_ahead_ += count;
  bytes_.planned += count * last_length_;
}

void StrideRun::Reset() {
  const uint64_t off_length = off_length_;
  Bytes bytes = bytes_;
  bytes.dropped += planned_ahead_ * last_length_;
  *this = StrideRun(options_);
  off_length_ = off_length;
  bytes_ = bytes;
}

}  // namespace pfio::predict
