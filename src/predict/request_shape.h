// RequestShape: a coarse name of one request's file ranges (a rank's part of a collective call,
// or one independent read), so that a path judge carried from file to file (JudgeMemory) is
// taken only by a file whose first request looks like the one it learned on: the calls of one
// pattern share a name, a pattern another path serves better usually has another (random blocks
// against strided ones: docs/romio-driver.md, "Stepping aside").
//
// Contract. `ranges` in request order, each with `offset` and `length` (FileRange, pfio_extent;
// adjacent ones coalesced by the caller where it can). The name says the order (one run, evenly
// strided, ascending, unordered), how many ranges (1, 2-7, 8-63, more) and the bytes as a power
// of 4: "strided/64+/4^11". "empty" for none. Deterministic: equal requests, equal names.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace pfio::predict {

template <class Range>
std::string RequestShape(std::span<const Range> ranges) {
  if (ranges.empty()) return "empty";
  uint64_t bytes = 0;
  bool ascending = true, even = true;
  for (size_t i = 0; i < ranges.size(); ++i) {
    bytes += ranges[i].length;
    if (i == 0) continue;
    const Range &before = ranges[i - 1];
    if (ranges[i].offset < before.offset + before.length) ascending = false;
    if (ranges[i].offset - before.offset != ranges[1].offset - ranges[0].offset ||
        ranges[i].length != ranges[0].length)
      even = false;
  }
  const size_t n = ranges.size();
  const char *order = n == 1 ? "run" : !ascending ? "unordered" : even ? "strided" : "ascending";
  const char *count = n == 1 ? "1" : n < 8 ? "2-7" : n < 64 ? "8-63" : "64+";
  const int power_of_4 = (std::bit_width(bytes) - 1) / 2;
  return std::string(order) + "/" + count + "/4^" + std::to_string(power_of_4);
}

}  // namespace pfio::predict
