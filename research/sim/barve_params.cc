#include "sim/barve_params.h"

#include <cmath>
#include <cstdlib>

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
  // Published (Barve Table 2): rpm, sectors per track, surfaces, capacity. Fitted by
  // research/scripts/fit_barve.py on the platform's own measured table, rows D = 2 and 4, and
  // checked on the rows it did not see (D = 3; Wren D = 7): the bus's sustained rate (at most its
  // nominal rate), a command's bus time, the average seek the host saw (published value in the
  // comment), the head rate (between Table 2's measured surface rate and the track geometry's rate)
  // and the host's cost of one LoadIntoDiskBuffer. host_ms and drive_ms keep the earlier even split
  // of a 0.5 ms (Wren: 1 ms) overhead; the fit moves them by less than the tables' rounding.
  if (name == "cheetah") {  // Seagate ST-34501W, 4.5 GB, 20 MB/s bus, Sun Ultra-1 (Table 6)
    p.rpm = 10033;
    p.head_rate = 13.2 * MB;  // fitted 13.2 = Table 2's measured rate (geometry 14.55)
    p.bus_rate = 16.7 * MB;   // fitted (nominal 20)
    p.cmd_bus_ms = 0.343;     // fitted
    p.track_bytes = 170 * 512;
    p.surfaces = 8;
    p.max_cyl = 4500000000ull / (170 * 8 * 512);
    p.avg_seek_ms = 7.7;  // fitted 7.70 = published 7.7
    p.a_ms = 0.6;
    p.host_ms = p.drive_ms = 0.25;
    p.stage_host_ms = 0.375;         // fitted: "the faster Sun Ultra-1 reduces the overhead" (§5)
  } else if (name == "barracuda") {  // Seagate ST-32171W, 2.1 GB, 20 MB/s bus, DEC Alpha (Table 5)
    p.rpm = 7200;
    p.head_rate = 8.03 * MB;  // fitted (Table 2 measured 6.25; geometry 10.0)
    p.bus_rate = 20 * MB;     // fitted, at the nominal rate
    p.cmd_bus_ms = 0.12;      // fitted
    p.track_bytes = 163 * 512;
    p.surfaces = 5;
    p.max_cyl = 2100000000ull / (163 * 5 * 512);
    p.avg_seek_ms = 8.94;  // fitted (published 9.4)
    p.a_ms = 0.8;
    p.host_ms = p.drive_ms = 0.25;
    p.stage_host_ms = 1.56;  // fitted
  } else if (name ==
             "wren") {  // Imprimis Wren-7 94601-15, ~600 MB, 5 MB/s SCSI-1, Sparc-20 (Table 4)
    p.rpm = 3597;
    p.head_rate = 2.1 * MB;  // fitted 2.1 = Table 2's measured rate (geometry 2.15)
    p.bus_rate = 3.18 * MB;  // fitted (nominal 5)
    p.cmd_bus_ms = 0.931;    // fitted
    p.track_bytes = 70 * 512;
    p.surfaces = 15;
    p.max_cyl = 600000000ull / (70 * 15 * 512);
    p.avg_seek_ms = 16.7;  // fitted (published 15)
    p.a_ms = 1.5;
    p.host_ms = p.drive_ms = 0.5;
    p.stage_host_ms = 2.2;  // Barve §5: aioread() costs 2.1-2.3 ms of host time on the Sparc-20
  } else {
    return Status::Invalid(
        Format("params = \"%s\": expected cheetah, barracuda or wren", name.c_str()));
  }
  FitSeek(&p);
  *out = p;
  return Status::Ok();
}

Status OverrideBusDisk(const std::string &spec, BusDiskParams *out) {
  BusDiskParams copy = *out;  // nothing changes unless every item is good
  BusDiskParams *p = &copy;
  struct Field {
    const char *key;
    double *value;
    double scale, lo, hi;  // value = text * scale, text in [lo, hi]
    bool refit;
  };
  const Field fields[] = {
      {"host_ms", &p->host_ms, 1, 0, 100, false},
      {"drive_ms", &p->drive_ms, 1, 0, 100, false},
      {"stage_host_ms", &p->stage_host_ms, 1, 0, 100, false},
      {"cmd_bus_ms", &p->cmd_bus_ms, 1, 0, 100, false},
      {"avg_seek_ms", &p->avg_seek_ms, 1, 0.5, 100, true},
      {"a_ms", &p->a_ms, 1, 0, 10, true},
      {"head_rate", &p->head_rate, 1e6, 0.1, 1000, false},
      {"bus_rate", &p->bus_rate, 1e6, 0.1, 1000, false},
  };
  bool refit = false;
  size_t at = 0;
  while (at < spec.size()) {
    size_t end = spec.find(',', at);
    if (end == std::string::npos) end = spec.size();
    const std::string item = spec.substr(at, end - at);
    at = end + 1;
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const Field *f = nullptr;
    for (const Field &c : fields) {
      if (key == c.key) f = &c;
    }
    if (f == nullptr) {
      return Status::Invalid(
          Format("disk parameter \"%s\": expected host_ms, drive_ms, stage_host_ms, cmd_bus_ms, "
                 "avg_seek_ms, a_ms, head_rate or bus_rate (as key=value)",
                 key.c_str()));
    }
    const std::string text = eq == std::string::npos ? "" : item.substr(eq + 1);
    char *rest = nullptr;
    const double v = std::strtod(text.c_str(), &rest);
    if (text.empty() || *rest != '\0' || !(v >= f->lo && v <= f->hi)) {
      return Status::Invalid(Format("disk parameter %s = \"%s\": expected a number in %g .. %g",
                                    f->key, text.c_str(), f->lo, f->hi));
    }
    *f->value = v * f->scale;
    refit |= f->refit;
  }
  if (refit) FitSeek(p);
  *out = copy;
  return Status::Ok();
}

}  // namespace pfio
