#include "memory/node_registry.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <vector>

#include "memory/memory_governor.h"
#include "test_util.h"

namespace pfio {

namespace {
constexpr uint64_t kMiB = 1024 * 1024;

// A child process that takes a slot, records `held` (short of memory), tells the parent, and
// waits for one byte: 'q' leaves (frees its slot), 'k' dies without a word (_exit: no
// destructor runs, its slot stays as it was).
struct Child {
  pid_t pid = -1;
  int to_child = -1;
  Child(const std::string &path, uint64_t held) {
    int up[2], down[2];
    EXPECT_EQ(pipe(up), 0);
    EXPECT_EQ(pipe(down), 0);
    pid = fork();
    if (pid == 0) {
      close(up[0]);
      close(down[1]);
      {
        NodeRegistry r(path);
        r.Update(2 * held, held, held / 2, true);
        char c = r.active() ? 'r' : 'x';
        if (write(up[1], &c, 1) != 1) _exit(3);
        if (read(down[0], &c, 1) != 1) _exit(4);
        if (c == 'k') _exit(0);
      }
      _exit(0);
    }
    close(up[1]);
    close(down[0]);
    to_child = down[1];
    char c = 0;
    EXPECT_EQ(read(up[0], &c, 1), 1);
    EXPECT_EQ(c, 'r') << "the child could not take a slot";
    close(up[0]);
  }
  void Finish(char how) {
    ASSERT_EQ(write(to_child, &how, 1), 1);
    close(to_child);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
};
}  // namespace

TEST(NodeRegistry, ProcessesComeGoAndDie) {
  test::ScratchDir dir;
  const std::string path = dir.path() + "/registry";
  NodeRegistry me(path);
  ASSERT_TRUE(me.active()) << me.status().message();
  NodeView alone = me.Update(64 * kMiB, 10 * kMiB, 8 * kMiB, false);
  EXPECT_EQ(alone.processes, 1u);
  EXPECT_EQ(alone.held_by_all, 10 * kMiB);
  EXPECT_EQ(alone.resident_of_all, 8 * kMiB);
  EXPECT_FALSE(alone.peer_short);

  Child a(path, 100 * kMiB), b(path, 300 * kMiB);
  NodeView three = me.Update(64 * kMiB, 10 * kMiB, 8 * kMiB, false);
  EXPECT_EQ(three.processes, 3u);
  EXPECT_EQ(three.held_by_all, 410 * kMiB);
  EXPECT_EQ(three.resident_of_all, 208 * kMiB);                 // children: resident = held / 2
  EXPECT_EQ(three.budgets_of_all, 64 * kMiB + 2 * 400 * kMiB);  // children: budget = 2 x held
  EXPECT_TRUE(three.peer_short);

  a.Finish('q');  // leaves properly
  NodeView two = me.Update(64 * kMiB, 10 * kMiB, 8 * kMiB, false);
  EXPECT_EQ(two.processes, 2u);
  EXPECT_EQ(two.held_by_all, 310 * kMiB);
  EXPECT_EQ(two.resident_of_all, 158 * kMiB);

  b.Finish('k');  // dies holding its slot; once reaped, the slot is found dead and freed
  NodeView back = me.Update(64 * kMiB, 10 * kMiB, 8 * kMiB, false);
  EXPECT_EQ(back.processes, 1u);
  EXPECT_EQ(back.held_by_all, 10 * kMiB);
  EXPECT_EQ(back.resident_of_all, 8 * kMiB);
  EXPECT_EQ(back.budgets_of_all, 64 * kMiB);  // a dead process's budget no longer counts
  EXPECT_FALSE(back.peer_short);

  Child c(path, 5 * kMiB);  // the freed slots are taken again
  EXPECT_EQ(me.Update(0, 0, 0, false).processes, 2u);
  c.Finish('q');
}

TEST(NodeRegistry, AFullRegistryIsInertAndSaysWhy) {
  test::ScratchDir dir;
  const std::string path = dir.path() + "/registry";
  std::vector<std::unique_ptr<NodeRegistry>> all;
  for (uint32_t i = 0; i < NodeRegistry::kSlots; ++i) {
    all.push_back(std::make_unique<NodeRegistry>(path));
    ASSERT_TRUE(all.back()->active()) << i << ": " << all.back()->status().message();
  }
  NodeRegistry extra(path);
  EXPECT_FALSE(extra.active());
  EXPECT_NE(extra.status().message().find("slots taken"), std::string::npos)
      << extra.status().message();
  EXPECT_EQ(extra.Update(1, 7, 7, true).processes, 1u);  // inert: alone
  all.pop_back();
  NodeRegistry again(path);
  EXPECT_TRUE(again.active()) << again.status().message();
  EXPECT_EQ(again.Update(0, 0, 0, false).processes, NodeRegistry::kSlots);
  all.pop_back();  // a slot again for the one that found none: it joins, and says so
  extra.Rejoin();
  EXPECT_TRUE(extra.active());
  EXPECT_TRUE(extra.status().ok()) << extra.status().message();
}

TEST(NodeRegistry, AProcessOpensTheFileOnceForAllItsRegistries) {
  test::ScratchDir dir;
  const std::string path = dir.path() + "/registry";
  auto descriptors = [&path] {
    const std::filesystem::path real = std::filesystem::canonical(path);
    int n = 0;
    for (const auto &entry : std::filesystem::directory_iterator("/proc/self/fd")) {
      std::error_code ec;
      n += std::filesystem::read_symlink(entry.path(), ec) == real;
    }
    return n;
  };
  auto first = std::make_unique<NodeRegistry>(path);
  NodeRegistry second(path);  // a second context of the process: a slot of its own
  ASSERT_TRUE(first->active() && second.active())
      << first->status().message() << second.status().message();
  EXPECT_EQ(descriptors(), 1);
  EXPECT_EQ(second.Update(0, 0, 0, false).processes, 2u);
  first.reset();  // frees its slot only
  EXPECT_EQ(second.Update(0, 0, 0, false).processes, 1u);
  Child other(path, 10 * kMiB);  // another process sees this one's slot, and its own
  EXPECT_EQ(second.Update(0, 0, 0, false).processes, 2u);
  other.Finish('q');
  EXPECT_EQ(descriptors(), 1);
}

// A context waiting for its next user (Context::Vacate) is not counted, nor are its budget and
// memory; it is again once it has one.
TEST(NodeRegistry, AContextThatLeftIsNotCountedUntilItRejoins) {
  test::ScratchDir dir;
  const std::string path = dir.path() + "/registry";
  NodeRegistry waiting(path), reading(path);
  ASSERT_TRUE(waiting.active() && reading.active())
      << waiting.status().message() << reading.status().message();
  waiting.Update(64 * kMiB, 32 * kMiB, 32 * kMiB, false);
  NodeView v = reading.Update(0, 0, 0, false);
  EXPECT_EQ(v.processes, 2u);
  EXPECT_EQ(v.budgets_of_all, 64 * kMiB);
  waiting.Leave();
  EXPECT_FALSE(waiting.active());
  v = reading.Update(0, 0, 0, false);
  EXPECT_EQ(v.processes, 1u);
  EXPECT_EQ(v.budgets_of_all, 0u);
  EXPECT_EQ(v.held_by_all, 0u);
  waiting.Rejoin();
  EXPECT_TRUE(waiting.active()) << waiting.status().message();
  EXPECT_EQ(reading.Update(0, 0, 0, false).processes, 2u);
  waiting.Rejoin();  // once
  EXPECT_EQ(reading.Update(0, 0, 0, false).processes, 2u);
}

TEST(NodeRegistry, AnUnusablePathIsInert) {
  NodeRegistry r("/nonexistent-dir/pfio-registry");
  EXPECT_FALSE(r.active());
  EXPECT_EQ(r.status().code(), PFIO_EIO);
  EXPECT_NE(r.status().message().find("/nonexistent-dir/pfio-registry"), std::string::npos)
      << r.status().message();
}

namespace {
// Signals with plenty of headroom and no contention.
class Headroom : public MemorySignals {
 public:
  explicit Headroom(uint64_t bytes) : bytes_(bytes) {}
  MemorySample Sample() override {
    MemorySample s;
    s.headroom = bytes_;
    return s;
  }

 private:
  uint64_t bytes_;
};

// A node as the registry would report it.
class ScriptedNode : public NodeShare {
 public:
  NodeView view;
  NodeView Update(uint64_t, uint64_t, uint64_t, bool) override { return view; }
};
}  // namespace

TEST(NodeShareInGovernor, BetweenSamplesAProcessGrowsByItsShareOfTheHeadroomOnly) {
  // 1 GiB above the reserve and its gate margin, 4 pfio processes: each may take 256 MiB more
  // than it held at the sample before the next sample; the budget alone (8 GiB) would allow far
  // more.
  for (bool adapt : {true, false}) {
    auto node = std::make_unique<ScriptedNode>();
    node->view.processes = 4;
    MemoryGovernor g(8192 * kMiB, 4 * kMiB, adapt,
                     std::make_unique<Headroom>(1024 * kMiB + MemoryGovernor::kGateMargin),
                     std::move(node));
    EXPECT_TRUE(g.Fits(0, 2048 * kMiB)) << "before any sample nothing is known";
    g.Sample(500 * kMiB);
    EXPECT_TRUE(g.Fits(500 * kMiB, 256 * kMiB));
    EXPECT_EQ(g.Fits(500 * kMiB, 256 * kMiB + 4096), !adapt) << "adapt " << adapt;
    EXPECT_EQ(g.Fits(700 * kMiB, 100 * kMiB), !adapt);  // 200 MiB taken since the sample
    EXPECT_TRUE(g.Fits(300 * kMiB, 400 * kMiB)) << "reusing what was held at the sample";
  }
}

// Pages of reads in flight are taken but not yet counted by the kernel (they are touched when
// the data lands): the headroom seen at the sample must pay for them before any growth.
TEST(NodeShareInGovernor, ReadsInFlightAtTheSamplePayFirstFromTheShare) {
  auto node = std::make_unique<ScriptedNode>();
  node->view.processes = 4;
  MemoryGovernor g(8192 * kMiB, 4 * kMiB, true,
                   std::make_unique<Headroom>(1024 * kMiB + MemoryGovernor::kGateMargin),
                   std::move(node));
  g.Sample(500 * kMiB, 200 * kMiB);  // share 256 MiB, 200 MiB of it still landing
  EXPECT_TRUE(g.Fits(500 * kMiB, 56 * kMiB));
  EXPECT_FALSE(g.Fits(500 * kMiB, 56 * kMiB + 4096));
  EXPECT_TRUE(g.Fits(400 * kMiB, 150 * kMiB)) << "reusing what was held at the sample";
  g.Sample(500 * kMiB, 300 * kMiB);  // more landing than the share: no growth at all
  EXPECT_FALSE(g.Fits(500 * kMiB, 4096));
  EXPECT_TRUE(g.Fits(499 * kMiB, kMiB));
  g.Sample(500 * kMiB, 0);  // all landed
  EXPECT_TRUE(g.Fits(500 * kMiB, 256 * kMiB));
}

TEST(NodeShareInGovernor, GrowthStopsAMarginAboveTheReserve) {
  // Alone on the node, 32 MiB above the reserve: less than the margin, so nothing may be taken
  // beyond what was held at the sample; at 96 MiB above, 32 MiB may.
  for (uint64_t above : {32 * kMiB, 96 * kMiB}) {
    MemoryGovernor g(8192 * kMiB, 4 * kMiB, true, std::make_unique<Headroom>(above));
    g.Sample(500 * kMiB);
    const uint64_t may =
        above > MemoryGovernor::kGateMargin ? above - MemoryGovernor::kGateMargin : 0;
    EXPECT_EQ(g.Fits(500 * kMiB, may), true) << above;
    EXPECT_FALSE(g.Fits(500 * kMiB, may + 4096)) << above;
  }
}

TEST(NodeShareInGovernor, HeadroomTakenBelowHalfTheMarginIsContention) {
  // Growth stops at the margin; less than half of it left means something else took memory:
  // the budget halves before the reserve is reached. A fixed budget is left alone.
  for (bool adapt : {true, false}) {
    MemoryGovernor near(8192 * kMiB, 4 * kMiB, adapt,
                        std::make_unique<Headroom>(MemoryGovernor::kGateMargin / 2 - 4096));
    const uint64_t cap = near.budget();
    EXPECT_EQ(near.Sample(500 * kMiB), adapt);
    EXPECT_EQ(near.budget(), adapt ? cap / 2 : cap);
    EXPECT_TRUE(near.node_tight() || !adapt);
    if (adapt) {
      EXPECT_NE(near.history().back().reason.find("being taken"), std::string::npos);
    }
  }
  MemoryGovernor inside(8192 * kMiB, 4 * kMiB, true,
                        std::make_unique<Headroom>(MemoryGovernor::kGateMargin / 2));
  EXPECT_FALSE(inside.Sample(500 * kMiB)) << "at half the margin: growth stopped, no cut";
  EXPECT_TRUE(inside.node_tight());
  MemoryGovernor roomy(8192 * kMiB, 4 * kMiB, true,
                       std::make_unique<Headroom>(MemoryGovernor::kGateMargin));
  roomy.Sample(500 * kMiB);
  EXPECT_FALSE(roomy.node_tight());
}

// MemTotal and what programs hold as a test sets them; the headroom is what lies above an 8 %
// reserve.
class Used : public MemorySignals {
 public:
  uint64_t used = 0, total = 0;
  MemorySample Sample() override {
    MemorySample s;
    s.anon_and_shmem = used;
    s.total = total;
    const uint64_t available = total - used;
    s.headroom = available > total / 100 * 8 ? available - total / 100 * 8 : 0;
    return s;
  }
};

TEST(NodeShareInGovernor, AProgramTakingMemoryFastCutsLongBeforeTheReserve) {
  auto signals = std::make_unique<Used>();
  Used *mem = signals.get();
  mem->total = 24000 * kMiB;
  mem->used = 12000 * kMiB;
  auto node = std::make_unique<ScriptedNode>();
  ScriptedNode *n = node.get();
  n->view.resident_of_all = 4000 * kMiB;
  double now = 0;
  MemoryGovernor g(16000 * kMiB, 4 * kMiB, true, std::move(signals), std::move(node), false,
                   [&now] { return now; });
  const uint64_t cap = g.budget();
  // pfio's processes take 600 MiB/s for a second: MemAvailable falls as fast, no cut
  for (int i = 1; i <= 10; ++i) {
    now += 0.1;
    mem->used += 60 * kMiB;
    n->view.resident_of_all += 60 * kMiB;
    EXPECT_FALSE(g.Sample(4000 * kMiB)) << "at " << now << " s";
  }
  EXPECT_EQ(g.budget(), cap);
  // then another program takes 600 MiB/s while pfio holds still: a cut within a second (two
  // spans of 0.25 s or more), with 11 GiB still free
  int samples = 0;
  while (g.cuts() == 0 && samples < 10) {
    now += 0.1;
    mem->used += 60 * kMiB;
    g.Sample(4000 * kMiB);
    ++samples;
  }
  EXPECT_EQ(g.cuts(), 1u);
  EXPECT_LE(samples, 7);
  EXPECT_EQ(g.budget(), cap / 2);
  EXPECT_NE(g.history().back().reason.find("other than pfio"), std::string::npos)
      << g.history().back().reason;
}

TEST(NodeShareInGovernor, AnAutoBudgetIsHeldToTheFairShareWhileAPeerIsShort) {
  auto node = std::make_unique<ScriptedNode>();
  ScriptedNode *n = node.get();
  MemoryGovernor g(8192 * kMiB, 4 * kMiB, true, std::make_unique<Headroom>(1024 * kMiB),
                   std::move(node), /*share_node=*/true);
  const uint64_t cap = g.budget();  // alone at the start: the whole cap
  // then 4 processes; 1 GiB free above the reserve, and they hold 3 GiB between them: 1 GiB each
  n->view.processes = 4;
  n->view.held_by_all = 3072 * kMiB;
  EXPECT_FALSE(g.Sample(500 * kMiB));  // nobody is short: no reason to give up memory
  EXPECT_EQ(g.budget(), cap);
  EXPECT_EQ(g.fair_share(), 1024 * kMiB);
  n->view.peer_short = true;
  EXPECT_TRUE(g.Sample(500 * kMiB));
  EXPECT_EQ(g.budget(), 1024 * kMiB);
  EXPECT_NE(g.history().back().reason.find("fair share"), std::string::npos);
  // a clean round does not grow past the fair share while the peer is short
  g.Consumed(g.budget());
  EXPECT_EQ(g.budget(), 1024 * kMiB);
}

// Processes that start together each size their auto budget before they see the others: the
// first one alone takes nearly everything. Once the budgets add up to more than the node can
// give, the big ones come down to the fair share, although nobody is short yet.
TEST(NodeShareInGovernor, AutoBudgetsThatAddUpToMoreThanTheNodeAreHeldToTheFairShare) {
  auto node = std::make_unique<ScriptedNode>();
  ScriptedNode *n = node.get();
  MemoryGovernor g(8192 * kMiB, 4 * kMiB, true, std::make_unique<Headroom>(1024 * kMiB),
                   std::move(node), /*share_node=*/true);
  const uint64_t cap = g.budget();
  n->view.processes = 4;
  n->view.held_by_all = 3072 * kMiB;               // the node can give 4 GiB: 1 GiB each
  n->view.budgets_of_all = cap + 3 * 1024 * kMiB;  // fits only if this one had 1 GiB
  EXPECT_TRUE(g.Sample(500 * kMiB));
  EXPECT_EQ(g.budget(), 1024 * kMiB);
  EXPECT_NE(g.history().back().reason.find("more than the node can give"), std::string::npos)
      << g.history().back().reason;
  g.Consumed(g.budget());  // and it does not grow back past it while that is so
  EXPECT_EQ(g.budget(), 1024 * kMiB);
  // the share drifts down a little as the others take memory: no new clamp for a few MiB
  n->view.held_by_all = 3000 * kMiB;  // fair share 1006 MiB
  EXPECT_FALSE(g.Sample(500 * kMiB));
  EXPECT_EQ(g.budget(), 1024 * kMiB);
  // budgets that fit: no sharing needed, and growth resumes
  n->view.budgets_of_all = 4 * 1024 * kMiB;
  EXPECT_FALSE(g.Sample(500 * kMiB));
  g.Consumed(g.budget());
  EXPECT_GT(g.budget(), 1024 * kMiB);
}

TEST(NodeShareInGovernor, AnAutoBudgetStartsAtItsShareOfTheProcessesPresent) {
  auto node = std::make_unique<ScriptedNode>();
  node->view.processes = 3;  // two others, holding 2 GiB; 1 GiB free above the reserve
  node->view.held_by_all = 2048 * kMiB;
  MemoryGovernor g(8192 * kMiB, 4 * kMiB, true, std::make_unique<Headroom>(1024 * kMiB),
                   std::move(node), /*share_node=*/true);
  EXPECT_EQ(g.budget(), 1024 * kMiB);
  EXPECT_NE(g.history().back().reason.find("start at the fair share"), std::string::npos);
  EXPECT_GT(g.cap(), g.budget());  // room to grow when the others leave
}

TEST(NodeShareInGovernor, AFixedBudgetIsNotShared) {
  auto node = std::make_unique<ScriptedNode>();
  node->view.processes = 4;
  node->view.held_by_all = 3072 * kMiB;
  node->view.peer_short = true;
  MemoryGovernor g(8192 * kMiB, 4 * kMiB, true, std::make_unique<Headroom>(1024 * kMiB),
                   std::move(node), /*share_node=*/false);
  const uint64_t cap = g.budget();
  EXPECT_FALSE(g.Sample(500 * kMiB));
  EXPECT_EQ(g.budget(), cap);
}

}  // namespace pfio
