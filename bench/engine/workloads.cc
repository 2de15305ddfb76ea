#include "workloads.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace pfio::bench {

bool IsWorkload(const std::string &name) {
  return name == "gather" || name == "dense" || name == "strided" || name == "seq";
}

std::vector<uint32_t> MakeWorkload(const std::string &name, uint64_t blocks, uint64_t seed) {
  std::vector<uint32_t> v;
  std::mt19937_64 rng(seed);
  if (name == "gather") {
    std::uniform_int_distribution<uint32_t> pick(0, static_cast<uint32_t>(blocks - 1));
    v.resize(blocks);
    for (auto &b : v) b = pick(rng);
  } else if (name == "dense" || name == "seq") {
    v.resize(blocks);
    std::iota(v.begin(), v.end(), 0u);
    if (name == "dense") std::shuffle(v.begin(), v.end(), rng);
  } else if (name == "strided") {
    // Columns: the largest power of two not above sqrt(blocks); rows: what fits.
    uint64_t cols = 1;
    while ((cols * 2) * (cols * 2) <= blocks) cols *= 2;
    const uint64_t rows = blocks / cols;
    v.reserve(2 * rows * cols);
    for (uint64_t r = 0; r < rows; ++r) {
      for (uint64_t c = 0; c < cols; ++c) v.push_back(static_cast<uint32_t>(r * cols + c));
    }
    for (uint64_t c = 0; c < cols; ++c) {
      for (uint64_t r = 0; r < rows; ++r) v.push_back(static_cast<uint32_t>(r * cols + c));
    }
  }
  return v;
}

}  // namespace pfio::bench
