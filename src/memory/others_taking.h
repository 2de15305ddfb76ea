// OthersTaking: memory the node is losing to programs other than pfio. What programs hold
// (AnonPages + Shmem) grows when anything takes memory, pfio's own reads included; what the pfio
// processes of the node took (their resident memory, from the node registry) explains part of
// the growth, and the rest was taken by others. Over spans of at least kSpan seconds, a rest of
// kRatePercentPerSecond of MemTotal per second or more in kSpansInARow spans in a row is
// reported: a program is taking memory now, and prefetching should give some back before the
// node reaches its reserve, not when it does. One fast span is not enough: the registry's view
// of its processes is up to a sample old, and a burst (a window's bookkeeping planned at once)
// or a peer leaving (its slot goes before its memory does) looks like one. A span in which the
// number of pfio processes changed is not judged. (Growth alone cannot tell a hog from pfio's own;
// PSI and the reserve see a hog only once memory has run short. MemAvailable is no measure of the
// rate here: on the VMs measured it lagged the memory taken by up to 0.7 s and 600 MiB, then caught
// up at once.)
//
// Not thread-safe: the MemoryGovernor calls it with the context's mutex held.
#pragma once

#include <cstdint>

namespace pfio {

class OthersTaking {
 public:
  static constexpr double kSpan = 0.25;               // seconds
  static constexpr double kRatePercentPerSecond = 1;  // of MemTotal: 240 MiB/s on 23.5 GiB
  static constexpr int kSpansInARow = 2;

  // At `now` (seconds), programs hold `used` bytes (AnonPages + Shmem) of `total`, and the
  // `processes` pfio processes of the node `pfio_resident`. Returns the bytes others took in the
  // spans in a row that end now if they took them at the rate above or faster in each, else 0.
  // total = 0: unknown (off).
  uint64_t Observe(double now, uint64_t used, uint64_t total, uint64_t pfio_resident,
                   uint32_t processes = 1);
  // Bytes per second others took in the last span that closed (0 when they gave memory back).
  double last_rate() const { return last_rate_; }

 private:
  double since_ = -1;  // start of the open span (-1: none yet)
  uint64_t used_ = 0, pfio_ = 0;
  uint32_t processes_ = 0;
  int fast_spans_ = 0;     // spans in a row at the rate or faster
  double fast_bytes_ = 0;  // what others took in them
  double last_rate_ = 0;
};

}  // namespace pfio
