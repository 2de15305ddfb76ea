#include "common/status.h"

#include <cstdarg>
#include <cstdio>

namespace pfio {

std::string Format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list copy;
  va_copy(copy, ap);
  int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, fmt, ap);
  va_end(ap);
  return out;
}

std::string Bytes(unsigned long long n) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  if (u == 0) return Format("%llu B", n);
  return Format("%llu (%.4g %s)", n, v, units[u]);
}

std::string Shown(const std::string &text) {
  constexpr size_t kMax = 64;
  std::string out;
  size_t i = 0;
  for (; i < text.size() && out.size() < kMax; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7f) {
      out += Format("\\x%02x", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  if (i < text.size()) out += Format("... (%zu bytes)", text.size());
  return out;
}

}  // namespace pfio
