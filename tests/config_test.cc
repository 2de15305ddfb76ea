// The one configuration path: pfio_config_set / pfio_config_get on every key, good and bad
// values (the error names key, value and what is allowed), unknown keys (the nearest valid key
// is named), the PFIO_* environment and its precedence, the rules between keys, and versions.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "clean_config.h"
#include "pfio/pfio.h"
#include "test_util.h"

namespace {

// Every key with values it must take (and how get shows them back) and values it must refuse.
struct KeyCase {
  const char *key;
  std::vector<std::pair<std::string, std::string>> good;  // value set -> value got
  std::vector<std::string> bad;
};

const std::vector<KeyCase> &Cases() {
  static const std::vector<KeyCase> cases = {
      {"budget",
       {{"0", "0"}, {"1G", "1G"}, {"2097152", "2M"}, {"64M", "64M"}, {"2.5M", "2560K"}},
       {"1000", "1M", "1048576", "1P", "12Q", "-1", "", "lots", "1125899906842624"}},
      {"backend",
       {{"auto", "auto"},
        {"aio", "aio"},
        {"sync", "sync"},
        {"SYNC", "sync"},
#if PFIO_TEST_URING
        {"uring", "uring"}
#endif
       },
       {"3", "posix", "", "uring ",
#if !PFIO_TEST_URING
        "uring"
#endif
       }},
      {"window_mode", {{"batch", "batch"}, {"pipelined", "pipelined"}}, {"0", "window", ""}},
      {"infill_max",
       {{"0", "0"}, {"32K", "32K"}, {"16M", "16M"}, {"auto", "auto"}, {"Auto", "auto"}},
       {"17M", "64M", "x", "automatic"}},
      {"max_request",
       {{"64K", "64K"}, {"1M", "1M"}, {"64M", "64M"}, {"69632", "68K"}},
       {"4096", "65636", "128M", "60K"}},
      {"queue_depth", {{"1", "1"}, {"1024", "1024"}}, {"0", "5000", "-3", "8K", "1.5"}},
      {"window_percent", {{"1", "1"}, {"100", "100"}}, {"0", "101"}},
      {"timeout_ms", {{"1", "1"}, {"3600000", "3600000"}}, {"0", "3600001", "99999999999"}},
      {"aimd",
       {{"0", "0"}, {"1", "1"}, {"off", "0"}, {"enable", "1"}, {"TRUE", "1"}},
       {"2", "maybe", ""}},
      {"revalidate", {{"on", "1"}, {"0", "0"}, {"yes", "1"}}, {"sometimes", "2"}},
      {"huge_pages", {{"off", "0"}, {"1", "1"}, {"disable", "0"}}, {"2M", "always"}},
      {"reserve_percent", {{"1", "1"}, {"8", "8"}, {"50", "50"}}, {"0", "51", "ten"}},
      {"stats_path", {{"/tmp/s.json", "/tmp/s.json"}, {"", ""}}, {}},
      {"stats", {{"/tmp/s.json", "/tmp/s.json"}, {"", ""}}, {}},
      {"layout",
       {{"", ""}, {"stripe=64K,targets=4", "stripe=64K,targets=4"}, {"lustre", "lustre"}},
       {"stripe=64K,targets=0", "stripe=5000,targets=2", "lustre,targets=4", "raid"}},
      {"policy",
       {{"aggressive", "aggressive"},
        {"fixed-horizon", "fixed-horizon"},
        {"fixed_horizon", "fixed-horizon"},
        {"forestall", "forestall"}},
       {"3", "lru", ""}},
      {"horizon", {{"0", "0"}, {"1073741824", "1073741824"}}, {"1073741825"}},
      {"forestall_factor", {{"0", "0"}, {"64", "64"}}, {"65"}},
      {"target_reads", {{"0", "0"}, {"8", "8"}}, {"1025"}},
      {"target_stages", {{"0", "0"}, {"16", "16"}}, {"17"}},
      {"lookahead_rounds", {{"0", "0"}, {"1024", "1024"}}, {"1025"}},
      {"stage",
       {{"auto", "auto"}, {"none", "none"}, {"poke", "poke"}, {"pagecache", "pagecache"}},
       {"6", "disk", ""}},
      {"buffer", {{"engine", "engine"}, {"cache", "cache"}, {"auto", "auto"}}, {"page", "3", ""}},
      {"cache_release", {{"on", "1"}, {"off", "0"}}, {"maybe", "2"}},
      {"collective", {{"enable", "1"}, {"disable", "0"}}, {"maybe", "2"}},
      {"coll_lookahead", {{"0", "0"}, {"8", "8"}, {"64", "64"}}, {"65", "-1", "x"}},
      {"coll_ahead",
       {{"0", "0"}, {"64K", "64K"}, {"32M", "32M"}, {"64G", "64G"}},
       {"1K", "65G", "lots"}},
      {"coll_path",
       {{"engine", "engine"}, {"cache", "cache"}, {"auto", "auto"}},
       {"disk", "1", ""}},
      {"coll_timeout", {{"1", "1"}, {"86400", "86400"}}, {"0", "86401", "1h"}},
      {"read_path",
       {{"engine", "engine"}, {"cache", "cache"}, {"Auto", "auto"}},
       {"pagecache", "2"}},
      {"step_aside", {{"off", "0"}, {"enable", "1"}}, {"sometimes"}},
      {"print_hints", {{"1", "1"}, {"off", "0"}}, {"all"}},
      {"record", {{"/tmp/calls.rec", "/tmp/calls.rec"}, {"", ""}}, {}},
      {"replay", {{"run1.rec", "run1.rec"}, {"", ""}}, {}},
      {"hdf5", {{"off", "0"}, {"1", "1"}}, {"maybe"}},
      {"predict", {{"0", "0"}, {"on", "1"}}, {"strided"}},
      {"engine_min",
       {{"never", "never"}, {"NEVER", "never"}, {"64K", "64K"}, {"0", "0"}},
       {"sometimes", "-1"}},
  };
  return cases;
}

// pfio_config_get_number: sizes in bytes, counts, on/off as 1/0, choices as their index; text
// keys and unknown keys refused by name.
TEST(Config, NumbersOfSettings) {
  pfio_config *c = nullptr;
  ASSERT_EQ(pfio_config_create(&c), PFIO_OK) << pfio_last_error();
  ASSERT_EQ(pfio_config_set(c, "coll_ahead", "32M"), PFIO_OK);
  ASSERT_EQ(pfio_config_set(c, "coll_path", "engine"), PFIO_OK);
  ASSERT_EQ(pfio_config_set(c, "collective", "disable"), PFIO_OK);
  uint64_t v = 7;
  ASSERT_EQ(pfio_config_get_number(c, "coll_ahead", &v), PFIO_OK);
  EXPECT_EQ(v, 32u << 20);
  ASSERT_EQ(pfio_config_get_number(c, "coll_path", &v), PFIO_OK);
  EXPECT_EQ(v, 0u);  // "engine" is the first choice
  ASSERT_EQ(pfio_config_get_number(c, "read_path", &v), PFIO_OK);
  EXPECT_EQ(v, 0u);  // another name of the same setting, buffer
  ASSERT_EQ(pfio_config_get_number(c, "buffer", &v), PFIO_OK);
  EXPECT_EQ(v, 0u);
  ASSERT_EQ(pfio_config_get_number(c, "collective", &v), PFIO_OK);
  EXPECT_EQ(v, 0u);
  ASSERT_EQ(pfio_config_get_number(c, "coll_lookahead", &v), PFIO_OK);
  EXPECT_EQ(v, 8u);
  EXPECT_EQ(pfio_config_get_number(c, "layout", &v), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("is text"), std::string::npos);
  EXPECT_EQ(pfio_config_get_number(c, "colective", &v), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("collective"), std::string::npos);
  EXPECT_EQ(pfio_config_get_number(c, "budget", nullptr), PFIO_EINVAL);
  pfio_config_destroy(c);
}

TEST(Config, EveryKeyHasCases) {
  std::vector<std::string> keys;
  for (size_t i = 0; const char *k = pfio_config_key(i); ++i) keys.push_back(k);
  ASSERT_EQ(keys.size(), Cases().size());
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(keys[i], Cases()[i].key);
}

TEST(Config, DefaultsAreValidAndReadBack) {
  CleanConfig c;
  EXPECT_EQ(pfio_config_validate(c.get()), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(c.Get("budget"), "0");
  EXPECT_EQ(c.Get("infill_max"), "auto");
  EXPECT_EQ(c.Get("max_request"), "1M");
  EXPECT_EQ(c.Get("window_mode"), "pipelined");
  EXPECT_EQ(c.Get("backend"), "auto");
  EXPECT_EQ(c.Get("policy"), "aggressive");
  EXPECT_EQ(c.Get("stage"), "auto");
  EXPECT_EQ(c.Get("target_stages"), "1");
  EXPECT_EQ(c.Get("aimd"), "1");
  EXPECT_EQ(c.Get("huge_pages"), "1");
  EXPECT_EQ(c.Get("reserve_percent"), "8");
  EXPECT_EQ(c.Get("layout"), "");
}

TEST(Config, GoodValuesAreTakenAndReadBackInCanonicalForm) {
  for (const KeyCase &kc : Cases()) {
    for (const auto &[set, got] : kc.good) {
      CleanConfig c;
      ASSERT_EQ(pfio_config_set(c.get(), kc.key, set.c_str()), PFIO_OK)
          << kc.key << " = " << set << ": " << pfio_last_error();
      EXPECT_EQ(c.Get(kc.key), got) << kc.key << " = " << set;
      // What get prints, set takes back unchanged.
      ASSERT_EQ(pfio_config_set(c.get(), kc.key, got.c_str()), PFIO_OK) << pfio_last_error();
      EXPECT_EQ(c.Get(kc.key), got);
    }
  }
}

TEST(Config, BadValuesAreNamedWithKeyValueAndWhatIsAllowedAndChangeNothing) {
  for (const KeyCase &kc : Cases()) {
    for (const std::string &bad : kc.bad) {
      CleanConfig c;
      const std::string before = c.Get(kc.key);
      EXPECT_EQ(pfio_config_set(c.get(), kc.key, bad.c_str()), PFIO_EINVAL)
          << kc.key << " = " << bad;
      const std::string msg = pfio_last_error();
      const size_t named = msg.find(std::string(kc.key) + " = \"" + bad + "\": ");
      EXPECT_NE(named, std::string::npos) << msg;
      EXPECT_NE(msg.find("expected ", named), std::string::npos) << msg;
      EXPECT_EQ(c.Get(kc.key), before) << kc.key << " changed by a refused value " << bad;
    }
  }
}

TEST(Config, AllowedRangesAreSpelledOut) {
  CleanConfig c;
  pfio_config_set(c.get(), "queue_depth", "0");
  EXPECT_NE(std::string(pfio_last_error()).find("expected 1 .. 1024"), std::string::npos)
      << pfio_last_error();
  pfio_config_set(c.get(), "max_request", "4096");
  EXPECT_NE(std::string(pfio_last_error()).find("a multiple of 4K in 64K .. 64M"),
            std::string::npos)
      << pfio_last_error();
  pfio_config_set(c.get(), "policy", "lru");
  EXPECT_NE(std::string(pfio_last_error()).find("aggressive, fixed-horizon, forestall"),
            std::string::npos)
      << pfio_last_error();
  pfio_config_set(c.get(), "budget", "1000");
  EXPECT_NE(std::string(pfio_last_error()).find("0 (auto) or 2M .. MemTotal ("), std::string::npos)
      << pfio_last_error();
}

TEST(Config, UnknownKeysNameTheNearestValidKey) {
  CleanConfig c;
  const std::vector<std::pair<const char *, const char *>> typos = {
      {"bugdet", "budget"},          {"prefetch_budget", "budget"},
      {"queue_dept", "queue_depth"}, {"memory_budget", "budget"},
      {"Policy", "policy"},          {"lookahead", "lookahead_rounds"}};
  for (const auto &[typo, nearest] : typos) {
    EXPECT_EQ(pfio_config_set(c.get(), typo, "1"), PFIO_EINVAL) << typo;
    const std::string msg = pfio_last_error();
    EXPECT_NE(msg.find(std::string("key \"") + typo + "\": unknown"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::string("nearest valid key is \"") + nearest + "\""), std::string::npos)
        << msg;
    char buf[64];
    EXPECT_EQ(pfio_config_get(c.get(), typo, buf, sizeof buf), PFIO_EINVAL);
  }
}

TEST(Config, RulesBetweenKeysAreCheckedAtValidateAndCreate) {
  CleanConfig c;
  ASSERT_EQ(pfio_config_set(c.get(), "target_reads", "33"), PFIO_OK);  // queue_depth is 32
  EXPECT_EQ(pfio_config_validate(c.get()), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error())
                .find("target_reads = 33: expected 0 (auto) or 1 .. "
                      "queue_depth (32)"),
            std::string::npos)
      << pfio_last_error();
  pfio_context *ctx = reinterpret_cast<pfio_context *>(1);
  EXPECT_EQ(pfio_context_create(c.get(), &ctx), PFIO_EINVAL);
  EXPECT_EQ(ctx, nullptr);
  ASSERT_EQ(pfio_config_set(c.get(), "queue_depth", "64"), PFIO_OK);
  EXPECT_EQ(pfio_config_validate(c.get()), PFIO_OK) << pfio_last_error();
}

TEST(Config, GetNamesABufferTooSmall) {
  CleanConfig c;
  ASSERT_EQ(pfio_config_set(c.get(), "layout", "stripe=64K,targets=4"), PFIO_OK);
  char buf[8];
  std::memset(buf, '?', sizeof buf);  // must come back as ""
  EXPECT_EQ(pfio_config_get(c.get(), "layout", buf, sizeof buf), PFIO_EINVAL);
  EXPECT_STREQ(buf, "");
  EXPECT_NE(std::string(pfio_last_error()).find("size = 8"), std::string::npos)
      << pfio_last_error();
  EXPECT_NE(std::string(pfio_last_error()).find("expected at least 21"), std::string::npos)
      << pfio_last_error();
}

TEST(Config, NullArgumentsAreNamed) {
  CleanConfig c;
  EXPECT_EQ(pfio_config_set(nullptr, "budget", "1G"), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("config = NULL"), std::string::npos);
  EXPECT_EQ(pfio_config_set(c.get(), nullptr, "1G"), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("key = NULL"), std::string::npos);
  EXPECT_EQ(pfio_config_set(c.get(), "budget", nullptr), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("value = NULL"), std::string::npos);
  EXPECT_EQ(pfio_config_create(nullptr), PFIO_EINVAL);
  pfio_config_destroy(nullptr);
}

TEST(Config, VersionOfLibraryMatchesHeader) {
  EXPECT_EQ(pfio_version(), static_cast<unsigned>(PFIO_VERSION_NUMBER));
  EXPECT_EQ(std::string(pfio_version_string()), std::to_string(PFIO_VERSION_MAJOR) + "." +
                                                    std::to_string(PFIO_VERSION_MINOR) + "." +
                                                    std::to_string(PFIO_VERSION_PATCH));
}

TEST(Config, StrerrorNamesEveryStatus) {
  for (int s = PFIO_OK; s <= PFIO_ESTATE; ++s) {
    std::string m = pfio_strerror(static_cast<pfio_status>(s));
    EXPECT_EQ(m.rfind("PFIO_", 0), 0u) << s;
  }
}

}  // namespace

// A bad value is shown escaped and cut, whatever it holds: one readable line, not a whole
// megabyte with newlines in it (issue 13 item 11).
TEST(ConfigShown, BadValuesAreShownEscapedAndCut) {
  pfio_config *cfg = nullptr;
  ASSERT_EQ(pfio_config_create(&cfg), PFIO_OK);
  const std::string huge = "stripe=1M,targets=x\n" + std::string(1 << 20, 'y');
  EXPECT_EQ(pfio_config_set(cfg, "layout", huge.c_str()), PFIO_EINVAL);
  std::string m = pfio_last_error();
  EXPECT_LT(m.size(), 400u) << m.substr(0, 400);
  EXPECT_EQ(m.find('\n'), std::string::npos) << m.substr(0, 400);
  EXPECT_NE(m.find("(1048596 bytes)"), std::string::npos) << m.substr(0, 400);
  EXPECT_EQ(pfio_config_set(cfg, "budget", "1\tG\x01"), PFIO_EINVAL);
  m = pfio_last_error();
  EXPECT_NE(m.find("budget = \"1\\tG\\x01\""), std::string::npos) << m;
  EXPECT_EQ(pfio_config_set(cfg, std::string(5000, 'k').c_str(), "1"), PFIO_EINVAL);
  m = pfio_last_error();
  EXPECT_LT(m.size(), 400u) << m.substr(0, 400);
  pfio_config_destroy(cfg);
}

// A stats file that cannot be written is named by where its path came from (issue 13 item 11:
// the message used to name only the setting, not PFIO_STATS, which is what users set).
TEST(ConfigShown, AnUnwritableStatsPathNamesWhereItCameFrom) {
  pfio_config *cfg = nullptr;
  ASSERT_EQ(pfio_config_create(&cfg), PFIO_OK);
  ASSERT_EQ(pfio_config_set(cfg, "stats_path", "/nonexistent-dir/stats.json"), PFIO_OK);
  ASSERT_EQ(pfio_config_set(cfg, "budget", "4M"), PFIO_OK);
  pfio_context *ctx = nullptr;
  ASSERT_EQ(pfio_context_create(cfg, &ctx), PFIO_OK) << pfio_last_error();
  pfio_config_destroy(cfg);
  EXPECT_EQ(pfio_stats_write(ctx, "/nonexistent-dir/other.json"), PFIO_EIO);
  std::string m = pfio_last_error();
  EXPECT_EQ(m.rfind("pfio_stats_write: path = \"/nonexistent-dir/other.json\"", 0), 0u) << m;
  EXPECT_EQ(pfio_context_destroy(ctx), PFIO_EIO);
  m = pfio_last_error();
  EXPECT_NE(m.find("PFIO_STATS"), std::string::npos) << m;
  EXPECT_NE(m.find("/nonexistent-dir/stats.json"), std::string::npos) << m;
}

// Round 4, item 8: the stats path overwrote whatever it named (the data file became 734 bytes of
// JSON). Now a file that is not a pfio stats file, a symbolic link and a directory are refused
// and left as they are; a new path, and an earlier stats file, are written whole.
TEST(ConfigShown, AStatsPathNeverOverwritesWhatIsNotAStatsFile) {
  pfio::test::ScratchDir dir;
  const std::string data = dir.MakeFile("data.bin", 1 << 16, 3);
  const std::string link = dir.path() + "/link.json", fresh = dir.path() + "/stats.json";
  ASSERT_EQ(symlink(data.c_str(), link.c_str()), 0);
  pfio_config *cfg = nullptr;
  ASSERT_EQ(pfio_config_create(&cfg), PFIO_OK);
  ASSERT_EQ(pfio_config_set(cfg, "stats_path", data.c_str()), PFIO_OK);
  ASSERT_EQ(pfio_config_set(cfg, "budget", "4M"), PFIO_OK);
  pfio_context *ctx = nullptr;
  ASSERT_EQ(pfio_context_create(cfg, &ctx), PFIO_OK) << pfio_last_error();
  pfio_config_destroy(cfg);
  int32_t f = -1;
  ASSERT_EQ(pfio_file_open(ctx, data.c_str(), &f), PFIO_OK) << pfio_last_error();
  for (const std::string &path : {data, link, dir.path()}) {
    EXPECT_EQ(pfio_stats_write(ctx, path.c_str()), PFIO_EIO) << path;
    const std::string m = pfio_last_error();
    EXPECT_NE(m.find("refused"), std::string::npos) << m;
  }
  EXPECT_NE(std::string(pfio_last_error()).find("is a directory"), std::string::npos);
  EXPECT_EQ(pfio_stats_write(ctx, fresh.c_str()), PFIO_OK) << pfio_last_error();
  EXPECT_EQ(pfio_stats_write(ctx, fresh.c_str()), PFIO_OK) << "an earlier stats file is replaced";
  EXPECT_EQ(pfio_context_destroy(ctx), PFIO_EIO);  // its stats_path is the data file
  EXPECT_NE(std::string(pfio_last_error()).find("is not a pfio stats file"), std::string::npos)
      << pfio_last_error();
  struct stat st {};
  ASSERT_EQ(lstat(data.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 1 << 16);
  std::vector<char> bytes(1 << 16);
  FILE *in = std::fopen(data.c_str(), "rb");
  ASSERT_NE(in, nullptr);
  ASSERT_EQ(std::fread(bytes.data(), 1, bytes.size(), in), bytes.size());
  std::fclose(in);
  EXPECT_TRUE(pfio::test::HoldsPattern(bytes.data(), 0, bytes.size(), 3));
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}
