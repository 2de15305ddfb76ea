// Every config field is validated and a bad value is reported with its name, value and range.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "pfio/pfio.h"

namespace {

// C callers can put any int in an enum field; C++ may not, so write the bytes.
template <class E>
void SetRaw(E *field, int v) {
  std::memcpy(field, &v, sizeof v);
}

void ExpectRejected(const pfio_config &c, const std::string &field, const std::string &value) {
  EXPECT_EQ(pfio_config_validate(&c), PFIO_EINVAL) << field;
  std::string msg = pfio_last_error();
  EXPECT_NE(msg.find(field + " = " + value), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected"), std::string::npos) << msg;
  pfio_context *ctx = reinterpret_cast<pfio_context *>(1);
  EXPECT_EQ(pfio_context_create(&c, &ctx), PFIO_EINVAL);
  EXPECT_EQ(ctx, nullptr);
}

TEST(Config, DefaultsAreValid) {
  pfio_config c;
  pfio_config_init(&c);
  EXPECT_EQ(pfio_config_validate(&c), PFIO_OK);
  EXPECT_EQ(c.infill_max, 32u * 1024);
  EXPECT_EQ(c.window_mode, PFIO_WINDOW_PIPELINED);
  EXPECT_EQ(c.backend, PFIO_BACKEND_AUTO);
}

TEST(Config, EachBadFieldIsNamed) {
  pfio_config c;
  pfio_config_init(&c);
  c.memory_budget = 1000;
  ExpectRejected(c, "memory_budget", "1000");
  pfio_config_init(&c);
  c.memory_budget = 1 << 20;  // one read and its bookkeeping need more than 1 MiB
  ExpectRejected(c, "memory_budget", "1048576");
  pfio_config_init(&c);
  c.memory_budget = 1ull << 50;
  ExpectRejected(c, "memory_budget", std::to_string(1ull << 50));
  pfio_config_init(&c);
  SetRaw(&c.backend, 9);
  ExpectRejected(c, "backend", "9");
  pfio_config_init(&c);
  SetRaw(&c.window_mode, -1);
  ExpectRejected(c, "window_mode", "-1");
  pfio_config_init(&c);
  c.infill_max = 64ull << 20;
  ExpectRejected(c, "infill_max", std::to_string(64ull << 20));
  pfio_config_init(&c);
  c.max_request = 4096;
  ExpectRejected(c, "max_request", "4096");
  pfio_config_init(&c);
  c.max_request = 65536 + 100;
  ExpectRejected(c, "max_request", "65636");
  pfio_config_init(&c);
  c.queue_depth = 0;
  ExpectRejected(c, "queue_depth", "0");
  pfio_config_init(&c);
  c.queue_depth = 5000;
  ExpectRejected(c, "queue_depth", "5000");
  pfio_config_init(&c);
  c.window_percent = 0;
  ExpectRejected(c, "window_percent", "0");
  pfio_config_init(&c);
  c.timeout_ms = 0;
  ExpectRejected(c, "timeout_ms", "0");
  pfio_config_init(&c);
  c.aimd = 2;
  ExpectRejected(c, "aimd", "2");
  pfio_config_init(&c);
  c.stats_path = "";
  ExpectRejected(c, "stats_path", "\"\"");
}

TEST(Config, EachBadSchedulingFieldIsNamed) {
  pfio_config c;
  pfio_config_init(&c);
  EXPECT_EQ(c.policy, PFIO_POLICY_AGGRESSIVE);
  EXPECT_EQ(c.stage, PFIO_STAGE_AUTO);
  EXPECT_EQ(c.target_stages, 1u);
  SetRaw(&c.policy, 3);
  ExpectRejected(c, "policy", "3");
  pfio_config_init(&c);
  c.horizon = (1u << 30) + 1;
  ExpectRejected(c, "horizon", std::to_string((1u << 30) + 1));
  pfio_config_init(&c);
  c.forestall_factor = 65;
  ExpectRejected(c, "forestall_factor", "65");
  pfio_config_init(&c);
  c.target_reads = 33;  // above queue_depth 32
  ExpectRejected(c, "target_reads", "33");
  pfio_config_init(&c);
  c.target_stages = 17;
  ExpectRejected(c, "target_stages", "17");
  pfio_config_init(&c);
  c.lookahead_rounds = 1025;
  ExpectRejected(c, "lookahead_rounds", "1025");
  pfio_config_init(&c);
  SetRaw(&c.stage, 6);
  ExpectRejected(c, "stage", "6");
}

TEST(Config, UringIsRejectedClearlyWhenNotBuilt) {
  pfio_config c;
  pfio_config_init(&c);
  c.backend = PFIO_BACKEND_URING;
  c.memory_budget = 8 << 20;
  pfio_context *ctx = nullptr;
  EXPECT_EQ(pfio_context_create(&c, &ctx), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("backend = 3"), std::string::npos);
}

TEST(Config, StrerrorNamesEveryStatus) {
  for (int s = PFIO_OK; s <= PFIO_ESTATE; ++s) {
    std::string m = pfio_strerror(static_cast<pfio_status>(s));
    EXPECT_EQ(m.rfind("PFIO_", 0), 0u) << s;
  }
}

}  // namespace
