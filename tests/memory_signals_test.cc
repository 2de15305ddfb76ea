#include "memory/memory_signals.h"

#include <gtest/gtest.h>

#include <fstream>

#include "test_util.h"

namespace pfio {

namespace {
void Write(const std::string &path, const std::string &text) {
  std::ofstream(path) << text;
}
std::string Psi(unsigned long long total) {
  return "some avg10=0.00 avg60=0.00 avg300=0.00 total=" + std::to_string(total) +
         "\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
}
const char *kPlentyMeminfo = "MemTotal:       24000000 kB\nMemAvailable:   20000000 kB\n";
}  // namespace

TEST(ProcMemorySignals, EachSourceRaisesContention) {
  test::ScratchDir dir;
  const std::string psi = dir.path() + "/psi", mem = dir.path() + "/meminfo",
                    cg = dir.path() + "/memory.events";
  Write(psi, Psi(1000));
  Write(mem, kPlentyMeminfo);
  Write(cg, "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
  ProcMemorySignals s(psi, mem, cg);
  EXPECT_FALSE(s.Sample().contention);

  Write(psi, Psi(1000 + 50000));  // 50 ms more stall
  MemorySample a = s.Sample();
  EXPECT_TRUE(a.contention);
  EXPECT_NE(a.reason.find("psi"), std::string::npos);
  EXPECT_FALSE(s.Sample().contention);  // no new stall since

  Write(cg, "low 0\nhigh 3\nmax 0\noom 0\noom_kill 0\n");
  MemorySample b = s.Sample();
  EXPECT_TRUE(b.contention);
  EXPECT_NE(b.reason.find("memory.events"), std::string::npos);

  Write(mem, "MemTotal:       24000000 kB\nMemAvailable:   100000 kB\n");
  MemorySample c = s.Sample();
  EXPECT_TRUE(c.contention);
  EXPECT_NE(c.reason.find("MemAvailable"), std::string::npos);
}

TEST(ProcMemorySignals, RealProcFilesAreReadable) {
  EXPECT_GT(ReadMeminfoBytes("/proc/meminfo", "MemTotal"), 0u);
  EXPECT_GT(MemoryTheRankMayUse(), 0u);
}

}  // namespace pfio
