// The stats JSON and pfio_stats_fields come from one list of pfio_stats' fields (StatsFields):
// every field of the struct once, in order, with its own value; text fields as text. (The C call
// and the Python mirror built from it: tests/python/pfio_core_test.py.)
#include "stats/stats_json.h"

#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "pfio/pfio.h"
#include "stats/stats_fields.h"

namespace {

TEST(StatsFields, ListEveryFieldOnceBackToBackToTheStructsEnd) {
  const pfio_stats_field *fields = pfio::StatsFields().data();
  const size_t count = pfio::StatsFields().size();
  ASSERT_GT(count, 30u);
  std::set<std::string> names;
  size_t at = 0;
  for (size_t i = 0; i < count; ++i) {
    EXPECT_EQ(fields[i].offset, at) << fields[i].name;
    at += fields[i].size;
    EXPECT_TRUE(names.insert(fields[i].name).second) << fields[i].name << " listed twice";
  }
  EXPECT_EQ(at, sizeof(pfio_stats));
  EXPECT_EQ(fields[0].offset, offsetof(pfio_stats, reads));
  EXPECT_STREQ(fields[0].name, "reads");
  EXPECT_EQ(names.count("stall_seconds"), 1u);
  EXPECT_EQ(names.count("advice_failed"), 1u);
}

TEST(StatsFields, TheJsonHoldsEveryFieldWithItsValue) {
  pfio_stats s;
  std::memset(&s, 0, sizeof s);
  const pfio_stats_field *fields = pfio::StatsFields().data();
  const size_t count = pfio::StatsFields().size();
  // Each number field its own value (its index + 1, a double + 0.5), each text field its name.
  char *base = reinterpret_cast<char *>(&s);
  for (size_t i = 0; i < count; ++i) {
    if (fields[i].kind == PFIO_STATS_U64) {
      const uint64_t v = i + 1;
      std::memcpy(base + fields[i].offset, &v, sizeof v);
    } else if (fields[i].kind == PFIO_STATS_DOUBLE) {
      const double v = static_cast<double>(i) + 1.5;
      std::memcpy(base + fields[i].offset, &v, sizeof v);
    } else {
      ASSERT_EQ(fields[i].kind, PFIO_STATS_TEXT) << fields[i].name;
      std::strncpy(base + fields[i].offset, fields[i].name, fields[i].size - 1);
    }
  }
  const nlohmann::json j = nlohmann::json::parse(pfio::StatsToJson(s, {}));
  EXPECT_EQ(j.at("pfio"), "stats");
  EXPECT_EQ(j.size(), count + 2) << "pfio, the fields, aimd_history";
  for (size_t i = 0; i < count; ++i) {
    const auto &v = j.at(fields[i].name);
    if (fields[i].kind == PFIO_STATS_U64)
      EXPECT_EQ(v.get<uint64_t>(), i + 1) << fields[i].name;
    else if (fields[i].kind == PFIO_STATS_DOUBLE)
      EXPECT_DOUBLE_EQ(v.get<double>(), static_cast<double>(i) + 1.5) << fields[i].name;
    else
      EXPECT_EQ(v.get<std::string>(), std::string(fields[i].name).substr(0, fields[i].size - 1))
          << fields[i].name;
  }
  EXPECT_EQ(j.at("reads").get<uint64_t>(), s.reads);
  EXPECT_EQ(j.at("backend").get<std::string>(), std::string(s.backend));
}

}  // namespace
