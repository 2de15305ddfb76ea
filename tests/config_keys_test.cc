// The nearest-key suggestion of an unknown configuration key (config_keys.cc) against a plain
// reference: full Levenshtein distance to every key, the first nearest in key order, after the
// same normalisation (case, a prefetch_ or pfio_ prefix, the first 64 characters, a name that
// holds a key whole or is held by one is at distance 0). The suggestion skips keys and stops
// distances early; that must never change the answer.
#include "engine/config_keys.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>
#include <string>
#include <vector>

#include "engine/config.h"
#include "levenshtein_reference.h"

namespace pfio {
namespace {

std::string ReferenceNearest(const std::string &name) {
  std::string bare = name;
  for (char &c : bare) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string prefix : {"prefetch_", "pfio_"})
    if (bare.rfind(prefix, 0) == 0) bare = bare.substr(prefix.size());
  if (bare.size() > 64) bare.resize(64);
  size_t count = 0;
  const ConfigKey *keys = ConfigKeys(&count);
  std::string best;
  size_t best_d = SIZE_MAX;
  for (size_t i = 0; i < count; ++i) {
    const std::string &k = keys[i].name;
    const bool contains = k.find(bare) != std::string::npos || bare.find(k) != std::string::npos;
    const size_t d = contains ? 0 : test::ReferenceLevenshtein(bare, k);
    if (d < best_d) best_d = d, best = k;
  }
  return best;
}

TEST(ConfigKeys, NearestKeyAgreesWithFullLevenshteinOnRandomNames) {
  size_t count = 0;
  const ConfigKey *keys = ConfigKeys(&count);
  ASSERT_GT(count, 10u);
  std::mt19937_64 rng(5);
  const std::string letters = "abcdefghijklmnopqrstuvwxyz_";
  for (int n = 0; n < 20000; ++n) {
    std::string name;
    if (n % 2 == 0) {  // a typo of a key: a few edits
      name = keys[rng() % count].name;
      for (uint64_t e = rng() % 4; e > 0 && !name.empty(); --e) {
        const size_t at = rng() % name.size();
        switch (rng() % 3) {
          case 0:
            name[at] = letters[rng() % letters.size()];
            break;
          case 1:
            name.erase(at, 1);
            break;
          default:
            name.insert(at, 1, letters[rng() % letters.size()]);
        }
      }
    } else {  // anything, of any length up to 100
      for (uint64_t len = rng() % 100; len > 0; --len) name += letters[rng() % letters.size()];
    }
    if (FindConfigKey(name) != nullptr) continue;
    Config c;
    const Status s = SetConfig(&c, name, "1");
    ASSERT_FALSE(s.ok()) << name;
    const std::string want = "the nearest valid key is \"" + ReferenceNearest(name) + "\"";
    ASSERT_NE(s.message().find(want), std::string::npos) << name << ": " << s.message();
  }
}

}  // namespace
}  // namespace pfio
