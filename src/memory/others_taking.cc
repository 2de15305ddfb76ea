#include "memory/others_taking.h"

namespace pfio {

uint64_t OthersTaking::Observe(double now, uint64_t used, uint64_t total, uint64_t pfio_resident,
                               uint32_t processes) {
  if (total == 0) return 0;
  auto restart = [&] { since_ = now, used_ = used, pfio_ = pfio_resident, processes_ = processes; };
  if (since_ < 0 || now < since_ || processes != processes_) {
    restart();
    fast_spans_ = 0, fast_bytes_ = 0;
    return 0;
  }
  const double span = now - since_;
  if (span < kSpan) return 0;
  // What programs took, less what pfio took (both may be negative: memory given back).
  const double took = static_cast<double>(used) - static_cast<double>(used_);
  const double pfio_took = static_cast<double>(pfio_resident) - static_cast<double>(pfio_);
  const double others = took - pfio_took;
  restart();
  last_rate_ = others > 0 ? others / span : 0;
  const double threshold = static_cast<double>(total) / 100 * kRatePercentPerSecond;
  if (last_rate_ < threshold) {
    fast_spans_ = 0, fast_bytes_ = 0;
    return 0;
  }
  ++fast_spans_;
  fast_bytes_ += others;
  if (fast_spans_ < kSpansInARow) return 0;
  const uint64_t bytes = static_cast<uint64_t>(fast_bytes_);
  fast_spans_ = 0, fast_bytes_ = 0;
  return bytes;
}

}  // namespace pfio
