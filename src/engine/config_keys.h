// ConfigKeys: the one table of settings. Each key has one name, used as the C API key
// (pfio_config_set(c, "budget", "1G")), as the MPI-IO hint prefetch_<name> and as the
// environment variable PFIO_<NAME>; one parser, one range check and one error format serve all
// of them. A bad value is reported as `key = "value": expected ...`; an unknown key names the
// nearest valid one.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "engine/config.h"

namespace pfio {

struct ConfigKey {
  std::string name;     // "budget"
  std::string meaning;  // one line for --help and the docs
  // What is allowed, in words, e.g. "0 (auto) or 2M .. MemTotal".
  std::function<std::string()> allowed;
  // Parses `value` into the field; false when it is not of the field's form. No range check.
  std::function<bool(const std::string &value, Config *c)> parse;
  // The field as a string pfio_config_set accepts.
  std::function<std::string(const Config &c)> get;
  // True when the field is in range.
  std::function<bool(const Config &c)> in_range;
  // Optional, for a field out of range: a more precise reason than "expected <allowed>".
  std::function<std::string(const Config &c)> why_bad;
  // The field as a number (sizes in bytes, counts, 1/0, a choice's index); unset for text.
  std::function<uint64_t(const Config &c)> number;
  // An alias: the key whose field this one reads and writes (coll_path and read_path, the ROMIO
  // driver's names of buffer); empty for a key of its own.
  std::string same_as;
};

// All keys, in the order the docs list them; `count` gets their number.
const ConfigKey *ConfigKeys(size_t *count);

// The key called `name`, or null.
const ConfigKey *FindConfigKey(std::string_view name);

// ASCII lower case: keys, variables and choices are matched without case.
std::string LowerCase(std::string s);

// The key nearest to `name` (edit distance), ignoring a prefetch_ or pfio_ prefix and case.
const std::string &NearestConfigKey(const std::string &name);

// The key whose field `name` sets: `name` itself, or the key an alias stands for ("coll_path"
// -> "buffer"); `name` unchanged when it is no key.
std::string SettingOf(std::string_view name);
// The same for a key already found.
const std::string &SettingOf(const ConfigKey &key);

// Parses and range-checks one setting; on error *c is unchanged.
Status SetConfig(Config *c, const std::string &key, const std::string &value);

// The value in force of one setting.
Status GetConfig(const Config &c, const std::string &key, std::string *value);
// The value in force of a size, count, on/off or choice setting, as a number.
Status GetConfigNumber(const Config &c, const std::string &key, uint64_t *value);

// One setting as a front end names it: `name` is the front end's own name for it
// ("PFIO_BUFFER", "prefetch_buffer", "settings[2] buffer"), `key` the config key it sets.
struct NamedSetting {
  std::string name, key, value;
};

// Applies one source's settings (the environment, a file's hints, an HDF5 config's list) by one
// rule. Names of one setting (buffer, coll_path, read_path; a key given twice) take the value of
// the first in the keys' order (the setting's own name before its aliases; for one key, the first
// given), and another of them with a different value (ignoring case) is a problem. A bad value or
// an unknown key is a problem, and the setting keeps its value; the good ones are applied all the
// same. Every problem, named `<source> <name> = "value": ...`, goes to `report` (with its index in
// `settings`) when given, and the first is returned. `named` gets the setting (SettingOf) of
// every one applied.
Status ApplySettings(Config *c, const std::string &source,
                     const std::vector<NamedSetting> &settings, std::vector<std::string> *named,
                     const std::function<void(size_t, const Status &)> &report = nullptr);

// Applies every PFIO_<KEY> variable of `environ` by
// ApplySettings' rule, source "environment". Variables named PFIO_TEST_* and PFIO_BENCH_* belong
// to the test suite and the benchmark scripts and are skipped. The first unknown variable is
// returned (naming the nearest valid one), else ApplySettings' first problem.
Status ApplyEnvironment(Config *c, char **environ, std::vector<std::string> *named = nullptr);

// "key = value: expected <allowed>" for the first field out of range, else OK. Used by
// ValidateConfig.
Status CheckConfigRanges(const Config &c);

}  // namespace pfio
