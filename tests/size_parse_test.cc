#include "common/size_parse.h"

#include <gtest/gtest.h>

namespace pfio {

TEST(ParseSize, SuffixesArePowersOf1024) {
  uint64_t b = 0;
  ASSERT_TRUE(ParseSize("4096", "--block", &b).ok());
  EXPECT_EQ(b, 4096u);
  ASSERT_TRUE(ParseSize("4K", "--block", &b).ok());
  EXPECT_EQ(b, 4096u);
  ASSERT_TRUE(ParseSize("1M", "--block", &b).ok());
  EXPECT_EQ(b, 1048576u);
  ASSERT_TRUE(ParseSize("4G", "--file-size", &b).ok());
  EXPECT_EQ(b, 4ull << 30);
  ASSERT_TRUE(ParseSize("1.5M", "--budget", &b).ok());
  EXPECT_EQ(b, 1572864u);
}

TEST(ParseSize, BadTextNamesTheOptionAndValue) {
  uint64_t b = 0;
  Status s = ParseSize("12Q", "--block", &b);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), PFIO_EINVAL);
  EXPECT_NE(s.message().find("--block"), std::string::npos);
  EXPECT_NE(s.message().find("12Q"), std::string::npos);
  EXPECT_FALSE(ParseSize("", "--block", &b).ok());
  EXPECT_FALSE(ParseSize("-4K", "--block", &b).ok());
  EXPECT_FALSE(ParseSize("0.3", "--block", &b).ok());
}

}  // namespace pfio
