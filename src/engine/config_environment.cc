// The PFIO_* environment applied to a config: config_keys.h's ApplyEnvironment. Variables are
// named here (PFIO_<KEY>); ApplySettings applies them.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <vector>

#include "engine/config_keys.h"

namespace pfio {

Status ApplyEnvironment(Config *c, char **environ, std::vector<std::string> *named) {
  std::vector<NamedSetting> settings;
  Status unknown;
  for (char **e = environ; e && *e; ++e) {
    if (std::strncmp(*e, "PFIO_", 5) != 0) continue;  // an MPI launcher sets dozens of others
    const std::string entry(*e);
    if (entry.rfind("PFIO_TEST_", 0) == 0 || entry.rfind("PFIO_BENCH_", 0) == 0 ||
        entry.rfind("PFIO_VERBOSE=", 0) == 0) {
      continue;  // the test suite's and the benchmark scripts' own variables, and the drivers'
    }
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string var = entry.substr(0, eq), value = entry.substr(eq + 1);
    const std::string key = LowerCase(var.substr(5));
    if (FindConfigKey(key) != nullptr) {
      settings.push_back({var, key, value});
      continue;
    }
    std::string nearest = NearestConfigKey(key);
    std::transform(nearest.begin(), nearest.end(), nearest.begin(),
                   [](unsigned char ch) { return std::toupper(ch); });
    if (unknown.ok()) {
      unknown = Status::Invalid(
          Format("environment %s: unknown variable; the nearest valid one is PFIO_%s", var.c_str(),
                 nearest.c_str()));
    }
  }
  const Status applied = ApplySettings(c, "environment", settings, named);
  return unknown.ok() ? applied : unknown;
}

}  // namespace pfio
