// buffer = auto: the rule of engine/buffer_rule.h, line by line, and what a context with the
// default settings makes of a local file and of a simulated disk.
#include "engine/buffer_rule.h"

#include <gtest/gtest.h>

#include <string>

#include "common/status.h"
#include "engine/config.h"
#include "engine/config_keys.h"

namespace pfio {
namespace {

TEST(BufferRule, EachLineOfTheRuleInItsOrder) {
  // 1. No page cache (the simulator): the reorder buffer, whatever else is known.
  EXPECT_EQ(ChooseBufferKind({false, true, false}).kind, PFIO_BUFFER_ENGINE);
  EXPECT_EQ(ChooseBufferKind({false, false, true}).kind, PFIO_BUFFER_ENGINE);
  // 2. O_DIRECT refused: the page cache, local or remote.
  EXPECT_EQ(ChooseBufferKind({true, true, false}).kind, PFIO_BUFFER_CACHE);
  EXPECT_EQ(ChooseBufferKind({true, false, false}).kind, PFIO_BUFFER_CACHE);
  // 3. Remote storage with O_DIRECT: the reorder buffer.
  EXPECT_EQ(ChooseBufferKind({true, true, true}).kind, PFIO_BUFFER_ENGINE);
  // 4. A local file system: the page cache.
  EXPECT_EQ(ChooseBufferKind({true, false, true}).kind, PFIO_BUFFER_CACHE);
  EXPECT_NE(std::string(ChooseBufferKind({true, false, true}).reason).find("local"),
            std::string::npos);
}

TEST(BufferRule, AutoIsTheDefaultAndASettingOverridesIt) {
  Config c;
  EXPECT_EQ(c.buffer, PFIO_BUFFER_AUTO);
  std::string v;
  ASSERT_TRUE(GetConfig(c, "buffer", &v).ok());
  EXPECT_EQ(v, "auto");
  for (const char *kind : {"engine", "cache", "auto"}) {
    ASSERT_TRUE(SetConfig(&c, "buffer", kind).ok()) << kind;
    ASSERT_TRUE(GetConfig(c, "buffer", &v).ok());
    EXPECT_EQ(v, kind);
  }
  const Status bad = SetConfig(&c, "buffer", "kernel");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("kernel"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("auto"), std::string::npos) << bad.message();
  EXPECT_EQ(c.buffer, PFIO_BUFFER_AUTO) << "a refused value changes nothing";
}

}  // namespace
}  // namespace pfio
