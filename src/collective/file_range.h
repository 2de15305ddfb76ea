// FileRange: bytes [offset, offset + length) of the one file a collective call reads. The
// collective layer's unit: plans on the wire, pieces an aggregator reads, bytes a rank receives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pfio::collective {

struct FileRange {
  uint64_t offset = 0;
  uint64_t length = 0;

  uint64_t end() const { return offset + length; }
  bool operator==(const FileRange &) const = default;
};

using FileRanges = std::vector<FileRange>;

}  // namespace pfio::collective
