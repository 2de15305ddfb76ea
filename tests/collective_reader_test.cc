// CollectiveReader among threads (InProcessTransport), each rank with its own pfio context on a
// real pattern file: every byte every rank receives is checked, for interleaved, random,
// odd-sized and overlapping requests, predictions right and wrong, one aggregator of many, the
// stock-path vote, and an aggregator's read error reaching every rank.
#include "collective/collective_reader.h"

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

#include "collective/plan_codec.h"
#include "collective/plan_record.h"
#include "in_process_transport.h"
#include "test_util.h"

namespace pfio::collective {
namespace {

constexpr uint64_t kSeed = 77;
constexpr uint64_t kBlock = 47008;

// infill_max of the ranks' contexts when a test sets it (nullptr: the default).
const char *infill = nullptr;
// Rank 0's budget when a test sets it (nullptr: 16M like the others).
const char *rank0_budget = nullptr;

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
    EXPECT_EQ(pfio_context_create(cfg, &ctx), PFIO_OK) << pfio_last_error();
    pfio_config_destroy(cfg);
    EXPECT_EQ(pfio_file_open(ctx, path.c_str(), &file), PFIO_OK) << pfio_last_error();
    if (options.buffer == BufferKind::kCache) {  // as the ROMIO driver passes ROMIO's descriptor
      cache_fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      EXPECT_GE(cache_fd, 0);
      options.cache_fd = cache_fd;
    }
    EXPECT_EQ(CollectiveReader::Create(&transport, ctx, file, options, &reader), "");
  }
  ~Rank() {
    reader.reset();
    if (cache_fd >= 0) close(cache_fd);
    EXPECT_EQ(pfio_context_destroy(ctx), PFIO_OK) << pfio_last_error();
  }
  test::InProcessTransport transport;
  pfio_context *ctx = nullptr;
  int32_t file = -1;
  int cache_fd = -1;
  std::unique_ptr<CollectiveReader> reader;
};

// Runs body(rank) on `ranks` threads, one reader each.
void RunRanks(int ranks, const std::string &path, const ReaderOptions &options,
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
void ReadAndCheck(Rank &rank, const FileRanges &extents, uint64_t *hits = nullptr) {
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
  std::string error;
  ASSERT_EQ(rank.reader->Read(pieces.data(), pieces.size(), false, &nread, &error),
            CollectiveReader::Outcome::kRead)
      << error;
  ASSERT_EQ(nread, total);
  at = 0;
  for (const FileRange &e : extents) {
    ASSERT_TRUE(test::HoldsPattern(buf.data() + at, e.offset, e.length, kSeed));
    at += e.length;
  }
  if (hits) *hits = rank.reader->stats().predicted_hits;
}

FileRanges Interleaved(int rank, int ranks, uint64_t call, uint64_t per_call) {
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

// The tests that hold for both read paths of the aggregators (engine, page cache).
class CollectiveReaderPathTest : public CollectiveReaderTest,
                                 public ::testing::WithParamInterface<BufferKind> {
 protected:
  ReaderOptions Options() const {
    ReaderOptions o;
    o.buffer = GetParam();
    return o;
  }
  // Nothing went through the engine on the cache path; something did on the engine path.
  static void ExpectPathUsed(Rank &rank) {
    pfio_stats st;
    ASSERT_EQ(pfio_stats_get(rank.ctx, &st, sizeof st), PFIO_OK);
    if (GetParam() == BufferKind::kCache) {
      EXPECT_EQ(st.bytes_read, 0u) << "the cache path read through the engine";
    } else if (rank.reader->stats().bytes_read > 0) {
      EXPECT_GT(st.bytes_read, 0u) << "the engine path read around the engine";
    }
  }
};

INSTANTIATE_TEST_SUITE_P(BothPaths, CollectiveReaderPathTest,
                         ::testing::Values(BufferKind::kEngine, BufferKind::kCache),
                         [](const ::testing::TestParamInfo<BufferKind> &info) {
                           return info.param == BufferKind::kCache ? "Cache" : "Engine";
                         });

TEST_P(CollectiveReaderPathTest, InterleavedCallsArePredictedAndEveryByteArrives) {
  ReaderOptions o = Options();
  o.unit = 64 << 10;
  o.round_bytes = 200 << 10;  // several rounds per call
  RunRanks(4, path_, o, [](Rank &rank, int r) {
    for (uint64_t call = 0; call < 6; ++call) ReadAndCheck(rank, Interleaved(r, 4, call, 24));
    const ReaderStats &s = rank.reader->stats();
    EXPECT_EQ(s.calls, 6u);
    EXPECT_EQ(s.predicted_hits, 4u) << "calls 2..5 follow the shift seen between 0 and 1";
    EXPECT_EQ(s.predicted_misses, 0u);
    EXPECT_GT(s.rounds, 6u);
    EXPECT_LE(s.plan_bytes, 6u * 16) << "24 strided blocks per call cost a few bytes";
    EXPECT_GT(s.bytes_read, 0u) << "every rank aggregates";
    ExpectPathUsed(rank);
  });
}

// A call whose every byte lies in the job's dense runs is left to the kernel's readahead and
// plans no calls ahead (they would be this call moved, and need no prefetch): on the cache path
// nothing is advised, on the engine path its plan entries are read directly
// (pfio_plan_readahead: bytes_passthrough, nothing prefetched). Sparse calls are planned ahead.
TEST_P(CollectiveReaderPathTest, OnlySparseCallsArePlannedAhead) {
  const bool cache = GetParam() == BufferKind::kCache;
  RunRanks(4, path_, Options(), [&](Rank &rank, int r) {
    for (uint64_t call = 0; call < 4; ++call) ReadAndCheck(rank, Interleaved(r, 4, call, 24));
    const ReaderStats &s = rank.reader->stats();
    EXPECT_EQ(s.predicted_hits, 2u);
    EXPECT_EQ(s.calls_planned_ahead, 0u) << "96 blocks side by side are dense";
    pfio_stats st;
    ASSERT_EQ(pfio_stats_get(rank.ctx, &st, sizeof st), PFIO_OK);
    if (!cache && s.bytes_read > 0) {
      EXPECT_EQ(st.bytes_passthrough, s.bytes_read) << "read directly, for readahead";
      EXPECT_EQ(st.requests, 0u) << "nothing prefetched";
    }
  });
  RunRanks(4, path_, Options(), [&](Rank &rank, int r) {
    // Half the blocks: runs of 4 blocks (184 KiB) with gaps as large, sparse.
    for (uint64_t call = 0; call < 3; ++call) ReadAndCheck(rank, Interleaved(r, 8, call, 24));
    const ReaderStats &s = rank.reader->stats();
    EXPECT_EQ(s.predicted_hits, 1u);
    if (s.bytes_read > 0) {
      EXPECT_GT(s.calls_planned_ahead, 0u);
    }
  });
}

TEST_F(CollectiveReaderTest, OnTheCachePathOwnBytesAreReadInOneBatchAndShippedOnesPerRound) {
  // Rounds of 64 KiB. Calls 0-1: each rank asks for its own 5 stripe units (contiguous, a
  // restart's pattern), which it reads itself and ships nothing: one batch a call, however many
  // rounds. Calls 2-3: 8 KiB blocks interleaved over the ranks, shipped between them: one batch
  // per round that has bytes for the aggregator to read. Every byte checked either way.
  ReaderOptions o;
  o.buffer = BufferKind::kCache;
  o.round_bytes = 64 << 10;
  o.unit = 64 << 10;
  o.lookahead_calls = 0;
  RunRanks(2, path_, o, [&](Rank &rank, int r) {
    const uint64_t unit = 64 << 10;
    for (uint64_t call = 0; call < 2; ++call) {
      const uint64_t before = rank.reader->stats().rounds;
      ReadAndCheck(rank, {{(call * 10 + static_cast<uint64_t>(r) * 5) * unit, 5 * unit}});
      EXPECT_GE(rank.reader->stats().rounds - before, 5u) << "call " << call;
    }
    EXPECT_EQ(rank.reader->stats().aggregator_reads, 2u) << "rank " << r << ": one per call";
    EXPECT_EQ(rank.reader->stats().bytes_shipped, 0u) << "rank " << r;
    const uint64_t before = rank.reader->stats().aggregator_reads;
    const uint64_t rounds_before = rank.reader->stats().rounds;
    for (uint64_t call = 2; call < 4; ++call) {
      FileRanges blocks;
      for (uint64_t i = 0; i < 16; ++i)
        blocks.push_back({(call * 64 + 2 * i + static_cast<uint64_t>(r)) * 8192 + 3, 8192});
      ReadAndCheck(rank, blocks);
    }
    EXPECT_GT(rank.reader->stats().bytes_shipped, 0u) << "rank " << r;
    // About 128 KiB an aggregator reads a call (its stripe units of 64 KiB): two rounds or more.
    EXPECT_GE(rank.reader->stats().aggregator_reads - before, 4u) << "rank " << r;
    EXPECT_LE(rank.reader->stats().aggregator_reads - before,
              rank.reader->stats().rounds - rounds_before)
        << "rank " << r << ": one batch per round with bytes to read when bytes are shipped";
  });
}

TEST_F(CollectiveReaderTest, ShiftsByWholeStripingPeriodsReuseThePlanAndWasteNothing) {
  // 4 ranks x 16 blocks of 4 KiB per call: each call moves by 256 KiB, a multiple of the
  // striping period (4 KiB units x 4 targets), so predicted calls are the call's plan moved.
  ReaderOptions o;
  o.unit = 4096;
  infill = "0";  // gaps between an aggregator's 4 KiB units are other aggregators' bytes
  RunRanks(4, path_, o, [](Rank &rank, int r) {
    for (uint64_t call = 0; call < 6; ++call) {
      FileRanges mine;
      for (uint64_t i = 0; i < 16; ++i)
        mine.push_back({((call * 16 + i) * 4 + static_cast<uint64_t>(r)) * 4096, 4096});
      ReadAndCheck(rank, mine);
    }
    EXPECT_EQ(rank.reader->stats().predicted_hits, 4u);
    pfio_stats st;
    ASSERT_EQ(pfio_stats_get(rank.ctx, &st, sizeof st), PFIO_OK);
    EXPECT_EQ(st.bytes_wasted, 0u) << "a prediction planned bytes no call read";
    EXPECT_EQ(st.misses, 0u) << "a read outside the plan";
  });
  infill = nullptr;
}

TEST_P(CollectiveReaderPathTest, RandomPermutationAcrossRanksAndCalls) {
  const uint64_t blocks = 4 * 6 * 24;
  std::vector<uint64_t> order(blocks);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(5));
  ReaderOptions o = Options();
  o.unit = 1 << 20;
  RunRanks(4, path_, o, [&](Rank &rank, int r) {
    for (uint64_t call = 0; call < 6; ++call) {
      FileRanges mine;
      for (uint64_t i = 0; i < 24; ++i)
        mine.push_back({order[(call * 4 + static_cast<uint64_t>(r)) * 24 + i] * kBlock, kBlock});
      ReadAndCheck(rank, mine);
    }
    EXPECT_EQ(rank.reader->stats().predicted_hits, 0u);
    ExpectPathUsed(rank);
  });
}

TEST_P(CollectiveReaderPathTest, OddSizedOverlappingRequestsIntoScatteredMemory) {
  ReaderOptions o = Options();
  o.unit = 4096;
  o.round_bytes = 5000;
  RunRanks(3, path_, o, [](Rank &rank, int r) {
    // Every rank asks for overlapping odd ranges, some twice, some empty, in no order; the
    // memory side is every other 3 bytes of a larger buffer (a strided memory type).
    std::mt19937_64 rng(100 + static_cast<uint64_t>(r));
    for (int call = 0; call < 4; ++call) {
      FileRanges extents;
      for (int i = 0; i < 9; ++i) extents.push_back({rng() % 300000, rng() % 9000});
      extents.push_back(extents.front());
      extents.push_back({12345, 0});
      uint64_t total = 0;
      for (const FileRange &e : extents) total += e.length;
      std::vector<uint8_t> memory(2 * total + 6 * extents.size() + 8, 0xEE);
      std::vector<pfio_read_piece> pieces;
      uint64_t slot = 0;
      for (const FileRange &e : extents)
        for (uint64_t at = 0; at < e.length; at += 3, slot += 6) {
          pieces.push_back({&memory[slot], e.offset + at, std::min<uint64_t>(3, e.length - at)});
        }
      uint64_t nread = 0;
      std::string error;
      ASSERT_EQ(rank.reader->Read(pieces.data(), pieces.size(), false, &nread, &error),
                CollectiveReader::Outcome::kRead)
          << error;
      ASSERT_EQ(nread, total);
      std::vector<uint8_t> want(3);
      for (const pfio_read_piece &p : pieces) {
        FillPattern(want.data(), p.offset, p.length, kSeed);  // works at any offset
        ASSERT_EQ(0, std::memcmp(want.data(), p.buf, p.length)) << "offset " << p.offset;
        ASSERT_EQ(static_cast<uint8_t *>(p.buf)[3], 0xEE) << "gap between pieces written";
      }
    }
  });
}

TEST_P(CollectiveReaderPathTest, APatternThatBreaksCostsAMissNeverABadByte) {
  ReaderOptions o = Options();
  o.unit = 128 << 10;
  RunRanks(2, path_, o, [](Rank &rank, int r) {
    for (uint64_t call : {0, 1, 2, 3, 9, 4, 5, 6})  // predicted 4 after 3: got 9
      ReadAndCheck(rank, Interleaved(r, 2, call, 24));
    const ReaderStats &s = rank.reader->stats();
    EXPECT_EQ(s.predicted_hits, 2u + 1u) << "calls 2, 3 and 6";
    EXPECT_EQ(s.predicted_misses, 3u) << "9 instead of 4, 4 instead of 15, 5 instead of -1";
  });
}

TEST_P(CollectiveReaderPathTest, OneAggregatorServesFourRanksAndLookaheadCanBeOff) {
  ReaderOptions o = Options();
  o.aggregators = 1;
  o.lookahead_calls = 0;
  o.round_bytes = 1 << 20;
  RunRanks(4, path_, o, [](Rank &rank, int r) {
    for (uint64_t call = 0; call < 4; ++call) ReadAndCheck(rank, Interleaved(r, 4, call, 24));
    const ReaderStats &s = rank.reader->stats();
    EXPECT_EQ(s.predicted_hits + s.predicted_misses, 0u);
    EXPECT_EQ(s.bytes_read, r == 0 ? 4u * 4 * 24 * kBlock : 0u);
  });
}

TEST_F(CollectiveReaderTest, OneRankAskingForTheStockPathSendsEveryRankThere) {
  RunRanks(3, path_, ReaderOptions{}, [&](Rank &rank, int r) {
    std::vector<uint8_t> buf(kBlock);
    pfio_read_piece piece{buf.data(), static_cast<uint64_t>(r) * kBlock, kBlock};
    uint64_t nread = 7;
    std::string error;
    EXPECT_EQ(rank.reader->Read(&piece, 1, r == 1, &nread, &error),
              CollectiveReader::Outcome::kStock);
    EXPECT_EQ(nread, 0u);
    // Past the end of the file as pfio knows it: the stock path too (the file may have grown).
    uint64_t size = 0;
    ASSERT_EQ(pfio_file_size(rank.ctx, rank.file, &size), PFIO_OK);
    piece.offset = r == 2 ? size - 10 : 0;
    EXPECT_EQ(rank.reader->Read(&piece, 1, false, &nread, &error),
              CollectiveReader::Outcome::kStock);
    EXPECT_EQ(rank.reader->stats().stock_calls, 2u);
    piece.offset = 0;
    EXPECT_EQ(rank.reader->Read(&piece, 1, false, &nread, &error), CollectiveReader::Outcome::kRead)
        << error;
    EXPECT_TRUE(test::HoldsPattern(buf.data(), 0, kBlock, kSeed));
  });
}

TEST_P(CollectiveReaderPathTest, AnAggregatorsReadErrorReachesEveryRank) {
  test::InProcessGroup group(3);
  std::vector<std::thread> threads;
  std::barrier<> opened(3);
  ReaderOptions o = Options();
  o.unit = 64 << 10;
  for (int r = 0; r < 3; ++r)
    threads.emplace_back([&, r] {
      Rank rank(&group, r, path_, o);
      opened.arrive_and_wait();
      if (r == 0) {
        EXPECT_EQ(truncate(path_.c_str(), 100000), 0);
      }
      opened.arrive_and_wait();
      // Every rank reads one block far past the new end (the size pfio saw at open is larger).
      std::vector<uint8_t> buf(kBlock);
      pfio_read_piece piece{buf.data(), (40 + static_cast<uint64_t>(r)) * kBlock, kBlock};
      uint64_t nread = 0;
      std::string error;
      EXPECT_EQ(rank.reader->Read(&piece, 1, false, &nread, &error),
                CollectiveReader::Outcome::kError);
      EXPECT_NE(error.find("aggregator rank"), std::string::npos) << error;
      EXPECT_EQ(nread, 0u);
      // The group is still usable: a read inside the file works.
      piece.offset = 1000;
      piece.length = 5000;
      EXPECT_EQ(rank.reader->Read(&piece, 1, false, &nread, &error),
                CollectiveReader::Outcome::kRead)
          << error;
      EXPECT_TRUE(test::HoldsPattern(buf.data(), 1000, 5000, kSeed));
    });
  for (auto &t : threads) t.join();
}

// Every rank's blocks of call k of a random permutation (the same shuffle on every rank).
FileRanges PermutedCall(const std::vector<uint64_t> &order, int rank, int ranks, uint64_t call) {
  FileRanges out;
  for (uint64_t i = 0; i < 24; ++i)
    out.push_back(
        {order[(call * static_cast<uint64_t>(ranks) + static_cast<uint64_t>(rank)) * 24 + i] *
             kBlock,
         kBlock});
  return out;
}

std::vector<uint64_t> Permutation(uint64_t n, uint64_t seed) {
  std::vector<uint64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  return order;
}

TEST_F(CollectiveReaderTest, DeclaredCallsArePlannedAndChecked) {
  const std::vector<uint64_t> order = Permutation(4 * 6 * 24, 9);
  RunRanks(4, path_, ReaderOptions{}, [&](Rank &rank, int r) {
    std::vector<FileRanges> mine;
    for (uint64_t call = 0; call < 5; ++call) mine.push_back(PermutedCall(order, r, 4, call));
    ASSERT_EQ(rank.reader->DeclareCollective(mine), "");
    for (uint64_t call = 0; call < 5; ++call) ReadAndCheck(rank, PermutedCall(order, r, 4, call));
    ReadAndCheck(rank, PermutedCall(order, r, 4, 5));  // not declared: no look-ahead, right bytes
    const ReaderStats &s = rank.reader->stats();
    EXPECT_EQ(s.declared_calls, 5u);
    EXPECT_EQ(s.predicted_hits, 5u);
    EXPECT_EQ(s.predicted_misses, 0u);
  });
}

TEST_F(CollectiveReaderTest, ADeclarationThatIsWrongCostsAMissNeverABadByte) {
  const std::vector<uint64_t> order = Permutation(4 * 6 * 24, 10);
  RunRanks(2, path_, ReaderOptions{}, [&](Rank &rank, int r) {
    std::vector<FileRanges> declared = {PermutedCall(order, r, 2, 0), PermutedCall(order, r, 2, 7)};
    ASSERT_EQ(rank.reader->DeclareCollective(declared), "");
    ReadAndCheck(rank, PermutedCall(order, r, 2, 0));
    ReadAndCheck(rank, PermutedCall(order, r, 2, 1));  // declared 7, read 1
    EXPECT_EQ(rank.reader->stats().predicted_hits, 1u);
    EXPECT_EQ(rank.reader->stats().predicted_misses, 1u);
  });
}

TEST_F(CollectiveReaderTest, RanksDeclaringDifferentCallCountsAreRefusedEverywhere) {
  RunRanks(3, path_, ReaderOptions{}, [&](Rank &rank, int r) {
    std::vector<FileRanges> mine(r == 1 ? 2 : 3, FileRanges{{0, 100}});
    std::string why = rank.reader->DeclareCollective(mine);
    EXPECT_NE(why.find("rank 1 declared 2 collective calls, rank 0 declared 3"), std::string::npos)
        << why;
    EXPECT_EQ(rank.reader->stats().declared_calls, 0u);
    ReadAndCheck(rank, FileRanges{{static_cast<uint64_t>(r) * 1000, 5000}});
  });
}

TEST_F(CollectiveReaderTest, ARecordedRunReplaysEveryCall) {
  const std::vector<uint64_t> order = Permutation(4 * 6 * 24, 11);
  const std::string record = dir_.path() + "/plan.rec";
  ReaderOptions recording;
  recording.file_name = path_;
  recording.record_path = record;
  RunRanks(3, path_, recording, [&](Rank &rank, int r) {
    for (uint64_t call = 0; call < 6; ++call) ReadAndCheck(rank, PermutedCall(order, r, 3, call));
    EXPECT_EQ(rank.reader->record_error(), "");
  });
  ReaderOptions replaying;
  replaying.file_name = path_;
  replaying.replay_path = record;
  RunRanks(3, path_, replaying, [&](Rank &rank, int r) {
    EXPECT_EQ(rank.reader->stats().declared_calls, 6u);
    for (uint64_t call = 0; call < 6; ++call) ReadAndCheck(rank, PermutedCall(order, r, 3, call));
    EXPECT_EQ(rank.reader->stats().predicted_hits, 6u);
    EXPECT_EQ(rank.reader->stats().predicted_misses, 0u);
  });
  // Another rank count, another file, another size: refused, naming both values.
  test::InProcessGroup two(2);
  test::InProcessTransport t(&two, 0);
  pfio_context *ctx = nullptr;
  ASSERT_EQ(pfio_context_create(nullptr, &ctx), PFIO_OK) << pfio_last_error();
  int32_t file = -1;
  ASSERT_EQ(pfio_file_open(ctx, path_.c_str(), &file), PFIO_OK);
  std::unique_ptr<CollectiveReader> reader;
  std::string why = CollectiveReader::Create(&t, ctx, file, replaying, &reader);
  EXPECT_NE(why.find("written by 3 ranks, this communicator has 2"), std::string::npos) << why;
  PlanRecordHeader header;
  ASSERT_EQ(ReadPlanRecordHeader(record, &header), "");
  why = CheckPlanRecord(record, header, path_ + ".other", header.size, 3);
  EXPECT_NE(why.find("written for file " + path_ + ", not " + path_ + ".other"), std::string::npos)
      << why;
  why = CheckPlanRecord(record, header, path_, header.size + 1, 3);
  EXPECT_NE(why.find("bytes; it has"), std::string::npos) << why;
  EXPECT_EQ(pfio_context_destroy(ctx), PFIO_OK);
}

TEST_F(CollectiveReaderTest, ARecordCutShortEndsAtItsLastCompleteCall) {
  const std::string record = dir_.path() + "/cut.rec";
  {
    PlanRecordWriter w;
    ASSERT_EQ(PlanRecordWriter::Open(record, "f", 10, 2, &w), "");
    ASSERT_EQ(w.Append({EncodePlan({{0, 4}}), EncodePlan({{4, 4}})}), "");
    ASSERT_EQ(w.Append({EncodePlan({{8, 1}}), EncodePlan({{9, 1}})}), "");
  }
  std::string text;
  {
    std::ifstream in(record, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::ofstream(record, std::ios::binary | std::ios::trunc) << text.substr(0, text.size() - 2);
  std::vector<CallPlans> calls;
  ASSERT_EQ(LoadPlanRecord(record, "f", 10, 2, 100, &calls), "");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0][1], (FileRanges{{4, 4}}));
  std::ofstream(record, std::ios::binary | std::ios::trunc) << "not a plan\n";
  EXPECT_NE(LoadPlanRecord(record, "f", 10, 2, 100, &calls).find("does not start with"),
            std::string::npos);
}

// prefetch_record never overwrites what is not a record: the file being read, another file, a
// directory are refused by name; an earlier record is replaced, and only once the new one is
// complete (it is written under a temporary name and renamed by Close).
TEST_F(CollectiveReaderTest, ARecordNeverOverwritesWhatIsNotARecord) {
  const std::string record = dir_.path() + "/plan.rec", other = dir_.path() + "/notes.txt";
  std::ofstream(other) << "precious\n";
  std::string why = CheckRecordTarget(path_, path_);
  EXPECT_NE(why.find("names the file being read"), std::string::npos) << why;
  why = CheckRecordTarget(other, path_);
  EXPECT_NE(why.find("is not a pfio plan record"), std::string::npos) << why;
  why = CheckRecordTarget(dir_.path(), path_);
  EXPECT_NE(why.find("is a directory"), std::string::npos) << why;
  PlanRecordWriter refused;
  EXPECT_NE(PlanRecordWriter::Open(other, path_, 10, 2, &refused), "");
  EXPECT_FALSE(refused.open());
  std::ifstream kept(other);
  std::string line;
  std::getline(kept, line);
  EXPECT_EQ(line, "precious");

  EXPECT_EQ(CheckRecordTarget(record, path_), "");  // new
  {
    PlanRecordWriter w;
    ASSERT_EQ(PlanRecordWriter::Open(record, path_, 10, 2, &w), "");
    ASSERT_EQ(w.Append({EncodePlan({{0, 4}}), EncodePlan({{4, 4}})}), "");
  }
  EXPECT_EQ(CheckRecordTarget(record, path_), "");  // an earlier record
  PlanRecordWriter second;
  ASSERT_EQ(PlanRecordWriter::Open(record, path_, 10, 2, &second), "");
  ASSERT_EQ(second.Append({EncodePlan({{8, 1}}), EncodePlan({{9, 1}})}), "");
  ASSERT_EQ(second.Append({EncodePlan({{1, 1}}), EncodePlan({{2, 1}})}), "");
  std::vector<CallPlans> calls;
  ASSERT_EQ(LoadPlanRecord(record, path_, 10, 2, 100, &calls), "");
  EXPECT_EQ(calls.size(), 1u) << "the earlier record stays until the new one is complete";
  ASSERT_EQ(second.Close(), "");
  calls.clear();
  ASSERT_EQ(LoadPlanRecord(record, path_, 10, 2, 100, &calls), "");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1][1], (FileRanges{{2, 1}}));
}

// A replay path that is a directory, and header numbers that overflow, are named as such.
TEST_F(CollectiveReaderTest, RecordHeadersWithBadNumbersAndDirectoriesAreNamed) {
  std::vector<CallPlans> calls;
  std::string why = LoadPlanRecord(dir_.path(), "f", 10, 2, 100, &calls);
  EXPECT_NE(why.find("is a directory"), std::string::npos) << why;
  const std::string record = dir_.path() + "/bad.rec";
  std::ofstream(record) << "pfio-collective-plan 1\nfile f\nsize 10\nranks 99999999999\ncalls\n";
  why = LoadPlanRecord(record, "f", 10, 2, 100, &calls);
  EXPECT_NE(why.find("ranks \"99999999999\": expected 1 to"), std::string::npos) << why;
  std::ofstream(record) << "pfio-collective-plan 1\nfile f\nsize -3\nranks 2\ncalls\n";
  why = LoadPlanRecord(record, "f", 10, 2, 100, &calls);
  EXPECT_NE(why.find("size \"-3\": expected a byte count"), std::string::npos) << why;
}

TEST_F(CollectiveReaderTest, ExchangeBuffersAndPrefetchStayWithinEveryRanksBudget) {
  // Rank 0 asks for most of every 64 KiB unit, each other rank for the rest of every third:
  // every unit is shared, so rank 0's bytes come from all four aggregators, first in each one's
  // send order. Asked for 16 MiB rounds, the ranks agree on what rank 0's 4 MiB budget allows,
  // and no rank receives more than a round at once.
  constexpr uint64_t kUnit = 64 << 10, kUnits = 96, kMine = 60 << 10;
  rank0_budget = "4M";
  ReaderOptions o;
  o.unit = kUnit;
  o.round_bytes = 16 << 20;
  o.own_extent = 0;  // rank 0's 60 KiB extents come through the aggregators, not its own reads
  RunRanks(4, path_, o, [&](Rank &rank, int r) {
    FileRanges want;
    for (uint64_t u = 0; u < kUnits; ++u) {
      if (r == 0) want.push_back({u * kUnit, kMine});
      if (r > 0 && u % 3 == static_cast<uint64_t>(r - 1))
        want.push_back({u * kUnit + kMine, kUnit - kMine});
    }
    for (int call = 0; call < 2; ++call) ReadAndCheck(rank, want);
    const ReaderStats &s = rank.reader->stats();
    const uint64_t rank0_cap = 3774873;  // 90 % of 4 MiB
    const uint64_t round = (rank0_cap / CollectiveReader::kBudgetShare) & ~uint64_t{4095};
    EXPECT_EQ(s.round_bytes, round);
    EXPECT_EQ(s.memory_charged, 2 * round);
    EXPECT_LE(s.exchange_peak, 2 * round);
    EXPECT_GT(s.exchange_steps, s.rounds) << "rank 0's receipts were never split into steps";
    pfio_stats e{};
    ASSERT_EQ(pfio_stats_get(rank.ctx, &e, sizeof e), PFIO_OK);
    EXPECT_EQ(e.memory_charged, 2 * round);
    EXPECT_LE(e.memory_peak + e.memory_charged, e.budget_cap) << "rank " << r;
  });
  rank0_budget = nullptr;
}

}  // namespace
}  // namespace pfio::collective
