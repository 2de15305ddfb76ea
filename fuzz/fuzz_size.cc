// Fuzzes ParseSize (every size a user types: budget, infill_max, max_request, layout stripes,
// bench options). Properties: a refusal names the field; an accepted size printed with
// FormatSize parses back to the same number of bytes.
#include <cstdint>
#include <string>

#include "common/size_parse.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  uint64_t bytes = 0;
  pfio::Status s = pfio::ParseSize(text, "budget", &bytes);
  if (!s.ok()) {
    FUZZ_CHECK(s.message().find("budget") != std::string::npos, "message '%s'",
               s.message().c_str());
    return 0;
  }
  const std::string shown = pfio::FormatSize(bytes);
  uint64_t again = 0;
  pfio::Status s2 = pfio::ParseSize(shown, "budget", &again);
  FUZZ_CHECK(s2.ok(), "'%s' (from %llu) is refused: %s", shown.c_str(),
             static_cast<unsigned long long>(bytes), s2.message().c_str());
  FUZZ_CHECK(again == bytes, "'%s' parses to %llu, not %llu", shown.c_str(),
             static_cast<unsigned long long>(again), static_cast<unsigned long long>(bytes));
  return 0;
}
