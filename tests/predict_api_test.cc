// The predictors' C API (predict/pfio_predict.h), as the C front ends use it: bad arguments are
// refused with a message naming the value, a strided run is planned through it, and a request
// repeated shifted is predicted after two copies.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pfio_predict.h"

namespace {

TEST(PredictApi, BadArgumentsAreNamed) {
  EXPECT_EQ(pfio_stride_create(nullptr, nullptr), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("out = NULL"), std::string::npos);
  pfio_stride_options o{};
  o.min_extents = 100;
  o.max_extents = 10;
  pfio_stride *run = reinterpret_cast<pfio_stride *>(1);
  EXPECT_EQ(pfio_stride_create(&o, &run), PFIO_EINVAL);
  EXPECT_EQ(run, nullptr);
  EXPECT_NE(std::string(pfio_last_error()).find("min_extents = 100"), std::string::npos)
      << pfio_last_error();
  o = {};
  o.near_shift = -5;
  EXPECT_EQ(pfio_stride_create(&o, &run), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("near_shift = -5"), std::string::npos);
  pfio_calls *calls = nullptr;
  EXPECT_EQ(pfio_calls_create(0, &calls), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("confirmations = 0"), std::string::npos);
  pfio_stride_destroy(nullptr);
  pfio_calls_destroy(nullptr);
  EXPECT_EQ(pfio_sweep_create(nullptr), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("out = NULL"), std::string::npos);
  pfio_sweep_destroy(nullptr);
  pfio_judge *judge_out = nullptr;
  EXPECT_EQ(pfio_judge_create(nullptr), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("out = NULL"), std::string::npos);
  pfio_judge_destroy(nullptr);
  EXPECT_EQ(pfio_judge_take(nullptr, nullptr, 0, &judge_out), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("key = NULL"), std::string::npos);
  EXPECT_EQ(pfio_judge_take("k", nullptr, 0, nullptr), PFIO_EINVAL);
  EXPECT_EQ(pfio_judge_take("k", nullptr, 2, &judge_out), PFIO_EINVAL);
  EXPECT_NE(std::string(pfio_last_error()).find("first_read = NULL"), std::string::npos);
  pfio_judge_keep(nullptr, "k");  // nothing to keep: ignored
}

TEST(PredictApi, AStridedRunIsPlannedAndABreakDropsIt) {
  pfio_stride *run = nullptr;
  ASSERT_EQ(pfio_stride_create(nullptr, &run), PFIO_OK);
  pfio_stride_event ev{};
  for (uint64_t i = 0; i < 3; ++i) pfio_stride_observe(run, i * 8192, 4096, 0, &ev);
  ASSERT_TRUE(ev.running);
  const uint64_t want = pfio_stride_want(run, 4096, 0, 4096);
  EXPECT_EQ(want, 4096u);
  EXPECT_EQ(pfio_stride_next(run, 2 * 8192), 3 * 8192);
  EXPECT_EQ(pfio_stride_step(run), 8192);
  pfio_stride_planned(run, want, 3 * 8192 + static_cast<int64_t>(want) * 8192);
  EXPECT_TRUE(pfio_stride_planning(run));
  EXPECT_EQ(pfio_stride_ahead(run), want);
  pfio_stride_observe(run, 3 * 8192, 4096, 0, &ev);
  EXPECT_TRUE(ev.hit);
  EXPECT_EQ(pfio_stride_ahead(run), want - 1);
  pfio_stride_observe(run, 7, 4096, 0, &ev);
  EXPECT_TRUE(ev.dropped);
  EXPECT_FALSE(ev.switched_off) << "misses_off 0: never off";
  EXPECT_FALSE(pfio_stride_planning(run));
  EXPECT_FALSE(pfio_stride_off(run));
  pfio_stride_reset(run);
  pfio_stride_observe(run, 8, 4096, 0, &ev);
  EXPECT_FALSE(ev.running);
  pfio_stride_destroy(run);
}

TEST(PredictApi, ARequestRepeatedShiftedIsPredictedAfterTwoCopies) {
  pfio_calls *calls = nullptr;
  ASSERT_EQ(pfio_calls_create(2, &calls), PFIO_OK);
  EXPECT_FALSE(pfio_calls_seen(calls));
  auto request = [](uint64_t k) {
    std::vector<pfio_extent> e;
    for (uint64_t i = 0; i < 4; ++i) e.push_back({0, 0, k * 1000 + i * 100, 10});
    return e;
  };
  for (uint64_t k = 0; k < 3; ++k) {
    std::vector<pfio_extent> e = request(k);
    EXPECT_EQ(pfio_calls_observe(calls, e.data(), e.size()), 0);
  }
  EXPECT_TRUE(pfio_calls_seen(calls));
  EXPECT_EQ(pfio_calls_shift(calls), 1000);
  std::vector<pfio_extent> e = request(3);
  EXPECT_EQ(pfio_calls_observe(calls, e.data(), e.size()), 1);
  e[2].length = 11;
  EXPECT_EQ(pfio_calls_observe(calls, e.data(), e.size()), 0);
  EXPECT_EQ(pfio_calls_shift(calls), 0);
  pfio_calls_reset(calls);
  EXPECT_FALSE(pfio_calls_seen(calls));
  pfio_calls_destroy(calls);
}

TEST(PredictApi, AColumnSweepIsAdvisedRowByRowNearReadsFirst) {
  constexpr uint64_t kChunk = 8192, kRow = 2 << 20, kRows = 16, kEof = kRows * kRow;
  pfio_sweep *sweep = nullptr;
  ASSERT_EQ(pfio_sweep_create(&sweep), PFIO_OK);
  const pfio_extent *ranges = nullptr;
  for (uint64_t r = 0; r < kRows; ++r)
    EXPECT_EQ(pfio_sweep_observe(sweep, r * kRow, kChunk, kEof), 0);
  EXPECT_EQ(pfio_sweep_advice(sweep, &ranges, nullptr), 0u) << "a column not yet a sweep";
  EXPECT_EQ(pfio_sweep_observe(sweep, kChunk, kChunk, kEof), 0);
  EXPECT_FALSE(pfio_sweep_active(sweep));
  ASSERT_EQ(pfio_sweep_observe(sweep, kRow + kChunk, kChunk, kEof), 1);
  pfio_sweep_start(sweep, kRows * 256 * 1024, kEof);
  EXPECT_TRUE(pfio_sweep_active(sweep));
  size_t near = 0;
  ASSERT_EQ(pfio_sweep_advice(sweep, &ranges, &near), 2 * kRows);
  EXPECT_EQ(near, kRows);
  for (size_t i = 0; i < near; ++i) EXPECT_EQ(ranges[i].length, 2 * kChunk);
  for (size_t i = near; i < 2 * kRows; ++i) EXPECT_EQ(ranges[i].length, 256 * 1024 - 2 * kChunk);
  pfio_sweep_reset(sweep);
  EXPECT_FALSE(pfio_sweep_active(sweep));
  EXPECT_EQ(pfio_sweep_advice(sweep, &ranges, &near), 0u);
  pfio_sweep_destroy(sweep);
}

// One reader's judge through the C API: the stock path, 4x cheaper per byte, takes most reads;
// reset goes back to pfio.
TEST(PredictApi, AJudgeGivesMostReadsToTheCheaperStockPath) {
  pfio_judge *judge = nullptr;
  ASSERT_EQ(pfio_judge_create(&judge), PFIO_OK);
  uint64_t to_stock = 0;
  for (int k = 0; k < 2000; ++k) {
    const int stock = pfio_judge_next(judge);
    to_stock += stock;
    pfio_judge_record(judge, stock, 47008, stock ? 47008 : 4 * 47008);
  }
  uint64_t stock_calls = 0, decisions = 0, chosen = 0;
  pfio_judge_counts(judge, &stock_calls, &decisions, &chosen);
  EXPECT_EQ(stock_calls, to_stock);
  EXPECT_GT(stock_calls, 1800u);
  EXPECT_GE(decisions, 2u);
  EXPECT_EQ(chosen, decisions) << "every decision chose the cheaper path";
  pfio_judge_counts(judge, nullptr, nullptr, nullptr);  // any output may be left out
  pfio_judge_reset(judge);
  EXPECT_EQ(pfio_judge_next(judge), 0) << "after a reset pfio is tried first";
  pfio_judge_destroy(judge);
}

// Short files read one after another (20 reads each), the stock path 4x cheaper: a judge taken
// and kept under one key serves most reads of the later files on the stock path; judged anew,
// none (each file's reads never get past the first 24 on pfio); and a file whose first read has
// another shape (4x the bytes) takes none of it either.
TEST(PredictApi, AJudgeKeptUnderAKeyJudgesTheNextFileOnFromThere) {
  uint64_t later_stock = 0, anew_stock = 0;
  const pfio_extent read{0, 0, 0, 47008}, wider{0, 0, 0, 4 * 47008};
  for (int file = 0; file < 40; ++file) {
    pfio_judge *carried = nullptr, *fresh = nullptr;
    ASSERT_EQ(pfio_judge_take("test/predict api short files", &read, 1, &carried), PFIO_OK);
    ASSERT_EQ(pfio_judge_create(&fresh), PFIO_OK);
    for (int k = 0; k < 20; ++k) {
      for (pfio_judge *j : {carried, fresh}) {
        const int stock = pfio_judge_next(j);
        pfio_judge_record(j, stock, 47008, stock ? 47008 : 4 * 47008);
        if (file >= 10) (j == carried ? later_stock : anew_stock) += stock;
      }
    }
    uint64_t stock_calls = 0;
    pfio_judge_counts(carried, &stock_calls, nullptr, nullptr);
    EXPECT_LE(stock_calls, 20u) << "a file counts its own reads";
    pfio_judge_keep(carried, "test/predict api short files");
    pfio_judge_destroy(carried);
    pfio_judge_destroy(fresh);
  }
  EXPECT_EQ(anew_stock, 0u);
  EXPECT_GT(later_stock, 30u * 20 * 9 / 10);
  pfio_judge *other = nullptr;
  ASSERT_EQ(pfio_judge_take("test/predict api short files", &wider, 1, &other), PFIO_OK);
  for (int k = 0; k < 20; ++k) EXPECT_EQ(pfio_judge_next(other), 0) << "read " << k;
  pfio_judge_destroy(other);
}

}  // namespace
