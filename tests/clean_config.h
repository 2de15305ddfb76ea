// CleanConfig: a pfio config made with no PFIO_* variable in the environment, for the
// configuration tests (config_test.cc, config_sources_test.cc); the variables are restored when it
// goes.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <map>
#include <string>

#include "pfio/pfio.h"

// The value in force of `key` in `c` (pfio_config_get; a failure fails the test).
inline std::string ConfigValue(const pfio_config *c, const char *key) {
  char buf[256] = "";
  EXPECT_EQ(pfio_config_get(c, key, buf, sizeof buf), PFIO_OK) << key << ": " << pfio_last_error();
  return buf;
}

class CleanConfig {
 public:
  CleanConfig() {
    for (size_t i = 0; const char *k = pfio_config_key(i); ++i) {
      std::string var = "PFIO_" + Upper(k);
      if (const char *v = std::getenv(var.c_str())) saved_[var] = v;
      unsetenv(var.c_str());
    }
    EXPECT_EQ(pfio_config_create(&cfg_), PFIO_OK) << pfio_last_error();
  }
  ~CleanConfig() {
    pfio_config_destroy(cfg_);
    for (const auto &[k, v] : saved_) setenv(k.c_str(), v.c_str(), 1);
  }
  pfio_config *get() { return cfg_; }
  std::string Get(const char *key) { return ConfigValue(cfg_, key); }
  static std::string Upper(std::string s) {
    for (char &c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
  }

 private:
  pfio_config *cfg_ = nullptr;
  std::map<std::string, std::string> saved_;
};
