// CollectiveReader with declared calls (checked across ranks, wrong ones costing a miss, never a
// byte), recorded runs replayed (cut short, never overwriting what is not a record, bad headers
// named), and every rank's exchange buffers and prefetch within its budget: every byte checked.
#include <unistd.h>

#include <atomic>

#include "collective_reader_fixture.h"

namespace pfio::collective {
namespace {

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
    ASSERT_TRUE(test::IsOk(rank.reader->DeclareCollective(mine)));
    for (uint64_t call = 0; call < 5; ++call) ReadAndCheck(rank, PermutedCall(order, r, 4, call));
    ReadAndCheck(rank, PermutedCall(order, r, 4, 5));  // not declared: no look-ahead, right bytes
    const ReaderStats &s = rank.reader->stats();
    EXPECT_EQ(s.declared_calls, 5u);
    EXPECT_EQ(s.predicted_hits, 5u);
    EXPECT_EQ(s.predicted_misses, 0u);
  });
}

// Where the page cache holds the file (the engine's page-cache kind: pfio_advise_now) the next
// declared call's dense runs are advised once the call before it is read, except what the
// kernel's readahead reaches by itself: the first 8 MiB of a run that continues the run before
// it; into the reorder buffer nothing is advised. 2 ranks, each reading its own part of a call,
// the ranks' parts side by side; the bytes advised summed over the ranks.
class DeclaredDense : public CollectiveReaderTest, public ::testing::WithParamInterface<bool> {
 protected:
  void TearDown() override {
    buffer_kind = nullptr;
    CollectiveReaderTest::TearDown();
  }
};

TEST_P(DeclaredDense, CallsAheadAreAdvisedWhereReadaheadDoesNotReach) {
  constexpr uint64_t kMiB = 1 << 20;
  ReaderOptions o;
  const bool page_cache = GetParam();
  buffer_kind = page_cache ? "cache" : nullptr;
  // Three calls of `part` bytes per rank, call c starting at c * stride: the bytes advised.
  auto advised_by = [&](uint64_t part, uint64_t stride) {
    std::atomic<uint64_t> advised{0};
    RunRanks(2, path_, o, [&](Rank &rank, int r) {
      auto call = [&](uint64_t c) {
        return FileRanges{{c * stride + static_cast<uint64_t>(r) * part, part}};
      };
      ASSERT_TRUE(test::IsOk(rank.reader->DeclareCollective({call(0), call(1), call(2)})));
      for (uint64_t c = 0; c < 3; ++c) ReadAndCheck(rank, call(c));
      EXPECT_EQ(rank.reader->stats().predicted_hits, 3u);
      advised += rank.reader->stats().bytes_advised;
    });
    return advised.load();
  };
  // 4 MiB calls 2 MiB apart: readahead does not cross a gap; calls 1 and 2 once each, call 0
  // (read while it is the current call) never.
  EXPECT_EQ(advised_by(2 * kMiB, 6 * kMiB), page_cache ? 2 * 4 * kMiB : 0u);
  // 4 MiB calls one after the other: inside the window readahead runs ahead of the reader.
  EXPECT_EQ(advised_by(2 * kMiB, 4 * kMiB), 0u);
  // 8.5 MiB calls one after the other (the file holds three): calls 1 and 2 past their first
  // 8 MiB (rounded out to the extents an aggregator reads), never all of them.
  const uint64_t large = advised_by(17 * kMiB / 4, 17 * kMiB / 2);
  if (page_cache) {
    EXPECT_GT(large, 0u);
    EXPECT_LT(large, 17 * kMiB);
  } else {
    EXPECT_EQ(large, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(BothKinds, DeclaredDense, ::testing::Bool(), [](const auto &info) {
  return info.param ? "PageCache" : "ReorderBuffer";
});

TEST_F(CollectiveReaderTest, ADeclarationThatIsWrongCostsAMissNeverABadByte) {
  const std::vector<uint64_t> order = Permutation(4 * 6 * 24, 10);
  RunRanks(2, path_, ReaderOptions{}, [&](Rank &rank, int r) {
    std::vector<FileRanges> declared = {PermutedCall(order, r, 2, 0), PermutedCall(order, r, 2, 7)};
    ASSERT_TRUE(test::IsOk(rank.reader->DeclareCollective(declared)));
    ReadAndCheck(rank, PermutedCall(order, r, 2, 0));
    ReadAndCheck(rank, PermutedCall(order, r, 2, 1));  // declared 7, read 1
    EXPECT_EQ(rank.reader->stats().predicted_hits, 1u);
    EXPECT_EQ(rank.reader->stats().predicted_misses, 1u);
  });
}

TEST_F(CollectiveReaderTest, RanksDeclaringDifferentCallCountsAreRefusedEverywhere) {
  RunRanks(3, path_, ReaderOptions{}, [&](Rank &rank, int r) {
    std::vector<FileRanges> mine(r == 1 ? 2 : 3, FileRanges{{0, 100}});
    const Status refused = rank.reader->DeclareCollective(mine);
    EXPECT_EQ(refused.code(), PFIO_EINVAL);
    const std::string why = refused.message();
    EXPECT_NE(why.find("rank 1 declared 2 collective calls, rank 0 declared 3"), std::string::npos)
        << why;
    EXPECT_EQ(rank.reader->stats().declared_calls, 0u);
    ReadAndCheck(rank, FileRanges{{static_cast<uint64_t>(r) * 1000, 5000}});
  });
}

// Round 4, item 12: declared calls were held whatever their size (24 M extents under a 64 MiB
// budget: +870 MB). Every rank holds every rank's declared extents, so they are held to half the
// least budget of any rank, counting the calls declared before and not yet read; beyond it every
// rank refuses and nothing is declared.
TEST_F(CollectiveReaderTest, DeclaredCallsAreHeldToHalfTheLeastBudget) {
  rank0_budget = "4M";  // half its cap (under 2 MiB) for every rank's declared extents together
  auto extents = [](int r, uint64_t count) {
    FileRanges call;
    for (uint64_t i = 0; i < count; ++i) call.push_back({(i * 3 + r) * 16, 8});
    return std::vector<FileRanges>{call};
  };
  RunRanks(3, path_, ReaderOptions{}, [&](Rank &rank, int r) {
    std::string why = rank.reader->DeclareCollective(extents(r, 50000)).message();
    EXPECT_NE(why.find("declared plan: 150000 extents of all ranks"), std::string::npos) << why;
    uint64_t cap = 0;  // rank 0's budget cap (4M less what the engine keeps for itself)
    ASSERT_EQ(pfio_memory_cap(rank.ctx, &cap), PFIO_OK);
    if (r == 0) {
      EXPECT_NE(why.find("expected at most " + std::to_string(cap / 2) +
                         " (half the least budget of any rank)"),
                std::string::npos)
          << why;
    }
    // One rank alone beyond it sends no calls; every rank still refuses, by the same count.
    why = rank.reader->DeclareCollective(extents(r, r == 2 ? 200000 : 10)).message();
    EXPECT_NE(why.find("declared plan: 200020 extents"), std::string::npos) << why;
    EXPECT_TRUE(test::IsOk(rank.reader->DeclareCollective(extents(r, 30000))));
    why =
        rank.reader->DeclareCollective(extents(r, 30000)).message();  // 180,000 held with the first
    EXPECT_NE(why.find("declared plan: 180000 extents"), std::string::npos) << why;
    EXPECT_EQ(rank.reader->stats().declared_calls, 1u);
  });
  rank0_budget = nullptr;
}

TEST_F(CollectiveReaderTest, ARecordedRunReplaysEveryCall) {
  const std::vector<uint64_t> order = Permutation(4 * 6 * 24, 11);
  const std::string record = dir_.path() + "/plan.rec";
  ReaderOptions recording;
  recording.file_name = path_;
  recording.record_path = record;
  RunRanks(3, path_, recording, [&](Rank &rank, int r) {
    for (uint64_t call = 0; call < 6; ++call) ReadAndCheck(rank, PermutedCall(order, r, 3, call));
    EXPECT_TRUE(test::IsOk(rank.reader->record_error()));
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
  std::string why = CollectiveReader::Create(&t, ctx, file, replaying, &reader).message();
  EXPECT_NE(why.find("written by 3 ranks, this communicator has 2"), std::string::npos) << why;
  PlanRecordHeader header;
  ASSERT_TRUE(test::IsOk(ReadPlanRecordHeader(record, &header)));
  why = CheckPlanRecord(record, header, path_ + ".other", header.size, 3).message();
  EXPECT_NE(why.find("written for file " + path_ + ", not " + path_ + ".other"), std::string::npos)
      << why;
  why = CheckPlanRecord(record, header, path_, header.size + 1, 3).message();
  EXPECT_NE(why.find("bytes; it has"), std::string::npos) << why;
  EXPECT_EQ(pfio_context_destroy(ctx), PFIO_OK);
}

TEST_F(CollectiveReaderTest, ARecordCutShortEndsAtItsLastCompleteCall) {
  const std::string record = dir_.path() + "/cut.rec";
  {
    PlanRecordWriter w;
    ASSERT_TRUE(test::IsOk(PlanRecordWriter::Open(record, "f", 10, 2, &w)));
    ASSERT_TRUE(test::IsOk(w.Append({EncodePlan({{0, 4}}), EncodePlan({{4, 4}})})));
    ASSERT_TRUE(test::IsOk(w.Append({EncodePlan({{8, 1}}), EncodePlan({{9, 1}})})));
  }
  std::string text;
  {
    std::ifstream in(record, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::ofstream(record, std::ios::binary | std::ios::trunc) << text.substr(0, text.size() - 2);
  std::vector<CallPlans> calls;
  ASSERT_TRUE(test::IsOk(LoadPlanRecord(record, "f", 10, 2, 100, &calls)));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0][1], (FileRanges{{4, 4}}));
  std::ofstream(record, std::ios::binary | std::ios::trunc) << "not a plan\n";
  EXPECT_NE(LoadPlanRecord(record, "f", 10, 2, 100, &calls).message().find("does not start with"),
            std::string::npos);
}

// prefetch_record never overwrites what is not a record: the file being read, another file, a
// directory are refused by name; an earlier record is replaced, and only once the new one is
// complete (it is written under a temporary name and renamed by Close).
TEST_F(CollectiveReaderTest, ARecordNeverOverwritesWhatIsNotARecord) {
  const std::string record = dir_.path() + "/plan.rec", other = dir_.path() + "/notes.txt";
  std::ofstream(other) << "precious\n";
  std::string why = CheckRecordTarget(path_, path_).message();
  EXPECT_NE(why.find("names the file being read"), std::string::npos) << why;
  why = CheckRecordTarget(other, path_).message();
  EXPECT_NE(why.find("is not a pfio plan record"), std::string::npos) << why;
  why = CheckRecordTarget(dir_.path(), path_).message();
  EXPECT_NE(why.find("is a directory"), std::string::npos) << why;
  PlanRecordWriter refused;
  EXPECT_FALSE(PlanRecordWriter::Open(other, path_, 10, 2, &refused).ok());
  EXPECT_FALSE(refused.open());
  std::ifstream kept(other);
  std::string line;
  std::getline(kept, line);
  EXPECT_EQ(line, "precious");

  // Round 4: a symbolic link at the path is refused, one planted at the temporary name is never
  // followed (the temporary is created with O_EXCL | O_NOFOLLOW); the files they name are left.
  const std::string link_path = dir_.path() + "/link.rec";
  ASSERT_EQ(symlink(other.c_str(), link_path.c_str()), 0);
  why = CheckRecordTarget(link_path, path_).message();
  EXPECT_NE(why.find("is a symbolic link"), std::string::npos) << why;
  const std::string planted = record + ".pfio-tmp-" + std::to_string(getpid()) + "-";
  for (int i = 0; i < 64; ++i)
    ASSERT_EQ(symlink(other.c_str(), (planted + std::to_string(i)).c_str()), 0);
  {
    PlanRecordWriter w;
    why = PlanRecordWriter::Open(record, path_, 10, 2, &w).message();
    EXPECT_FALSE(w.open());
    EXPECT_NE(why.find("cannot be created: File exists"), std::string::npos) << why;
  }
  std::getline(std::ifstream(other), line);
  EXPECT_EQ(line, "precious");
  for (int i = 0; i < 64; ++i) unlink((planted + std::to_string(i)).c_str());

  EXPECT_TRUE(test::IsOk(CheckRecordTarget(record, path_)));  // new
  {
    PlanRecordWriter w;
    ASSERT_TRUE(test::IsOk(PlanRecordWriter::Open(record, path_, 10, 2, &w)));
    ASSERT_TRUE(test::IsOk(w.Append({EncodePlan({{0, 4}}), EncodePlan({{4, 4}})})));
  }
  EXPECT_TRUE(test::IsOk(CheckRecordTarget(record, path_)));  // an earlier record
  PlanRecordWriter second;
  ASSERT_TRUE(test::IsOk(PlanRecordWriter::Open(record, path_, 10, 2, &second)));
  ASSERT_TRUE(test::IsOk(second.Append({EncodePlan({{8, 1}}), EncodePlan({{9, 1}})})));
  ASSERT_TRUE(test::IsOk(second.Append({EncodePlan({{1, 1}}), EncodePlan({{2, 1}})})));
  std::vector<CallPlans> calls;
  ASSERT_TRUE(test::IsOk(LoadPlanRecord(record, path_, 10, 2, 100, &calls)));
  EXPECT_EQ(calls.size(), 1u) << "the earlier record stays until the new one is complete";
  ASSERT_TRUE(test::IsOk(second.Close()));
  calls.clear();
  ASSERT_TRUE(test::IsOk(LoadPlanRecord(record, path_, 10, 2, 100, &calls)));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1][1], (FileRanges{{2, 1}}));
}

// A replay path that is a directory, and header numbers that overflow, are named as such.
TEST_F(CollectiveReaderTest, RecordHeadersWithBadNumbersAndDirectoriesAreNamed) {
  std::vector<CallPlans> calls;
  EXPECT_EQ(LoadPlanRecord(dir_.path(), "f", 10, 2, 100, &calls).code(), PFIO_EIO);
  std::string why = LoadPlanRecord(dir_.path(), "f", 10, 2, 100, &calls).message();
  EXPECT_NE(why.find("is a directory"), std::string::npos) << why;
  const std::string record = dir_.path() + "/bad.rec";
  std::ofstream(record) << "pfio-collective-plan 1\nfile f\nsize 10\nranks 99999999999\ncalls\n";
  why = LoadPlanRecord(record, "f", 10, 2, 100, &calls).message();
  EXPECT_NE(why.find("ranks \"99999999999\": expected 1 to"), std::string::npos) << why;
  std::ofstream(record) << "pfio-collective-plan 1\nfile f\nsize -3\nranks 2\ncalls\n";
  why = LoadPlanRecord(record, "f", 10, 2, 100, &calls).message();
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
