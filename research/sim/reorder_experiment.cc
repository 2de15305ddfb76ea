#include "sim/reorder_experiment.h"

#include <algorithm>
#include <random>
#include <unordered_set>
#include <vector>

namespace pfio {

ReorderResult RunReorder(const DiskParams &disk, uint64_t file_size, uint64_t block,
                         uint64_t buffer, uint64_t seed) {
  const uint64_t n = file_size / block;
  const uint64_t k = std::max<uint64_t>(1, buffer / block);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<uint64_t> pick(0, n - 1);
  std::vector<uint64_t> accesses(n);
  for (auto &a : accesses) a = pick(rng);

  DiskModel model(disk);
  ReorderResult r;
  double now = 0, seek_sum = 0;
  uint64_t requests = 0, prev = 0;
  bool first = true;
  std::vector<uint64_t> window;
  std::unordered_set<uint64_t> unique;
  for (size_t i = 0; i < accesses.size();) {
    window.clear();
    unique.clear();
    while (i < accesses.size() && (unique.size() < k || unique.count(accesses[i]))) {
      if (unique.insert(accesses[i]).second) window.push_back(accesses[i]);
      ++i;
    }
    std::sort(window.begin(), window.end());  // C-LOOK: ascending, then back to the lowest
    for (uint64_t page : window) {
      const uint64_t offset = page * block;
      if (!first) seek_sum += static_cast<double>(offset > prev ? offset - prev : prev - offset);
      first = false;
      now = model.Serve(offset, block, now);
      prev = offset;
      ++requests;
    }
    ++r.windows;
  }
  r.runtime_s = now;
  r.mean_seek_bytes = requests > 1 ? seek_sum / static_cast<double>(requests - 1) : 0;
  const double kd = static_cast<double>(k), nd = static_cast<double>(n);
  r.formula_seek_bytes = kd >= 2 ? 2 * nd * (kd - 1) / (kd * (kd + 1)) * block : 0;
  return r;
}

}  // namespace pfio
