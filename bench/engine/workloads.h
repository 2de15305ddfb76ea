// Benchmark access patterns, as block indices in consumption order (libprefetch §3.2, §5.3).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pfio::bench {

// gather: uniform random blocks, as many reads as the file has blocks (repeats allowed).
// dense: every block exactly once, random order.
// strided: a row-major 2D array of blocks read by rows, then by columns (GIMP-like).
// seq: every block in order.
bool IsWorkload(const std::string &name);
std::vector<uint32_t> MakeWorkload(const std::string &name, uint64_t blocks, uint64_t seed);

}  // namespace pfio::bench
