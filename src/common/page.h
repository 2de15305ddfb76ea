// The page: the unit of pfio's buffers, of O_DIRECT alignment and of stripes. One constant and
// the two roundings, so 4096 is written once.
#pragma once

#include <cstdint>

namespace pfio {

constexpr uint64_t kPage = 4096;

constexpr uint64_t PageAlignDown(uint64_t v) {
  return v / kPage * kPage;
}
constexpr uint64_t PageAlignUp(uint64_t v) {
  return (v + kPage - 1) / kPage * kPage;
}

}  // namespace pfio
