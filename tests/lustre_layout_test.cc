// Lustre striping: lov_user_md buffers as LL_IOC_LOV_GETSTRIPE fills them (v1, v3 with a pool),
// turned into a striped layout whose splits follow the file's OSTs; every layout pfio cannot
// read (composite, foreign, released, RAID1, truncated, stripe sizes the engine refuses) named
// in the error; and a local file, where the ioctl is never sent.
#include "layout/lustre_layout.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "test_util.h"

namespace pfio {
namespace {

constexpr uint64_t kMiB = 1 << 20;

// A lov_user_md as the kernel returns it: header, (v3: 16-byte pool name), then 24 bytes per
// stripe with the OST index in the last 4.
std::vector<uint8_t> LovUserMd(uint32_t magic, uint32_t pattern, uint32_t stripe_size,
                               const std::vector<uint32_t> &osts, const char *pool = nullptr) {
  const size_t header = magic == LustreStripe::kMagicV3 ? 48 : 32;
  std::vector<uint8_t> b(header + osts.size() * 24, 0);
  const uint16_t count = static_cast<uint16_t>(osts.size());
  std::memcpy(&b[0], &magic, 4);
  std::memcpy(&b[4], &pattern, 4);
  std::memcpy(&b[24], &stripe_size, 4);
  std::memcpy(&b[28], &count, 2);
  if (pool) std::memcpy(&b[32], pool, std::strlen(pool));
  for (size_t i = 0; i < osts.size(); ++i) {
    const uint32_t object_id = 1000 + static_cast<uint32_t>(i), gen = 0;
    std::memcpy(&b[header + i * 24], &object_id, 4);
    std::memcpy(&b[header + i * 24 + 16], &gen, 4);
    std::memcpy(&b[header + i * 24 + 20], &osts[i], 4);
  }
  return b;
}

Status Layout(const std::vector<uint8_t> &b, std::unique_ptr<StripedLayout> *out) {
  LustreStripe s;
  Status st = ParseLovUserMd(b.data(), b.size(), &s);
  if (!st.ok()) return st;
  return LustreLayoutFromStripe(s, "/lustre/run/out.h5", out);
}

void ExpectNamed(const std::vector<uint8_t> &b, const std::string &names) {
  std::unique_ptr<StripedLayout> l;
  Status s = Layout(b, &l);
  EXPECT_EQ(s.code(), PFIO_EINVAL) << names;
  EXPECT_NE(s.message().find(names), std::string::npos) << s.message();
  EXPECT_EQ(l, nullptr);
}

TEST(LustreLayout, V1StripesFollowTheFilesOsts) {
  const auto b = LovUserMd(LustreStripe::kMagicV1, LustreStripe::kPatternRaid0, kMiB, {3, 7, 1, 0});
  LustreStripe s;
  ASSERT_TRUE(ParseLovUserMd(b.data(), b.size(), &s).ok());
  EXPECT_EQ(s.stripe_size, kMiB);
  EXPECT_EQ(s.stripe_count, 4u);
  EXPECT_EQ(s.osts, (std::vector<uint32_t>{3, 7, 1, 0}));
  EXPECT_TRUE(s.pool.empty());

  std::unique_ptr<StripedLayout> l;
  ASSERT_TRUE(Layout(b, &l).ok());
  EXPECT_EQ(l->targets(), 4u);
  EXPECT_EQ(l->buses(), 1u);
  EXPECT_NE(l->Describe().find("OSTs 3,7,1,0"), std::string::npos) << l->Describe();
  EXPECT_NE(l->Describe().find("/lustre/run/out.h5"), std::string::npos) << l->Describe();
  // 5.5 MiB from 0.5 MiB: split at every stripe; stripe i on target i mod 4.
  std::vector<Placement> v;
  l->Map(kMiB / 2, 11 * kMiB / 2, &v);
  ASSERT_EQ(v.size(), 6u);
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(v[i].target, i % 4) << i;
    EXPECT_EQ(v[i].length, i == 0 ? kMiB / 2 : kMiB) << i;
  }
  EXPECT_EQ(v[0].target_offset, kMiB / 2);
  EXPECT_EQ(v[4].target_offset, kMiB);  // stripe 4: second stripe on target 0
}

TEST(LustreLayout, V3CarriesThePoolAndOverstripingIsRaid0) {
  const auto b = LovUserMd(LustreStripe::kMagicV3,
                           LustreStripe::kPatternRaid0 | LustreStripe::kPatternOverstriping,
                           4 * kMiB, {5, 5, 6}, "flash");
  LustreStripe s;
  ASSERT_TRUE(ParseLovUserMd(b.data(), b.size(), &s).ok());
  EXPECT_EQ(s.pool, "flash");
  EXPECT_EQ(s.osts, (std::vector<uint32_t>{5, 5, 6}));
  std::unique_ptr<StripedLayout> l;
  ASSERT_TRUE(Layout(b, &l).ok());
  EXPECT_EQ(l->targets(), 3u);
  EXPECT_EQ(l->stripe(), 4 * kMiB);
  EXPECT_NE(l->Describe().find("pool flash"), std::string::npos) << l->Describe();
}

TEST(LustreLayout, LayoutsPfioCannotReadAreNamed) {
  const uint32_t raid0 = LustreStripe::kPatternRaid0;
  ExpectNamed(LovUserMd(LustreStripe::kMagicComposite, raid0, kMiB, {0}), "composite");
  ExpectNamed(LovUserMd(LustreStripe::kMagicForeign, raid0, kMiB, {0}), "foreign");
  ExpectNamed(LovUserMd(0x12345678, raid0, kMiB, {0}), "magic 0x12345678");
  ExpectNamed(LovUserMd(LustreStripe::kMagicV1, 0x2, kMiB, {0, 1}), "pattern 0x2");
  ExpectNamed(LovUserMd(LustreStripe::kMagicV1, raid0 | LustreStripe::kPatternReleased, kMiB, {0}),
              "released");
  ExpectNamed(LovUserMd(LustreStripe::kMagicV1, raid0, kMiB, {}), "stripe_count = 0");
  ExpectNamed(LovUserMd(LustreStripe::kMagicV1, raid0, 65537, {0, 1}), "stripe = 65537");
  auto cut = LovUserMd(LustreStripe::kMagicV1, raid0, kMiB, {0, 1, 2, 3});
  cut.resize(32 + 2 * 24);  // room for two of the four stripes
  ExpectNamed(cut, "stripe_count = 4");
  ExpectNamed(std::vector<uint8_t>(16, 0), "16 bytes");
}

TEST(LustreLayout, ALocalFileIsNotAskedAndTheFileSystemIsNamed) {
  test::ScratchDir dir;
  const std::string path = dir.MakeFile("local", 1 * kMiB, 5);
  std::unique_ptr<StripedLayout> l;
  Status s = ReadLustreLayout(path, &l);
  EXPECT_EQ(s.code(), PFIO_EINVAL);
  EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("expected a Lustre file system"), std::string::npos) << s.message();
  EXPECT_EQ(l, nullptr);
  s = ReadLustreLayout(dir.path() + "/missing", &l);
  EXPECT_EQ(s.code(), PFIO_EINVAL);
  EXPECT_NE(s.message().find("missing"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace pfio
