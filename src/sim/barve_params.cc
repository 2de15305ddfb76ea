#include "sim/barve_params.h"

#include <cmath>

namespace pfio {

double BusDiskParams::SeekMs(uint64_t d) const {
  if (d == 0) return 0;
  if (d <= e) return a_ms + b_ms * std::sqrt(static_cast<double>(d));
  return c_ms + k_ms * static_cast<double>(d);
}

namespace {

// Mean of SeekMs over the distance between two uniform random cylinders.
double MeanSeek(const BusDiskParams &p) {
  const int steps = 20000;
  double sum = 0;
  for (int i = 0; i < steps; ++i) {
    const double x = (i + 0.5) / steps;  // distance / MaxCyl, density 2(1 - x)
    sum += 2 * (1 - x) * p.SeekMs(static_cast<uint64_t>(x * p.max_cyl)) / steps;
  }
  return sum;
}

// Fits b and k (and c by continuity at e) to the average seek and a 2.2x full stroke.
void FitSeek(BusDiskParams *p) {
  p->e = p->max_cyl / 8;
  const double full = 2.2 * p->avg_seek_ms;
  double lo = 0, hi = 10;  // b in ms per sqrt(cylinder)
  for (int it = 0; it < 100; ++it) {
    p->b_ms = (lo + hi) / 2;
    const double at_e = p->a_ms + p->b_ms * std::sqrt(static_cast<double>(p->e));
    p->k_ms = (full - at_e) / static_cast<double>(p->max_cyl - p->e);
    p->c_ms = at_e - p->k_ms * static_cast<double>(p->e);
    if (MeanSeek(*p) > p->avg_seek_ms)
      hi = p->b_ms;
    else
      lo = p->b_ms;
  }
}

}  // namespace

Status LookupBusDisk(const std::string &name, BusDiskParams *out) {
  BusDiskParams p;
  p.name = name;
  const double MB = 1e6;
  if (name == "cheetah") {  // Seagate ST-34501W, 4.5 GB, on a 20 MB/s bus
    p.rpm = 10033;
    p.head_rate = 13.2 * MB;
    p.bus_rate = 20 * MB;
    p.track_bytes = 170 * 512;
    p.surfaces = 8;
    p.max_cyl = 4500000000ull / (170 * 8 * 512);
    p.avg_seek_ms = 7.7;
    p.a_ms = 0.6;
    p.overhead_ms = 0.5;
  } else if (name == "barracuda") {  // Seagate ST-32171W, 2.1 GB, on a 20 MB/s bus
    p.rpm = 7200;
    p.head_rate = 6.25 * MB;
    p.bus_rate = 20 * MB;
    p.track_bytes = 163 * 512;
    p.surfaces = 5;
    p.max_cyl = 2100000000ull / (163 * 5 * 512);
    p.avg_seek_ms = 9.4;
    p.a_ms = 0.8;
    p.overhead_ms = 0.5;
  } else if (name == "wren") {  // Imprimis Wren-7 94601-15, about 600 MB, on a 5 MB/s bus
    p.rpm = 3597;
    p.head_rate = 2.1 * MB;
    p.bus_rate = 5 * MB;
    p.track_bytes = 70 * 512;
    p.surfaces = 15;
    p.max_cyl = 600000000ull / (70 * 15 * 512);
    p.avg_seek_ms = 15;
    p.a_ms = 1.5;
    p.overhead_ms = 1.0;
  } else {
    return Status::Invalid(
        Format("params = \"%s\": expected cheetah, barracuda or wren", name.c_str()));
  }
  FitSeek(&p);
  *out = p;
  return Status::Ok();
}

}  // namespace pfio
