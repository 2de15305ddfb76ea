// Aggregation and CallSchedule: every byte every rank asked for is read by exactly the
// aggregator that owns its stripe unit, once per rank that asked, lands at its place in that
// rank's stream, and no round holds more than round_bytes on any aggregator.
#include "collective/call_schedule.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace pfio::collective {
namespace {

TEST(Aggregation, ChoosesAggregatorsSpreadOverTheRanks) {
  EXPECT_EQ(ChooseAggregators(4, 0), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(ChooseAggregators(4, 9), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(ChooseAggregators(8, 2), (std::vector<int>{0, 4}));
  EXPECT_EQ(ChooseAggregators(6, 4), (std::vector<int>{0, 1, 3, 4}));
  EXPECT_EQ(ChooseAggregators(5, 1), (std::vector<int>{0}));
}

TEST(Aggregation, DealsStripeUnitsRoundRobin) {
  Aggregation a(1000, 6, {0, 2, 5});
  EXPECT_EQ(a.TargetOf(0), 0u);
  EXPECT_EQ(a.TargetOf(5999), 5u);
  EXPECT_EQ(a.TargetOf(6000), 0u);
  EXPECT_EQ(a.AggregatorOf(3500), 0u);  // target 3 -> aggregator index 0
  EXPECT_EQ(a.AggregatorOf(4000), 1u);
  EXPECT_EQ(a.UnitEnd(3500), 4000u);
  EXPECT_EQ(Aggregation(1000, 1, {3}).UnitEnd(5), UINT64_MAX) << "one aggregator: no cuts";
}

TEST(Aggregation, ChecksNameTheBadValue) {
  EXPECT_NE(Aggregation::Check(0, 1, {0}, 1).message().find("stripe unit 0"), std::string::npos);
  EXPECT_NE(Aggregation::Check(1, 0, {0}, 1).message().find("0 storage targets"),
            std::string::npos);
  EXPECT_NE(Aggregation::Check(1, 1, {}, 1).message().find("no aggregator"), std::string::npos);
  EXPECT_NE(Aggregation::Check(1, 1, {4}, 4).message().find("aggregator rank 4 (expected 0..3)"),
            std::string::npos);
  EXPECT_EQ(Aggregation::Check(0, 1, {0}, 1).code(), PFIO_EINVAL);
  EXPECT_TRUE(Aggregation::Check(1, 1, {3}, 4).ok());
}

// Which aggregator must read `offset`: the one rank asking for its unit when that rank is an
// aggregator (own_units), else the unit's aggregator.
size_t ExpectedReader(const std::vector<FileRanges> &plans, const Aggregation &agg, uint64_t offset,
                      bool own_units) {
  if (!own_units || agg.aggregators().size() == 1) return agg.AggregatorOf(offset);
  const uint64_t unit = offset / agg.unit();
  int asker = -1;
  for (size_t r = 0; r < plans.size(); ++r)
    for (const FileRange &e : plans[r])
      if (e.length > 0 && e.offset / agg.unit() <= unit && (e.end() - 1) / agg.unit() >= unit) {
        if (asker >= 0 && asker != static_cast<int>(r)) return agg.AggregatorOf(offset);
        asker = static_cast<int>(r);
      }
  for (size_t a = 0; a < agg.aggregators().size(); ++a)
    if (agg.aggregators()[a] == asker) return a;
  return agg.AggregatorOf(offset);
}

// The length of the extent of `plan` that holds stream byte `stream`.
uint64_t ExtentLengthAt(const FileRanges &plan, uint64_t stream) {
  for (const FileRange &e : plan) {
    if (stream < e.length) return e.length;
    stream -= e.length;
  }
  return 0;
}

// Which aggregator must read stream byte `stream` of rank `rank` (file byte `offset`): with
// own_extent, the rank itself when its extent is that large and it is an aggregator; else
// ExpectedReader.
size_t ExpectedReaderFor(const std::vector<FileRanges> &plans, const Aggregation &agg, int rank,
                         uint64_t stream, uint64_t offset, bool own_units, uint64_t own_extent) {
  if (own_units && own_extent > 0 && agg.aggregators().size() > 1 &&
      ExtentLengthAt(plans[static_cast<size_t>(rank)], stream) >= own_extent) {
    for (size_t a = 0; a < agg.aggregators().size(); ++a)
      if (agg.aggregators()[a] == rank) return a;
  }
  return ExpectedReader(plans, agg, offset, own_units);
}

// Replays the schedule: every (rank, stream byte) must be delivered exactly once, with the
// file byte the rank's plan puts there, by the aggregator that must read that byte.
void CheckSchedule(const std::vector<FileRanges> &plans, const Aggregation &agg,
                   uint64_t round_bytes, bool own_units = true, uint64_t own_extent = 0) {
  CallSchedule s(plans, agg, round_bytes, own_units, own_extent);
  std::map<std::pair<int, uint64_t>, uint64_t> delivered;  // (rank, stream) -> file offset
  for (size_t a = 0; a < agg.aggregators().size(); ++a) {
    uint64_t in_rounds = 0;
    for (size_t k = 0; k < s.rounds(); ++k) {
      std::vector<uint64_t> counts;
      std::vector<Share> shares = s.RoundShares(a, k, &counts);
      uint64_t round = 0, by_rank = 0;
      for (uint64_t c : counts) by_rank += c;
      for (const Share &sh : shares) {
        round += sh.range.length;
        for (uint64_t i = 0; i < sh.range.length; ++i) {
          ASSERT_EQ(ExpectedReaderFor(plans, agg, sh.rank, sh.stream + i, sh.range.offset + i,
                                      own_units, own_extent),
                    a)
              << "byte " << sh.range.offset + i << " for rank " << sh.rank;
          auto [it, fresh] =
              delivered.emplace(std::make_pair(sh.rank, sh.stream + i), sh.range.offset + i);
          ASSERT_TRUE(fresh) << "rank " << sh.rank << " stream byte " << sh.stream + i << " twice";
        }
      }
      EXPECT_LE(round, round_bytes);
      EXPECT_EQ(round, by_rank);
      // What one rank receives: the same counts, and only its own shares, in the same order.
      for (int r = 0; r < static_cast<int>(plans.size()); ++r) {
        std::vector<uint64_t> only_counts;
        std::vector<Share> only = s.RoundShares(a, k, &only_counts, r);
        std::vector<Share> expected;
        for (const Share &sh : shares)
          if (sh.rank == r) expected.push_back(sh);
        ASSERT_EQ(only_counts, counts) << "aggregator " << a << " round " << k << " rank " << r;
        ASSERT_EQ(only.size(), expected.size()) << "aggregator " << a << " round " << k;
        for (size_t i = 0; i < only.size(); ++i) {
          EXPECT_EQ(only[i].range, expected[i].range);
          EXPECT_EQ(only[i].stream, expected[i].stream);
          EXPECT_EQ(only[i].rank, r);
        }
      }
      in_rounds += round;
    }
    EXPECT_EQ(in_rounds, s.BytesOf(a));
  }
  for (size_t r = 0; r < plans.size(); ++r) {
    uint64_t stream = 0;
    for (const FileRange &e : plans[r])
      for (uint64_t i = 0; i < e.length; ++i, ++stream) {
        auto it = delivered.find({static_cast<int>(r), stream});
        ASSERT_NE(it, delivered.end()) << "rank " << r << " stream byte " << stream << " missing";
        ASSERT_EQ(it->second, e.offset + i);
      }
  }
}

TEST(CallSchedule, InterleavedBlocksOverFourAggregators) {
  std::vector<FileRanges> plans(4);
  for (int r = 0; r < 4; ++r)
    for (uint64_t i = 0; i < 20; ++i)
      plans[static_cast<size_t>(r)].push_back({(4 * i + r) * 470, 470});
  CheckSchedule(plans, Aggregation(1024, 4, {0, 1, 2, 3}), 3000);
}

TEST(CallSchedule, OddSizedOverlappingAndEmptyRequests) {
  std::vector<FileRanges> plans = {
      {{7, 13}, {7, 13}, {5000, 1}}, {}, {{0, 9999}}, {{4095, 2}, {3, 3}, {4096, 0}, {2000, 3001}}};
  CheckSchedule(plans, Aggregation(4096, 3, {0, 2}), 777);
  CheckSchedule(plans, Aggregation(4096, 3, {0, 2}), 777, false);
  CheckSchedule(plans, Aggregation(512, 8, {1}), 1 << 20);
}

TEST(CallSchedule, RandomRequests) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    const int ranks = 1 + static_cast<int>(rng() % 5);
    std::vector<FileRanges> plans(static_cast<size_t>(ranks));
    for (auto &p : plans)
      for (int i = static_cast<int>(rng() % 12); i > 0; --i)
        p.push_back({rng() % 20000, rng() % 1500});
    std::vector<int> aggs = ChooseAggregators(ranks, 1 + static_cast<int>(rng() % 4));
    CheckSchedule(plans, Aggregation(1 + rng() % 3000, 1 + rng() % 6, aggs), 1 + rng() % 4000,
                  trial % 2 == 0, trial % 4 == 0 ? 700 : 0);
  }
}

TEST(CallSchedule, LargeInterleavedExtentsAreReadByTheirOwnRanks) {
  // ior-hard, scaled down ten times (the replay checks every byte): each rank's 4,700-byte
  // blocks interleaved with the others' over units that every rank shares. At or above
  // own_extent each aggregator reads only its own rank's blocks (nothing shipped); below it,
  // the units' aggregators read for every rank.
  std::vector<FileRanges> plans(4);
  for (int r = 0; r < 4; ++r)
    for (uint64_t i = 0; i < 40; ++i)
      plans[static_cast<size_t>(r)].push_back({(4 * i + static_cast<uint64_t>(r)) * 4700, 4700});
  Aggregation agg(100 << 10, 4, {0, 1, 2, 3});
  CheckSchedule(plans, agg, 64 << 10, true, 3200);
  CallSchedule own(plans, agg, 64 << 10, true, 3200);
  for (size_t a = 0; a < 4; ++a) {
    EXPECT_EQ(own.BytesOf(a), 40u * 4700);
    for (const Share &sh : own.SharesOf(a)) EXPECT_EQ(sh.rank, static_cast<int>(a));
  }
  CheckSchedule(plans, agg, 64 << 10, true, 6400);  // blocks below the threshold
  CallSchedule dealt(plans, agg, 64 << 10, true, 6400);
  bool shipped = false;
  for (const Share &sh : dealt.SharesOf(0)) shipped |= sh.rank != 0;
  EXPECT_TRUE(shipped) << "below own_extent the unit's aggregator reads for the other ranks";
  // Ranks that are not aggregators (cb_nodes 2 of 4): their blocks go to the units' aggregators.
  CheckSchedule(plans, Aggregation(100 << 10, 4, {0, 2}), 64 << 10, true, 3200);
}

TEST(CallSchedule, ContiguousRequestsAreReadByTheirOwnRanks) {
  // A restart: each rank reads its own 10 units; nothing is read for another rank.
  std::vector<FileRanges> plans = {{{0, 10240}}, {{10240, 10240}}, {{20480, 10240}}};
  Aggregation agg(1024, 3, {0, 1, 2});
  CallSchedule s(plans, agg, 4096);
  for (size_t a = 0; a < 3; ++a) {
    EXPECT_EQ(s.BytesOf(a), 10240u);
    for (const Share &sh : s.SharesOf(a)) EXPECT_EQ(sh.rank, static_cast<int>(a));
  }
  CallSchedule dealt(plans, agg, 4096, false);  // stripe units dealt round-robin instead
  EXPECT_NE(dealt.SharesOf(0).front().rank, dealt.SharesOf(0).back().rank);
}

TEST(CallSchedule, NothingToReadIsNoRound) {
  CallSchedule s({{}, {{10, 0}}}, Aggregation(4096, 2, {0, 1}), 100);
  EXPECT_EQ(s.rounds(), 0u);
}

}  // namespace
}  // namespace pfio::collective
