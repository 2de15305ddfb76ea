// The PFIO_* environment applied to a config: config_keys.h's ApplyEnvironment, with the rule for
// variables that name one setting under different names (buffer, coll_path, read_path).
#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "engine/config_keys.h"

namespace pfio {

Status ApplyEnvironment(Config *c, char **environ, std::vector<std::string> *named) {
  struct Naming {
    std::string var, value;
    const ConfigKey *key;
  };
  std::map<std::string, Naming> by_setting;  // who named each setting, for aliases
  Status first;
  for (char **e = environ; e && *e; ++e) {
    const std::string entry(*e);
    if (entry.rfind("PFIO_", 0) != 0 || entry.rfind("PFIO_TEST_", 0) == 0 ||
        entry.rfind("PFIO_BENCH_", 0) == 0 || entry.rfind("PFIO_VERBOSE=", 0) == 0) {
      continue;  // the test suite's and the benchmark scripts' own variables, and the drivers'
    }
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string var = entry.substr(0, eq), value = entry.substr(eq + 1);
    std::string key = LowerCase(var.substr(5));
    if (key == "stats") key = "stats_path";
    Status s;
    const ConfigKey *k = FindConfigKey(key);
    if (k == nullptr) {
      std::string nearest = NearestConfigKey(key);
      std::transform(nearest.begin(), nearest.end(), nearest.begin(),
                     [](unsigned char ch) { return std::toupper(ch); });
      s = Status::Invalid(
          Format("environment %s: unknown variable; the nearest valid one is PFIO_%s", var.c_str(),
                 nearest.c_str()));
    } else {
      const std::string setting = SettingOf(key);
      auto seen = by_setting.find(setting);
      // Keys() order: the setting's own name before its aliases.
      const bool wins = seen == by_setting.end() || k < seen->second.key;
      if (seen != by_setting.end() && LowerCase(seen->second.value) != LowerCase(value)) {
        const Naming &used = wins ? Naming{var, value, k} : seen->second;
        s = Status::Invalid(
            Format("environment %s = \"%s\" and %s = \"%s\" name one setting (%s) with different "
                   "values: expected one; %s's is used",
                   seen->second.var.c_str(), seen->second.value.c_str(), var.c_str(), value.c_str(),
                   setting.c_str(), used.var.c_str()));
      }
      if (wins) {
        Status set = SetConfig(c, key, value);
        // SetConfig's message starts with the key: name the variable instead.
        if (!set.ok()) {
          s = Status::Invalid("environment " + var + set.message().substr(key.size()));
        } else {
          by_setting[setting] = {var, value, k};
          if (named != nullptr) named->push_back(setting);
        }
      }
    }
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

}  // namespace pfio
