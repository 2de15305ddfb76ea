#include "common/size_parse.h"

#include <cmath>
#include <cstdlib>

namespace pfio {

Status ParseSize(const std::string &text, const char *what, uint64_t *bytes) {
  const char *s = text.c_str();
  char *end = nullptr;
  double v = std::strtod(s, &end);
  if (end == s || !std::isfinite(v) || v < 0) {
    return Status::Invalid(Format("%s = \"%s\": expected a size such as 4096, 64K, 1M or 4G", what,
                                  Shown(text).c_str()));
  }
  double mult = 1;
  std::string suffix(end);
  if (suffix == "" || suffix == "B") {
  } else if (suffix == "K" || suffix == "k" || suffix == "KiB") {
    mult = 1024.0;
  } else if (suffix == "M" || suffix == "m" || suffix == "MiB") {
    mult = 1024.0 * 1024;
  } else if (suffix == "G" || suffix == "g" || suffix == "GiB") {
    mult = 1024.0 * 1024 * 1024;
  } else if (suffix == "T" || suffix == "t" || suffix == "TiB") {
    mult = 1024.0 * 1024 * 1024 * 1024;
  } else {
    return Status::Invalid(
        Format("%s = \"%s\": unknown suffix \"%s\"; expected K, M, G or T "
               "(powers of 1024)",
               what, Shown(text).c_str(), Shown(suffix).c_str()));
  }
  double b = v * mult;
  if (b > 9.0e18 || b != std::floor(b)) {
    return Status::Invalid(Format("%s = \"%s\": expected a whole number of bytes below 8 EiB", what,
                                  Shown(text).c_str()));
  }
  *bytes = static_cast<uint64_t>(b);
  return Status::Ok();
}

std::string FormatSize(uint64_t bytes) {
  static const char *suffixes[] = {"T", "G", "M", "K"};
  for (int i = 0; i < 4; ++i) {
    const uint64_t unit = 1ull << (10 * (4 - i));
    if (bytes != 0 && bytes % unit == 0) return std::to_string(bytes / unit) + suffixes[i];
  }
  return std::to_string(bytes);
}

}  // namespace pfio
