#include "layout/striped_layout.h"

#include <algorithm>
#include <sstream>

#include "common/size_parse.h"

namespace pfio {

namespace {
using ull = unsigned long long;

Status ParseCount(const std::string &text, const char *what, uint64_t *v) {
  Status s = ParseSize(text, what, v);
  if (!s.ok())
    return Status::Invalid(
        Format("%s = \"%s\": expected a whole number", what, Shown(text).c_str()));
  return s;
}
}  // namespace

Status StripedLayout::Make(uint64_t stripe, uint32_t targets, uint32_t buses, std::string source,
                           std::unique_ptr<StripedLayout> *out) {
  if (stripe < kMinStripe || stripe > kMaxStripe || stripe % kPage != 0) {
    return Status::Invalid(
        Format("stripe = %llu: expected a multiple of 4096 in 4096 (4 KiB) .. "
               "%llu (4 GiB)",
               (ull)stripe, (ull)kMaxStripe));
  }
  if (targets < 1 || targets > kMaxTargets) {
    return Status::Invalid(Format("targets = %u: expected 1 .. %u", targets, kMaxTargets));
  }
  if (buses < 1 || buses > targets) {
    return Status::Invalid(Format("buses = %u: expected 1 .. targets (%u)", buses, targets));
  }
  out->reset(new StripedLayout(stripe, targets, buses, std::move(source)));
  return Status::Ok();
}

Status StripedLayout::Parse(const std::string &spec, std::unique_ptr<StripedLayout> *out) {
  uint64_t stripe = 0, targets = 0, buses = 1;
  bool have_stripe = false, have_targets = false;
  std::stringstream ss(spec);
  for (std::string item; std::getline(ss, item, ',');) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::Invalid(
          Format("layout \"%s\": item \"%s\" is not key=value; expected e.g. "
                 "stripe=1MiB,targets=8,buses=2",
                 Shown(spec).c_str(), Shown(item).c_str()));
    }
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    Status s;
    if (key == "stripe") {
      s = ParseSize(value, "stripe", &stripe);
      have_stripe = true;
    } else if (key == "targets") {
      s = ParseCount(value, "targets", &targets);
      have_targets = true;
    } else if (key == "buses") {
      s = ParseCount(value, "buses", &buses);
    } else {
      return Status::Invalid(
          Format("layout \"%s\": unknown key \"%s\"; expected stripe, targets "
                 "or buses",
                 Shown(spec).c_str(), Shown(key).c_str()));
    }
    if (!s.ok()) return s;
  }
  if (!have_stripe || !have_targets) {
    return Status::Invalid(
        Format("layout \"%s\": missing %s; expected e.g. "
               "stripe=1MiB,targets=8,buses=2",
               Shown(spec).c_str(), have_stripe ? "targets" : "stripe"));
  }
  if (targets > kMaxTargets) {
    return Status::Invalid(Format("targets = %llu: expected 1 .. %u", (ull)targets, kMaxTargets));
  }
  if (buses > kMaxTargets) {
    return Status::Invalid(
        Format("buses = %llu: expected 1 .. targets (%llu)", (ull)buses, (ull)targets));
  }
  return Make(stripe, static_cast<uint32_t>(targets), static_cast<uint32_t>(buses),
              "layout string \"" + spec + "\"", out);
}

Status StripedLayout::FromHints(const std::string &striping_unit,
                                const std::string &striping_factor,
                                std::unique_ptr<StripedLayout> *out) {
  uint64_t unit = 0, factor = 0;
  Status s = ParseCount(striping_unit, "striping_unit", &unit);
  if (!s.ok()) return s;
  s = ParseCount(striping_factor, "striping_factor", &factor);
  if (!s.ok()) return s;
  if (unit < kMinStripe || unit > kMaxStripe || unit % kPage != 0) {
    return Status::Invalid(
        Format("striping_unit = %llu: expected a multiple of 4096 in 4096 .. "
               "%llu",
               (ull)unit, (ull)kMaxStripe));
  }
  if (factor < 1 || factor > kMaxTargets) {
    return Status::Invalid(
        Format("striping_factor = %llu: expected 1 .. %u", (ull)factor, kMaxTargets));
  }
  return Make(
      unit, static_cast<uint32_t>(factor), 1,
      "MPI-IO hints striping_unit=" + striping_unit + ", striping_factor=" + striping_factor, out);
}

void StripedLayout::Map(uint64_t offset, uint64_t length, std::vector<Placement> *out) const {
  const uint64_t end = offset + length;
  for (uint64_t pos = offset; pos < end;) {
    const uint64_t index = pos / stripe_, within = pos % stripe_;
    const uint64_t n = std::min(end - pos, stripe_ - within);
    Placement p;
    p.file_offset = pos;
    p.length = n;
    p.target = static_cast<uint32_t>(index % targets_);
    p.bus = p.target % buses_;
    p.target_offset = (index / targets_) * stripe_ + within;
    out->push_back(p);
    pos += n;
  }
}

std::string StripedLayout::Describe() const {
  return Format("striped: stripe %s over %u targets on %u bus group%s (from %s)",
                Bytes(stripe_).c_str(), targets_, buses_, buses_ == 1 ? "" : "s", source_.c_str());
}

}  // namespace pfio
