#include "sim/barve_model.h"

#include <algorithm>
#include <cmath>

namespace pfio {

namespace {
double Binomial(int n, int k) {
  double r = 1;
  for (int i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

// Inverse of the seek curve: the distance (cylinders) a seek of t ms covers.
double Cylinder(const BusDiskParams &p, double t) {
  if (t <= p.a_ms) return 0;
  const double at_e = p.SeekMs(p.e);
  if (t < at_e) return std::pow((t - p.a_ms) / p.b_ms, 2);
  return (t - p.c_ms) / p.k_ms;
}
}  // namespace

double ExpectedMinSeekMsClosedForm(const BusDiskParams &p, uint32_t disks) {
  const int n = 2 * static_cast<int>(disks);
  const double max_cyl = static_cast<double>(p.max_cyl), e = static_cast<double>(p.e);
  double sum = 0;
  for (int i = 0; i <= n; ++i) {
    sum += Binomial(n, i) * (i % 2 ? -1 : 1) * std::pow(std::sqrt(e / max_cyl), 2 * i + 1) /
           (2 * i + 1);
  }
  return p.a_ms + p.b_ms * std::sqrt(max_cyl) * sum +
         p.k_ms * max_cyl / (n + 1) * std::pow(1 - e / max_cyl, n + 1);
}

double ExpectedMinSeekMsIntegral(const BusDiskParams &p, uint32_t disks) {
  const double top = p.SeekMs(p.max_cyl);
  const int steps = 200000;
  double sum = 0;
  for (int i = 0; i < steps; ++i) {
    const double z = (i + 0.5) * top / steps;
    const double frac = std::min(1.0, Cylinder(p, z) / static_cast<double>(p.max_cyl));
    sum += std::pow(1 - frac, 2.0 * disks) * top / steps;
  }
  return sum;
}

double ModelReadDurationS(const BusDiskParams &p, uint32_t disks, uint64_t block, uint32_t fence) {
  const double b = static_cast<double>(block), d = disks;
  const double overhead = p.TotalOverheadS(), rot = p.RevS() / 2;
  const double bc = b * fence / 256.0;
  if (disks == 1) {
    const double mean_seek = p.avg_seek_ms / 1000.0;
    if (fence == 0) return overhead + mean_seek + rot + b / p.head_rate;  // eq. (1)
    return overhead + mean_seek + rot + bc / p.head_rate +
           std::max(b / p.bus_rate, (b - bc) / p.head_rate);  // eq. (2)
  }
  const double mpt = ExpectedMinSeekMsClosedForm(p, disks) / 1000.0 + rot;  // eq. (5)
  if (fence == 0) {
    const double bt = std::min(b, p.track_bytes / 2.0);
    return overhead + mpt + bt / p.head_rate + (d * b - bt) / p.bus_rate;  // eq. (3)
  }
  return overhead + mpt + bc / p.head_rate + d * b / p.bus_rate;  // eq. (4)
}

double ModelMbPerS(const BusDiskParams &p, uint32_t disks, uint64_t block, uint32_t fence) {
  return static_cast<double>(disks) * static_cast<double>(block) /
         ModelReadDurationS(p, disks, block, fence) / 1e6;
}

}  // namespace pfio
