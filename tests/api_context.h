// A pfio context made the way an application makes one (settings as strings through
// pfio_config_set), random block plans, and reading a plan through it with every byte checked.
// For the tests of the C API (PUBLIC_API in tests/CMakeLists.txt).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "pfio/pfio.h"
#include "test_util.h"

namespace pfio::test {

constexpr uint64_t kSeed = 42;  // the pattern of the tests' files, unless a test says otherwise
constexpr uint64_t kMiB = 1 << 20;

// A context made the way an application makes one: settings as strings through pfio_config_set.
using Settings = std::vector<std::pair<std::string, std::string>>;

struct Context {
  explicit Context(const Settings &settings) {
    pfio_config *cfg = nullptr;
    EXPECT_EQ(pfio_config_create(&cfg), PFIO_OK) << pfio_last_error();
    for (const auto &[key, value] : settings) {
      EXPECT_EQ(pfio_config_set(cfg, key.c_str(), value.c_str()), PFIO_OK) << pfio_last_error();
    }
    status = pfio_context_create(cfg, &ctx);
    EXPECT_EQ(status, PFIO_OK) << pfio_last_error();
    pfio_config_destroy(cfg);
  }
  Context(uint64_t budget, const std::string &mode, const std::string &backend = "auto")
      : Context(Config(budget, mode, backend)) {}
  ~Context() { EXPECT_EQ(pfio_context_destroy(ctx), PFIO_OK) << pfio_last_error(); }
  static Settings Config(uint64_t budget, const std::string &mode, const std::string &backend) {
    return {{"budget", std::to_string(budget)},
            {"buffer", "engine"},  // the reorder buffer: these tests' counters are its reads
            {"window_mode", mode},
            {"backend", backend},
            {"max_request", "256K"},
            {"timeout_ms", "20000"}};
  }
  int32_t Open(const std::string &path) {
    int32_t f = -1;
    EXPECT_EQ(pfio_file_open(ctx, path.c_str(), &f), PFIO_OK) << pfio_last_error();
    return f;
  }
  pfio_stats Stats() {
    pfio_stats s;
    EXPECT_EQ(pfio_stats_get(ctx, &s, sizeof s), PFIO_OK);
    return s;
  }
  pfio_context *ctx = nullptr;
  pfio_status status;
};

std::vector<pfio_extent> RandomBlocks(int32_t file, uint64_t file_size, uint64_t block,
                                      size_t count, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<uint64_t> pick(0, file_size / block - 1);
  std::vector<pfio_extent> v(count);
  for (auto &e : v) e = pfio_extent{file, 0, pick(rng) * block, block};
  return v;
}

// Reads every extent in order and checks the bytes.
void ReadAll(Context &c, const std::vector<pfio_extent> &plan, uint64_t seed = 42) {
  std::vector<char> buf;
  for (const auto &e : plan) {
    buf.resize(e.length);
    uint64_t n = 0;
    ASSERT_EQ(pfio_read(c.ctx, e.file, buf.data(), e.offset, e.length, &n), PFIO_OK)
        << pfio_last_error();
    ASSERT_EQ(n, e.length);
    ASSERT_TRUE(test::HoldsPattern(buf.data(), e.offset, e.length, seed));
  }
}

}  // namespace pfio::test
