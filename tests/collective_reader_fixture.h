// What the CollectiveReader tests share: ranks as threads (InProcessTransport), each with its
// own pfio context on a real pattern file, the check of every byte a rank receives, and the
// fixture that makes the file (collective_reader_test.cc, collective_declared_test.cc).
#ifndef PFIO_TESTS_COLLECTIVE_READER_FIXTURE_H
#define PFIO_TESTS_COLLECTIVE_READER_FIXTURE_H

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <numeric>
#include <random>
#include <thread>

#include "collective/collective_reader.h"
#include "collective/plan_codec.h"
#include "collective/plan_record.h"
#include "in_process_transport.h"
#include "test_util.h"

namespace pfio::collective {
namespace {

constexpr uint64_t kSeed = 77;
constexpr uint64_t kBlock = 47008;

// infill_max of the ranks' contexts when a test sets it (nullptr: the default).
[[maybe_unused]] const char *infill = nullptr;
// The ranks' contexts' buffer kind when a test sets it ("cache": the engine's page-cache kind;
// nullptr: the default, the reorder buffer).
[[maybe_unused]] const char *buffer_kind = nullptr;
// Rank 0's budget when a test sets it (nullptr: 16M like the others).
[[maybe_unused]] const char *rank0_budget = nullptr;

// One rank: its context, its file, its reader.
struct Rank {
  Rank(test::InProcessGroup *group, int rank, const std::string &path, ReaderOptions options)
      : transport(group, rank) {
    pfio_config *cfg = nullptr;
    EXPECT_EQ(pfio_config_create(&cfg), PFIO_OK);
    const char *budget = rank == 0 && rank0_budget != nullptr ? rank0_budget : "16M";
    EXPECT_EQ(pfio_config_set(cfg, "budget", budget), PFIO_OK) << pfio_last_error();
    if (infill != nullptr) {
      EXPECT_EQ(pfio_config_set(cfg, "infill_max", infill), PFIO_OK) << pfio_last_error();
    }
    // The reorder buffer unless a test names the kind (buffer = auto would choose per file).
    EXPECT_EQ(pfio_config_set(cfg, "buffer", buffer_kind != nullptr ? buffer_kind : "engine"),
              PFIO_OK)
        << pfio_last_error();
    EXPECT_EQ(pfio_context_create(cfg, &ctx), PFIO_OK) << pfio_last_error();
    pfio_config_destroy(cfg);
    EXPECT_EQ(pfio_file_open(ctx, path.c_str(), &file), PFIO_OK) << pfio_last_error();
    EXPECT_TRUE(test::IsOk(CollectiveReader::Create(&transport, ctx, file, options, &reader)));
  }
  ~Rank() {
    reader.reset();
    EXPECT_EQ(pfio_context_destroy(ctx), PFIO_OK) << pfio_last_error();
  }
  test::InProcessTransport transport;
  pfio_context *ctx = nullptr;
  int32_t file = -1;
  std::unique_ptr<CollectiveReader> reader;
};

// Runs body(rank) on `ranks` threads, one reader each.
inline void RunRanks(int ranks, const std::string &path, const ReaderOptions &options,
                     const std::function<void(Rank &, int)> &body) {
  test::InProcessGroup group(ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      Rank rank(&group, r, path, options);
      body(rank, r);
    });
  for (auto &t : threads) t.join();
}

// Reads `extents` into one buffer (pieces in order) and checks every byte.
inline void ReadAndCheck(Rank &rank, const FileRanges &extents, uint64_t *hits = nullptr) {
  uint64_t total = 0;
  for (const FileRange &e : extents) total += e.length;
  std::vector<uint8_t> buf(total + 1);
  std::vector<pfio_read_piece> pieces;
  uint64_t at = 0;
  for (const FileRange &e : extents) {
    pieces.push_back({buf.data() + at, e.offset, e.length});
    at += e.length;
  }
  uint64_t nread = 0;
  bool stock = false;
  ASSERT_TRUE(test::IsOk(rank.reader->Read(pieces.data(), pieces.size(), false, &nread, &stock)));
  ASSERT_FALSE(stock);
  ASSERT_EQ(nread, total);
  at = 0;
  for (const FileRange &e : extents) {
    ASSERT_TRUE(test::HoldsPattern(buf.data() + at, e.offset, e.length, kSeed));
    at += e.length;
  }
  if (hits) *hits = rank.reader->stats().predicted_hits;
}

// What a front end does with a call routed kAlone: the rank reads its own extents through its
// own pfio context, no other rank involved; every byte checked.
inline void ReadAlone(Rank &rank, const FileRanges &extents) {
  for (const FileRange &e : extents) {
    std::vector<uint8_t> buf(e.length + 1);
    uint64_t nread = 0;
    ASSERT_EQ(pfio_read(rank.ctx, rank.file, buf.data(), e.offset, e.length, &nread), PFIO_OK)
        << pfio_last_error();
    ASSERT_EQ(nread, e.length);
    ASSERT_TRUE(test::HoldsPattern(buf.data(), e.offset, e.length, kSeed));
  }
}

inline FileRanges Interleaved(int rank, int ranks, uint64_t call, uint64_t per_call) {
  FileRanges out;
  for (uint64_t i = 0; i < per_call; ++i)
    out.push_back(
        {((call * per_call + i) * static_cast<uint64_t>(ranks) + static_cast<uint64_t>(rank)) *
             kBlock,
         kBlock});
  return out;
}

class CollectiveReaderTest : public ::testing::Test {
 protected:
  test::ScratchDir dir_;
  std::string path_ = dir_.MakeFile("coll.data", 24 * kBlock * 4 * 6 + 4096, kSeed);
};

}  // namespace
}  // namespace pfio::collective

#endif
