// Sources of settings: the PFIO_* environment under explicit settings and over the defaults,
// bad and unknown variables reported with the default kept, a front end's own names applied by
// the same rule (pfio_config_apply), names of one setting (buffer, coll_path, read_path), a
// front end's default below the environment, and PFIO_STATS as the short name of stats_path.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "clean_config.h"
#include "pfio/pfio.h"

namespace {

TEST(Config, EnvironmentIsUnderExplicitSettingsAndOverDefaults) {
  setenv("PFIO_BUDGET", "64M", 1);
  setenv("PFIO_POLICY", "forestall", 1);
  pfio_config *c = nullptr;
  ASSERT_EQ(pfio_config_create(&c), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(ConfigValue(c, "budget"), "64M");
  ASSERT_EQ(pfio_config_set(c, "budget", "128M"), PFIO_OK);
  EXPECT_EQ(ConfigValue(c, "budget"), "128M");
  EXPECT_EQ(ConfigValue(c, "policy"), "forestall");
  pfio_config_destroy(c);
  unsetenv("PFIO_BUDGET");
  unsetenv("PFIO_POLICY");
}

TEST(Config, BadOrUnknownEnvironmentIsReportedAndTheDefaultKept) {
  setenv("PFIO_QUEUE_DEPTH", "5000", 1);
  setenv("PFIO_INFILL_MAX", "64K", 1);
  pfio_config *c = nullptr;
  EXPECT_EQ(pfio_config_create(&c), PFIO_EINVAL);
  ASSERT_NE(c, nullptr);
  EXPECT_NE(std::string(pfio_last_error())
                .find("environment PFIO_QUEUE_DEPTH = \"5000\": expected 1 .. 1024"),
            std::string::npos)
      << pfio_last_error();
  EXPECT_EQ(ConfigValue(c, "queue_depth"), "32");
  EXPECT_EQ(ConfigValue(c, "infill_max"), "64K");  // the good variable is applied all the same
  pfio_config_destroy(c);
  unsetenv("PFIO_QUEUE_DEPTH");
  unsetenv("PFIO_INFILL_MAX");

  setenv("PFIO_BENCH_DIR", "/tmp", 1);  // the scripts' own: not a setting, not an error
  ASSERT_EQ(pfio_config_create(&c), PFIO_OK) << pfio_last_error();
  pfio_config_destroy(c);
  unsetenv("PFIO_BENCH_DIR");
  setenv("PFIO_BUGDET", "1G", 1);
  EXPECT_EQ(pfio_config_create(&c), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error())
                .find("environment PFIO_BUGDET: unknown variable; the nearest valid one is "
                      "PFIO_BUDGET"),
            std::string::npos)
      << pfio_last_error();
  pfio_config_destroy(c);
  // With no config, a bad environment fails the context: nothing is silently ignored.
  pfio_context *ctx = nullptr;
  EXPECT_EQ(pfio_context_create(nullptr, &ctx), PFIO_EINVAL);
  EXPECT_EQ(ctx, nullptr);
  unsetenv("PFIO_BUGDET");
}

// A front end's settings (hints, an HDF5 config's list) go through the environment's rule:
// names of one setting resolve by the keys' order whatever order they come in, a differing one
// is refused and named, a bad value or unknown key refused with the others applied all the same.
TEST(Config, ApplyTakesAFrontEndsSettingsByTheEnvironmentsRule) {
  CleanConfig c;
  const pfio_named_setting hints[] = {
      {"prefetch_read_path", "read_path", "engine"},  // an alias first: buffer still wins
      {"prefetch_budget", "budget", "lots"},         {"prefetch_buffer", "buffer", "cache"},
      {"prefetch_queue_depth", "queue_depth", "48"}, {"prefetch_bugdet", "bugdet", "1G"},
      {"prefetch_coll_path", "coll_path", "CACHE"},  // the same value: not refused
  };
  std::vector<std::pair<size_t, std::string>> refused;
  const pfio_setting_report collect = [](void *arg, size_t i, const char *message) {
    static_cast<std::vector<std::pair<size_t, std::string>> *>(arg)->emplace_back(i, message);
  };
  EXPECT_EQ(pfio_config_apply(c.get(), "hint", hints, 6, collect, &refused), PFIO_EINVAL);
  ASSERT_EQ(refused.size(), 3u);
  EXPECT_EQ(refused[0].first, 0u);
  EXPECT_EQ(refused[0].second,
            "hint prefetch_buffer = \"cache\" and prefetch_read_path = \"engine\" name one setting "
            "(buffer) with different values: expected one; prefetch_buffer's is used");
  EXPECT_EQ(refused[1].first, 1u);
  EXPECT_EQ(refused[1].second.rfind("hint prefetch_budget = \"lots\": expected", 0), 0u)
      << refused[1].second;
  EXPECT_EQ(refused[2].first, 4u);
  EXPECT_NE(refused[2].second.find("hint prefetch_bugdet: "), std::string::npos)
      << refused[2].second;
  EXPECT_NE(refused[2].second.find("\"budget\""), std::string::npos) << refused[2].second;
  EXPECT_EQ(std::string(pfio_last_error()), refused[0].second);
  EXPECT_EQ(c.Get("buffer"), "cache");
  EXPECT_EQ(c.Get("budget"), "0");  // refused: its value kept
  EXPECT_EQ(c.Get("queue_depth"), "48");
  // Applied settings are named: a front end's default no longer changes them.
  ASSERT_EQ(pfio_config_set_default(c.get(), "buffer", "engine"), PFIO_OK);
  EXPECT_EQ(c.Get("buffer"), "cache");
  ASSERT_EQ(pfio_config_set_default(c.get(), "budget", "1G"), PFIO_OK);
  EXPECT_EQ(c.Get("budget"), "1G");

  EXPECT_EQ(pfio_config_apply(c.get(), "hint", hints + 3, 1, nullptr, nullptr), PFIO_OK)
      << pfio_last_error();
  EXPECT_EQ(pfio_config_apply(c.get(), "hint", nullptr, 0, nullptr, nullptr), PFIO_OK);
  EXPECT_EQ(pfio_config_apply(c.get(), "hint", nullptr, 1, nullptr, nullptr), PFIO_EINVAL);
  const pfio_named_setting holed[] = {{"prefetch_budget", nullptr, "1G"}};
  EXPECT_EQ(pfio_config_apply(c.get(), "hint", holed, 1, nullptr, nullptr), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("settings[0] has a NULL"), std::string::npos)
      << pfio_last_error();
}

// buffer, coll_path and read_path are one setting: set under one name, read under every name;
// variables that name it with different values are reported, the first name in the keys' order
// (buffer, coll_path, read_path) used.
TEST(Config, BufferCollPathAndReadPathAreOneSetting) {
  CleanConfig c;
  EXPECT_EQ(c.Get("buffer"), "auto");
  ASSERT_EQ(pfio_config_set(c.get(), "read_path", "engine"), PFIO_OK);
  EXPECT_EQ(c.Get("buffer"), "engine");
  EXPECT_EQ(c.Get("coll_path"), "engine");
  setenv("PFIO_READ_PATH", "engine", 1);
  setenv("PFIO_COLL_PATH", "cache", 1);
  pfio_config *e = nullptr;
  EXPECT_EQ(pfio_config_create(&e), PFIO_EINVAL);
  ASSERT_NE(e, nullptr);
  const std::string why = pfio_last_error();
  EXPECT_NE(why.find("name one setting (buffer) with different values"), std::string::npos) << why;
  EXPECT_NE(why.find("PFIO_COLL_PATH's is used"), std::string::npos) << why;
  EXPECT_EQ(ConfigValue(e, "buffer"), "cache");
  pfio_config_destroy(e);
  setenv("PFIO_COLL_PATH", "Engine", 1);  // the same value: no error
  ASSERT_EQ(pfio_config_create(&e), PFIO_OK) << pfio_last_error();
  pfio_config_destroy(e);
  unsetenv("PFIO_READ_PATH");
  unsetenv("PFIO_COLL_PATH");
}

// A front end's default (pfio_config_set_default) applies only where neither the environment
// nor pfio_config_set named the setting, under any of its names; a bad value is refused anyway.
TEST(Config, AFrontEndsDefaultIsUnderTheEnvironmentAndSettings) {
  pfio_config *c = nullptr;
  ASSERT_EQ(pfio_config_create(&c), PFIO_OK) << pfio_last_error();
  ASSERT_EQ(pfio_config_set_default(c, "buffer", "cache"), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(ConfigValue(c, "buffer"), "cache");
  ASSERT_EQ(pfio_config_set(c, "coll_path", "engine"), PFIO_OK);
  ASSERT_EQ(pfio_config_set_default(c, "buffer", "cache"), PFIO_OK);
  EXPECT_EQ(ConfigValue(c, "buffer"), "engine") << "coll_path named the setting";
  EXPECT_EQ(pfio_config_set_default(c, "buffer", "kernel"), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("kernel"), std::string::npos);
  pfio_config_destroy(c);
  setenv("PFIO_BUFFER", "auto", 1);
  ASSERT_EQ(pfio_config_create(&c), PFIO_OK) << pfio_last_error();
  ASSERT_EQ(pfio_config_set_default(c, "read_path", "cache"), PFIO_OK);
  EXPECT_EQ(ConfigValue(c, "buffer"), "auto") << "PFIO_BUFFER named the setting";
  pfio_config_destroy(c);
  unsetenv("PFIO_BUFFER");
  EXPECT_EQ(pfio_config_set_default(nullptr, "buffer", "cache"), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("config"), std::string::npos);
}

// What the ROMIO driver publishes to MPI_File_get_info: the settings named by the environment,
// pfio_config_set or an applied setting, under any of their names; not a front end's default,
// not a refused value.
TEST(Config, NamedSettingsAreTheOnesTheUserChose) {
  setenv("PFIO_QUEUE_DEPTH", "16", 1);
  pfio_config *c = nullptr;
  ASSERT_EQ(pfio_config_create(&c), PFIO_OK) << pfio_last_error();
  unsetenv("PFIO_QUEUE_DEPTH");
  auto named = [&](const char *key) {
    int n = -1;
    EXPECT_EQ(pfio_config_named(c, key, &n), PFIO_OK) << pfio_last_error();
    return n;
  };
  EXPECT_EQ(named("queue_depth"), 1) << "PFIO_QUEUE_DEPTH named it";
  EXPECT_EQ(named("budget"), 0);
  ASSERT_EQ(pfio_config_set_default(c, "buffer", "cache"), PFIO_OK);
  EXPECT_EQ(named("buffer"), 0) << "a front end's default";
  const pfio_named_setting hints[] = {{"prefetch_read_path", "read_path", "engine"},
                                      {"prefetch_budget", "budget", "lots"}};
  EXPECT_EQ(pfio_config_apply(c, "hint", hints, 2, nullptr, nullptr), PFIO_EINVAL);
  EXPECT_EQ(named("budget"), 0) << "a refused value";
  EXPECT_EQ(named("buffer"), 1) << "read_path names buffer";
  EXPECT_EQ(named("coll_path"), 1);
  int n = -1;
  EXPECT_EQ(pfio_config_named(c, "bugdet", &n), PFIO_EINVAL);
  EXPECT_EQ(n, 0);
  EXPECT_NE(std::string(pfio_last_error()).find("\"budget\""), std::string::npos)
      << pfio_last_error();
  EXPECT_EQ(pfio_config_named(c, "budget", nullptr), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("named"), std::string::npos) << pfio_last_error();
  pfio_config_destroy(c);
}

TEST(Config, StatsIsTheShortNameOfStatsPath) {
  setenv("PFIO_STATS", "/tmp/pfio-stats-name.json", 1);
  pfio_config *c = nullptr;
  ASSERT_EQ(pfio_config_create(&c), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(ConfigValue(c, "stats_path"), "/tmp/pfio-stats-name.json");
  pfio_config_destroy(c);
  // A key of its own, an alias of stats_path: named with it at once, stats_path's value is used
  // and a different one refused, by the rule of every alias.
  setenv("PFIO_STATS_PATH", "/tmp/pfio-stats-long.json", 1);
  EXPECT_EQ(pfio_config_create(&c), PFIO_EINVAL);
  ASSERT_NE(c, nullptr);
  EXPECT_NE(std::string(pfio_last_error()).find("name one setting (stats_path)"), std::string::npos)
      << pfio_last_error();
  EXPECT_EQ(ConfigValue(c, "stats_path"), "/tmp/pfio-stats-long.json");
  EXPECT_EQ(ConfigValue(c, "stats"), "/tmp/pfio-stats-long.json");
  pfio_config_destroy(c);
  // Paths differ by case (round 4, item 13: /x/A.json and /x/a.json were taken as one, silently).
  setenv("PFIO_STATS", "/tmp/pfio-stats-A.json", 1);
  setenv("PFIO_STATS_PATH", "/tmp/pfio-stats-a.json", 1);
  EXPECT_EQ(pfio_config_create(&c), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("with different values"), std::string::npos)
      << pfio_last_error();
  pfio_config_destroy(c);
  // Words do not: buffer and its alias in two cases are one value.
  unsetenv("PFIO_STATS_PATH");
  unsetenv("PFIO_STATS");
  setenv("PFIO_BUFFER", "Engine", 1);
  setenv("PFIO_READ_PATH", "engine", 1);
  EXPECT_EQ(pfio_config_create(&c), PFIO_OK) << pfio_last_error();
  pfio_config_destroy(c);
  unsetenv("PFIO_BUFFER");
  unsetenv("PFIO_READ_PATH");
}

}  // namespace
