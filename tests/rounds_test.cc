#include "partition/rounds.h"

#include <gtest/gtest.h>

#include <memory>

namespace pfio {

TEST(Rounds, OneReadPerTargetPerRoundInCLookOrder) {
  std::vector<std::unique_ptr<PendingRead>> owned;
  auto make = [&](uint32_t target, uint32_t bus, uint64_t toff) {
    owned.push_back(std::make_unique<PendingRead>());
    owned.back()->target = target;
    owned.back()->bus = bus;
    owned.back()->target_offset = toff;
    return owned.back().get();
  };
  // Targets 0 and 2 on bus 0, targets 1 and 3 on bus 1; target 3 has a single read.
  std::vector<PendingRead *> in = {make(0, 0, 500), make(1, 1, 10), make(0, 0, 100), make(2, 0, 7),
                                   make(3, 1, 1),   make(1, 1, 5),  make(2, 0, 3)};
  auto out = OrderInRounds(in);
  ASSERT_EQ(out.size(), in.size());
  // Round 0: bus 0 (targets 0, 2), then bus 1 (targets 1, 3), each its lowest offset first.
  EXPECT_EQ(out[0]->target, 0u);
  EXPECT_EQ(out[0]->target_offset, 100u);
  EXPECT_EQ(out[1]->target, 2u);
  EXPECT_EQ(out[1]->target_offset, 3u);
  EXPECT_EQ(out[2]->target, 1u);
  EXPECT_EQ(out[2]->target_offset, 5u);
  EXPECT_EQ(out[3]->target, 3u);
  // Round 1: target 3 has nothing left.
  EXPECT_EQ(out[4]->target_offset, 500u);
  EXPECT_EQ(out[5]->target_offset, 7u);
  EXPECT_EQ(out[6]->target_offset, 10u);
}

TEST(Rounds, OneTargetKeepsItsOrder) {
  PendingRead a, b;
  a.req.offset = 10;
  b.req.offset = 20;
  auto out = OrderInRounds({&a, &b});
  EXPECT_EQ(out[0], &a);
  EXPECT_EQ(out[1], &b);
}

}  // namespace pfio
