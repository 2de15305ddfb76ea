// One source's settings applied to a config: config_keys.h's ApplySettings, the one rule for
// names that set one setting (buffer, coll_path, read_path; a key given twice).
#include <map>
#include <string>
#include <vector>

#include "engine/config_keys.h"

namespace pfio {

namespace {

// The message of a setting SetConfig refused, named as the source names it: SetConfig's starts
// with the key (`budget = "x": expected ...`), which becomes `hint prefetch_budget = "x": ...`.
Status Renamed(const Status &refused, const std::string &source, const NamedSetting &s) {
  const std::string &why = refused.message();
  const std::string rest =
      why.rfind(s.key, 0) == 0 ? why.substr(s.key.size()) : std::string(": ") + why;
  return Status::Invalid(source + " " + s.name + rest);
}

}  // namespace

Status ApplySettings(Config *c, const std::string &source,
                     const std::vector<NamedSetting> &settings, std::vector<std::string> *named,
                     const std::function<void(size_t, const Status &)> &report) {
  // Each setting's key (null: unknown), and the winner of each setting: the lowest key in the
  // keys' order (the setting's own name before its aliases), for one key the first given.
  std::vector<const ConfigKey *> keys(settings.size());
  std::map<std::string, size_t> winner;
  for (size_t i = 0; i < settings.size(); ++i) {
    keys[i] = FindConfigKey(settings[i].key);
    if (keys[i] == nullptr) continue;
    auto [it, fresh] = winner.emplace(SettingOf(settings[i].key), i);
    if (!fresh && keys[i] < keys[it->second]) it->second = i;
  }
  Status first;
  for (size_t i = 0; i < settings.size(); ++i) {
    const NamedSetting &s = settings[i];
    Status problem;
    if (keys[i] == nullptr) {
      problem = Renamed(SetConfig(c, s.key, s.value), source, s);
    } else {
      const std::string setting = SettingOf(s.key);
      const NamedSetting &used = settings[winner.at(setting)];
      // Words (a choice's name) match in any case, text (a path) only as written.
      const bool text = !keys[i]->number;
      if (&used != &s) {
        if (text ? used.value != s.value : LowerCase(used.value) != LowerCase(s.value)) {
          problem = Status::Invalid(
              Format("%s %s = \"%s\" and %s = \"%s\" name one setting (%s) with different values: "
                     "expected one; %s's is used",
                     source.c_str(), used.name.c_str(), Shown(used.value).c_str(), s.name.c_str(),
                     Shown(s.value).c_str(), setting.c_str(), used.name.c_str()));
        }
      } else if (Status set = SetConfig(c, s.key, s.value); !set.ok()) {
        problem = Renamed(set, source, s);
      } else if (named != nullptr) {
        named->push_back(setting);
      }
    }
    if (problem.ok()) continue;
    if (report) report(i, problem);
    if (first.ok()) first = problem;
  }
  return first;
}

}  // namespace pfio
