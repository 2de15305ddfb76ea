// Fuzzes the configuration strings (pfio_config_set, the ROMIO hints and PFIO_* variables all
// end in SetConfig). Input: "key=value". Properties: a refusal names the key and leaves the
// config as it was; an accepted value read back with GetConfig and set again gives the same
// value back (what the user sees in stats and hints round-trips); a whole accepted config
// passes ValidateConfig unless the rule it breaks is one between fields.
#include <cstdint>
#include <string>

#include "engine/config.h"
#include "engine/config_keys.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string in(reinterpret_cast<const char *>(data), size);
  const size_t eq = in.find('=');
  const std::string key = eq == std::string::npos ? in : in.substr(0, eq);
  const std::string value = eq == std::string::npos ? "" : in.substr(eq + 1);
  pfio::Config c;
  std::string before;
  const bool known = pfio::FindConfigKey(key) != nullptr;
  if (known) FUZZ_CHECK(pfio::GetConfig(c, key, &before).ok(), "get %s", key.c_str());
  pfio::Status s = pfio::SetConfig(&c, key, value);
  if (!s.ok()) {
    FUZZ_CHECK(!s.message().empty(), "empty message for %s", key.c_str());
    if (known) {
      std::string after;
      FUZZ_CHECK(pfio::GetConfig(c, key, &after).ok() && after == before,
                 "refused %s changed it from '%s' to '%s'", key.c_str(), before.c_str(),
                 after.c_str());
    }
    return 0;
  }
  FUZZ_CHECK(known, "unknown key '%s' accepted", key.c_str());
  std::string shown;
  FUZZ_CHECK(pfio::GetConfig(c, key, &shown).ok(), "get %s after set", key.c_str());
  pfio::Config again;
  pfio::Status s2 = pfio::SetConfig(&again, key, shown);
  FUZZ_CHECK(s2.ok(), "%s = '%s' (shown for '%s') is refused: %s", key.c_str(), shown.c_str(),
             value.c_str(), s2.message().c_str());
  std::string shown2;
  FUZZ_CHECK(pfio::GetConfig(again, key, &shown2).ok() && shown2 == shown, "%s: '%s' then '%s'",
             key.c_str(), shown.c_str(), shown2.c_str());
  (void)pfio::ValidateConfig(c);
  return 0;
}
