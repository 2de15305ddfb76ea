// Layouts: striping from strings and hints (bad input named), splits at stripe and extent
// boundaries, FIEMAP on a real file, md RAID from a sysfs tree, hwloc block devices.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "layout/fiemap_layout.h"
#include "layout/striped_layout.h"
#include "layout/topology.h"
#include "test_util.h"

namespace pfio {
namespace {

constexpr uint64_t kMiB = 1 << 20;

std::unique_ptr<StripedLayout> Striped(const std::string &spec) {
  std::unique_ptr<StripedLayout> l;
  Status s = StripedLayout::Parse(spec, &l);
  EXPECT_TRUE(s.ok()) << s.message();
  return l;
}

void ExpectRejected(const std::string &spec, const std::string &names) {
  std::unique_ptr<StripedLayout> l;
  Status s = StripedLayout::Parse(spec, &l);
  EXPECT_EQ(s.code(), PFIO_EINVAL) << spec;
  EXPECT_NE(s.message().find(names), std::string::npos) << spec << ": " << s.message();
  EXPECT_EQ(l, nullptr);
}

TEST(StripedLayout, ParsesTheExplicitString) {
  auto l = Striped("stripe=1MiB,targets=8,buses=2");
  EXPECT_EQ(l->stripe(), kMiB);
  EXPECT_EQ(l->targets(), 8u);
  EXPECT_EQ(l->buses(), 2u);
  EXPECT_NE(l->Describe().find("8 targets"), std::string::npos);
  auto d = Striped("targets=4,stripe=64K");  // any order; one bus by default
  EXPECT_EQ(d->buses(), 1u);
  EXPECT_EQ(d->stripe(), 65536u);
}

TEST(StripedLayout, BadStringsNameTheField) {
  ExpectRejected("stripe=1MiB", "missing targets");
  ExpectRejected("targets=4", "missing stripe");
  ExpectRejected("stripe=1MiB,targets=0", "targets = 0");
  ExpectRejected("stripe=1MiB,targets=1000000", "targets = 1000000");
  ExpectRejected("stripe=6000,targets=4", "stripe = 6000");  // not a multiple of 4 KiB
  ExpectRejected("stripe=0,targets=4", "stripe = 0");
  ExpectRejected("stripe=1MiB,targets=4,buses=5", "buses = 5");
  ExpectRejected("stripe=1MiB,targets=4,buses=0", "buses = 0");
  ExpectRejected("stripe=1MiB,targets=four", "targets");
  ExpectRejected("stripe=1MiB,disks=4", "unknown key \"disks\"");
  ExpectRejected("stripe", "not key=value");
  ExpectRejected("", "missing");
}

TEST(StripedLayout, FromMpiIoHints) {
  std::unique_ptr<StripedLayout> l;
  ASSERT_TRUE(StripedLayout::FromHints("1048576", "4", &l).ok());
  EXPECT_EQ(l->targets(), 4u);
  EXPECT_NE(l->Describe().find("striping_factor=4"), std::string::npos);
  Status s = StripedLayout::FromHints("1000", "4", &l);
  EXPECT_NE(s.message().find("striping_unit = 1000"), std::string::npos) << s.message();
  s = StripedLayout::FromHints("1048576", "0", &l);
  EXPECT_NE(s.message().find("striping_factor = 0"), std::string::npos) << s.message();
  s = StripedLayout::FromHints("1M", "x", &l);
  EXPECT_NE(s.message().find("striping_factor"), std::string::npos) << s.message();
}

TEST(StripedLayout, RangesStraddlingStripesAreSplit) {
  auto l = Striped("stripe=64K,targets=4,buses=2");
  std::vector<Placement> v;
  // From 60 KiB to 200 KiB: stripes 0 (tail), 1, 2, 3 (head).
  l->Map(60 * 1024, 140 * 1024, &v);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].file_offset, 60u * 1024);
  EXPECT_EQ(v[0].length, 4u * 1024);
  EXPECT_EQ(v[0].target, 0u);
  EXPECT_EQ(v[0].target_offset, 60u * 1024);
  EXPECT_EQ(v[1].target, 1u);
  EXPECT_EQ(v[1].bus, 1u);
  EXPECT_EQ(v[1].target_offset, 0u);
  EXPECT_EQ(v[3].target, 3u);
  EXPECT_EQ(v[3].length, 200u * 1024 - 192 * 1024);
  uint64_t total = 0;
  for (const auto &p : v) total += p.length;
  EXPECT_EQ(total, 140u * 1024);
  // The second round of stripes lands one stripe further on each target.
  v.clear();
  l->Map(4 * 65536 + 10, 1, &v);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].target, 0u);
  EXPECT_EQ(v[0].target_offset, 65536u + 10);
}

TEST(FiemapLayout, SplitsAtExtentBoundariesAndKeepsHoles) {
  FiemapLayout l({{0, 1000 * 4096, 2 * 4096}, {4 * 4096, 50 * 4096, 4096}}, "test");
  std::vector<Placement> v;
  l.Map(4096, 5 * 4096, &v);  // tail of extent 0, a hole, extent 1, past the end
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].target_offset, 1001u * 4096);
  EXPECT_EQ(v[0].length, 4096u);
  EXPECT_EQ(v[1].target_offset, 2u * 4096);  // hole: logical
  EXPECT_EQ(v[1].length, 2u * 4096);
  EXPECT_EQ(v[2].target_offset, 50u * 4096);
  EXPECT_EQ(v[3].file_offset, 5u * 4096);
}

TEST(FiemapLayout, RealFileOnDisk) {
  test::ScratchDir dir;
  std::string path = dir.MakeFile("fiemap", 4 * kMiB, 1);
  std::unique_ptr<FiemapLayout> l;
  Status s = FiemapLayout::Read(path, &l);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_FALSE(l->extents().empty());
  uint64_t mapped = 0;
  for (const auto &x : l->extents()) mapped += x.length;
  EXPECT_EQ(mapped, 4 * kMiB);
  std::vector<Placement> v;
  l->Map(0, 4 * kMiB, &v);
  uint64_t covered = 0;
  for (const auto &p : v) {
    EXPECT_EQ(p.file_offset, covered);
    covered += p.length;
  }
  EXPECT_EQ(covered, 4 * kMiB);
  EXPECT_NE(l->Describe().find("extents"), std::string::npos);
  std::unique_ptr<FiemapLayout> none;
  EXPECT_EQ(FiemapLayout::Read(dir.path() + "/missing", &none).code(), PFIO_EINVAL);
}

TEST(Topology, MdRaidFromSysfs) {
  test::ScratchDir dir;
  namespace fs = std::filesystem;
  const fs::path md = fs::path(dir.path()) / "block" / "md0" / "md";
  fs::create_directories(md);
  fs::create_directories(fs::path(dir.path()) / "block" / "md0" / "slaves" / "sdb");
  fs::create_directories(fs::path(dir.path()) / "block" / "md0" / "slaves" / "sda");
  std::ofstream(md / "level") << "raid0\n";
  std::ofstream(md / "chunk_size") << "524288\n";
  std::ofstream(md / "raid_disks") << "2\n";
  MdRaid r;
  ASSERT_TRUE(ReadMdRaid("md0", &r, dir.path()).ok());
  EXPECT_EQ(r.level, "raid0");
  EXPECT_EQ(r.chunk_bytes, 524288u);
  EXPECT_EQ(r.raid_disks, 2u);
  ASSERT_EQ(r.members.size(), 2u);
  EXPECT_EQ(r.members[0], "sda");
  Status s = ReadMdRaid("vda", &r, dir.path());
  EXPECT_EQ(s.code(), PFIO_EINVAL);
  EXPECT_NE(s.message().find("not an md RAID array"), std::string::npos);
}

TEST(Topology, HwlocSeesTheDiskUnderTheTestFiles) {
  std::vector<BlockDevice> devs;
  ASSERT_TRUE(DiscoverBlockDevices(&devs).ok());
  const std::string dev = DeviceOfPath(".");
  ASSERT_FALSE(dev.empty());
  bool found = false;
  for (const auto &d : devs) found |= d.name == dev;
  EXPECT_TRUE(found) << "hwloc did not report " << dev;
}

}  // namespace
}  // namespace pfio
