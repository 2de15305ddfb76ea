#include "memory/memory_signals.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "memory/aimd_controller.h"
#include "test_util.h"

namespace pfio {

namespace {
constexpr uint64_t kKiB = 1024, kGiB = 1024 * 1024 * 1024;

void Write(const std::string &path, const std::string &text) {
  std::ofstream(path) << text;
}
std::string Psi(unsigned long long total) {
  return "some avg10=0.00 avg60=0.00 avg300=0.00 total=" + std::to_string(total) +
         "\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
}
// A 24,000,000 kB machine (about 22.9 GiB) with `avail_kb` available.
std::string Meminfo(uint64_t avail_kb) {
  return "MemTotal:       24000000 kB\nMemFree:        1000 kB\nMemAvailable:   " +
         std::to_string(avail_kb) + " kB\n";
}

// Scripted /proc and cgroup files in a scratch directory, and a scripted clock.
struct Machine {
  test::ScratchDir dir;
  MemorySignalSources src;
  double now = 100.0;
  Machine() {
    src.psi = dir.path() + "/psi";
    src.meminfo = dir.path() + "/meminfo";
    Write(src.psi, Psi(1000));
    Write(src.meminfo, Meminfo(20000000));
  }
  void CgroupV2(const std::string &max, uint64_t current) {
    src.cgroup_v2_dir = dir.path() + "/v2";
    mkdir(src.cgroup_v2_dir.c_str(), 0755);
    Write(src.cgroup_v2_dir + "/memory.max", max + "\n");
    Write(src.cgroup_v2_dir + "/memory.current", std::to_string(current) + "\n");
    Write(src.cgroup_v2_dir + "/memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
  }
  void CgroupV1(uint64_t limit, uint64_t usage, int under_oom = 0, int kills = 0) {
    src.cgroup_v1_dir = dir.path() + "/v1";
    mkdir(src.cgroup_v1_dir.c_str(), 0755);
    Write(src.cgroup_v1_dir + "/memory.limit_in_bytes", std::to_string(limit) + "\n");
    Write(src.cgroup_v1_dir + "/memory.usage_in_bytes", std::to_string(usage) + "\n");
    Write(src.cgroup_v1_dir + "/memory.oom_control", "oom_kill_disable 0\nunder_oom " +
                                                         std::to_string(under_oom) + "\noom_kill " +
                                                         std::to_string(kills) + "\n");
  }
  ProcMemorySignals Signals(uint32_t reserve_percent = 8) {
    return ProcMemorySignals(src, reserve_percent, [this] { return now; });
  }
};
}  // namespace

TEST(ProcMemorySignals, PsiStallAndCgroupV2EventsRaiseContention) {
  Machine m;
  m.CgroupV2("max", 1000);
  ProcMemorySignals s = m.Signals();
  EXPECT_FALSE(s.Sample().contention);

  Write(m.src.psi, Psi(1000 + 50000));  // 50 ms more stall
  MemorySample a = s.Sample();
  EXPECT_TRUE(a.contention);
  EXPECT_FALSE(a.hard);
  EXPECT_NE(a.reason.find("psi"), std::string::npos);
  EXPECT_FALSE(s.Sample().contention);  // no new stall since

  Write(m.src.cgroup_v2_dir + "/memory.events", "low 0\nhigh 3\nmax 0\noom 0\noom_kill 0\n");
  MemorySample b = s.Sample();
  EXPECT_TRUE(b.contention);
  EXPECT_TRUE(b.hard);
  EXPECT_NE(b.reason.find("memory.events"), std::string::npos);
}

TEST(ProcMemorySignals, TheReserveIsHeldBeforeMemoryRunsOut) {
  Machine m;
  ProcMemorySignals s = m.Signals(8);
  const uint64_t total = 24000000 * kKiB, reserve = total / 100 * 8;
  MemorySample plenty = s.Sample();
  EXPECT_FALSE(plenty.contention);
  EXPECT_EQ(plenty.headroom, 20000000 * kKiB - reserve);  // what growth may still take

  // 2.5 GB available is far from empty, but inside the 8 % reserve (1.83 GiB is the reserve;
  // 1.5 GB is below it): contention, hard, and no headroom. Minutes apart: not a fall.
  m.now += 60;
  Write(m.src.meminfo, Meminfo(1500000));
  MemorySample low = s.Sample();
  EXPECT_TRUE(low.contention);
  EXPECT_TRUE(low.hard);
  EXPECT_EQ(low.headroom, 0u);
  EXPECT_NE(low.reason.find("reserve"), std::string::npos) << low.reason;

  // the old rule (below max(256 MiB, 2 %)) would have waited until 480 MB were left
  m.now += 60;
  Write(m.src.meminfo, Meminfo(3000000));  // above the reserve again
  MemorySample back = s.Sample();
  EXPECT_FALSE(back.contention) << back.reason;
  EXPECT_EQ(back.headroom, 3000000 * kKiB - reserve);
}

TEST(ProcMemorySignals, AFastFallIsContentionBeforeAnyStall) {
  Machine m;
  ProcMemorySignals s = m.Signals();
  EXPECT_FALSE(s.Sample().contention);
  // 2.4 GB (10 % of MemTotal) gone in 200 ms: 12 GB/s, far above 10 % of MemTotal per second
  m.now += 0.2;
  Write(m.src.meminfo, Meminfo(17600000));
  MemorySample fall = s.Sample();
  EXPECT_TRUE(fall.contention);
  EXPECT_FALSE(fall.hard);
  EXPECT_NE(fall.reason.find("fell"), std::string::npos) << fall.reason;
  // the same amount over 5 seconds is ordinary use
  m.now += 5;
  Write(m.src.meminfo, Meminfo(15200000));
  EXPECT_FALSE(s.Sample().contention);
  // a small fall, even a fast one, is noise: 0.5 % of MemTotal in 10 ms
  m.now += 0.01;
  Write(m.src.meminfo, Meminfo(15080000));
  EXPECT_FALSE(s.Sample().contention);
}

TEST(ProcMemorySignals, CgroupV1LimitUsageAndOomControl) {
  Machine m;
  m.CgroupV1(4 * kGiB, 1 * kGiB);
  ProcMemorySignals s = m.Signals(10);
  MemorySample ok = s.Sample();
  EXPECT_FALSE(ok.contention);
  EXPECT_EQ(ok.headroom, 3 * kGiB - 4 * kGiB / 100 * 10);  // the cgroup is tighter than the node

  m.now += 10;
  m.CgroupV1(4 * kGiB, 4 * kGiB - 100 * 1024 * 1024);  // within 10 % of the limit
  MemorySample full = s.Sample();
  EXPECT_TRUE(full.contention);
  EXPECT_TRUE(full.hard);
  EXPECT_EQ(full.headroom, 0u);
  EXPECT_NE(full.reason.find("cgroup usage"), std::string::npos) << full.reason;

  m.now += 10;
  m.CgroupV1(4 * kGiB, 1 * kGiB, /*under_oom=*/1);
  EXPECT_TRUE(s.Sample().hard);
  m.now += 10;
  m.CgroupV1(4 * kGiB, 1 * kGiB, 0, /*kills=*/2);
  MemorySample killed = s.Sample();
  EXPECT_TRUE(killed.contention);
  EXPECT_NE(killed.reason.find("OOM kills"), std::string::npos) << killed.reason;
  m.now += 10;
  EXPECT_FALSE(s.Sample().contention);  // no new kill since

  // v1's "no limit" (a number near 2^63) is no limit
  m.CgroupV1(9223372036854771712ull, 1 * kGiB);
  EXPECT_FALSE(ReadCgroupMemory(m.src).has_limit);
}

TEST(ProcMemorySignals, CgroupV2LimitWinsOverV1AndMaxMeansNoLimit) {
  Machine m;
  m.CgroupV2("max", 1 * kGiB);
  m.CgroupV1(2 * kGiB, 1 * kGiB);
  // v2 says "max": v1's files are read instead
  CgroupMemory cg = ReadCgroupMemory(m.src);
  EXPECT_TRUE(cg.has_limit);
  EXPECT_EQ(cg.limit, 2 * kGiB);
  m.CgroupV2(std::to_string(3 * kGiB), 1 * kGiB);
  cg = ReadCgroupMemory(m.src);
  EXPECT_EQ(cg.limit, 3 * kGiB);
}

TEST(ProcMemorySignals, AutoBudgetStopsAboveTheReserveAndTheCgroupLimit) {
  Machine m;
  const uint64_t total = 24000000 * kKiB;
  EXPECT_EQ(MemoryTheRankMayUse(8, m.src), 20000000 * kKiB - total / 100 * 8);
  m.CgroupV1(4 * kGiB, 1 * kGiB);
  EXPECT_EQ(MemoryTheRankMayUse(8, m.src), 3 * kGiB - 4 * kGiB / 100 * 8);
  Write(m.src.meminfo, Meminfo(1000000));  // below the reserve: nothing
  EXPECT_EQ(MemoryTheRankMayUse(8, m.src), 0u);
}

TEST(ProcMemorySignals, RealProcFilesAreReadable) {
  EXPECT_GT(ReadMeminfoBytes("/proc/meminfo", "MemTotal"), 0u);
  uint64_t total = 1, avail = 1, missing = 1;
  ReadMeminfoBytes("/proc/meminfo", {"MemTotal", "MemAvailable", "NoSuchField"},
                   {&total, &avail, &missing});
  EXPECT_EQ(total, ReadMeminfoBytes("/proc/meminfo", "MemTotal"));
  EXPECT_GT(avail, 0u);
  EXPECT_LE(avail, total);
  EXPECT_EQ(missing, 0u);
  EXPECT_GT(MemoryTheRankMayUse(), 0u);
  ProcMemorySignals own;  // this machine's own files, whatever its cgroup version
  (void)own.Sample();
}

// Descriptors of this process open on `path` (/proc/self/fd).
int DescriptorsOn(const std::string &path) {
  int n = 0;
  for (const auto &entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    if (std::filesystem::read_symlink(entry.path(), ec) == path) ++n;
  }
  return n;
}

TEST(ProcMemorySignals, TheKernelsFilesAreKeptOncePerProcessForEverySampler) {
  ASSERT_LE(DescriptorsOn("/proc/meminfo"), 1);  // 1: an earlier test in this process
  {
    ProcMemorySignals first, second;  // two contexts' samplers
    EXPECT_GT(first.Sample().total, 0u);
    EXPECT_GT(second.Sample().total, 0u);
    EXPECT_EQ(DescriptorsOn("/proc/meminfo"), 1) << "each sampler opened the file for itself";
  }
  ProcMemorySignals third;
  const MemorySample s = third.Sample();
  EXPECT_GT(s.total, 0u);
  EXPECT_GT(s.headroom, 0u);
  EXPECT_EQ(DescriptorsOn("/proc/meminfo"), 1) << "a new sampler opened the file again";
}

TEST(ProcMemorySignals, ASamplerReadsNothingUntilItsFirstSample) {
  Machine m;
  m.CgroupV2("max", 1000);
  std::filesystem::remove(m.src.psi);
  ProcMemorySignals s = m.Signals();  // a file missing when read is tried again a second later
  Write(m.src.psi, Psi(1000));
  EXPECT_FALSE(s.Sample().contention);  // the first sample: where growth is measured from
  Write(m.src.psi, Psi(1000 + 50000));
  EXPECT_TRUE(s.Sample().contention) << "the sampler read psi before its first sample";
}

TEST(RecentSample, OneSampleServesTheContextsOfAPeriod) {
  struct Counting : MemorySignals {
    int samples = 0;
    MemorySample Sample() override {
      MemorySample s;
      s.total = 100 * kGiB;
      s.headroom = static_cast<uint64_t>(++samples) * kGiB;
      s.contention = true;
      s.reason = "a first sample's growth means nothing to another sampler";
      return s;
    }
  } signals;
  const MemorySample a = RecentSample(&signals, 61, 10.0);  // reserves no other test uses
  const MemorySample b = RecentSample(&signals, 61, 10.0);
  EXPECT_EQ(signals.samples, 1);
  EXPECT_EQ(b.headroom, a.headroom);
  EXPECT_FALSE(b.contention);
  EXPECT_TRUE(b.reason.empty());
  EXPECT_EQ(RecentSample(&signals, 62, 10.0).headroom, 2 * kGiB);  // another reserve
  EXPECT_EQ(RecentSample(&signals, 62, -1.0).headroom, 3 * kGiB);  // older than asked
  EXPECT_EQ(signals.samples, 3);
}

TEST(AimdHeadroom, GrowthStopsAtTheHeadroomAndHardSignalsCutAgain) {
  double now = 0;
  AimdController aimd(10 * kGiB, 64 * 1024 * 1024, true, [&] { return now; });
  const uint64_t cap = aimd.cap();
  EXPECT_TRUE(aimd.OnContention("first"));
  EXPECT_EQ(aimd.budget(), PageAlignDown(cap / 2));
  // within the same round a soft signal does nothing, a hard one only after kHardCutGap
  EXPECT_FALSE(aimd.OnContention("soft again"));
  now += AimdController::kHardCutGap / 2;
  EXPECT_FALSE(aimd.OnContention("hard, too soon", true));
  now += AimdController::kHardCutGap;
  EXPECT_TRUE(aimd.OnContention("hard", true));
  EXPECT_EQ(aimd.budget(), PageAlignDown(PageAlignDown(cap / 2) / 2));
  aimd.OnRoundEnd(false);  // the round with the cuts ends
  const uint64_t before = aimd.budget();
  aimd.OnRoundEnd(true, 0);  // clean, but nothing above the reserve: hold
  EXPECT_EQ(aimd.budget(), before);
  aimd.OnRoundEnd(true, 100 * 4096);  // a little room: grow by that only
  EXPECT_EQ(aimd.budget(), before + 100 * 4096);
  aimd.OnRoundEnd(true);  // plenty: 10 % of the cap
  EXPECT_EQ(aimd.budget(), PageAlignDown(before + 100 * 4096 + PageAlignDown(cap / 10)));
}

}  // namespace pfio

namespace pfio {
namespace {

TEST(ProcessResident, FollowsMemoryTheProcessTouches) {
  const uint64_t before = ProcessResidentBytes();
  ASSERT_GT(before, 0u);
  const size_t n = 64 << 20;
  std::vector<char> block(n);  // value-initialized: every page is written
  for (size_t i = 0; i < n; i += 4096) block[i] = static_cast<char>(i);
  const uint64_t after = ProcessResidentBytes();
  EXPECT_GE(after, before + n - (4 << 20)) << before << " then " << after;
  EXPECT_EQ(block[4096], static_cast<char>(4096));
}

}  // namespace
}  // namespace pfio
