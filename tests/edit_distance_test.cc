// EditDistance against the definition: the full dynamic-programming table, on random strings of
// every length around the 64-byte switch between the bit-parallel and the row-by-row paths, over
// small and full byte alphabets, and on the corner cases.
#include "common/edit_distance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace pfio {
namespace {

size_t Reference(const std::string &a, const std::string &b) {
  const size_t w = b.size() + 1;
  std::vector<size_t> d((a.size() + 1) * w);
  for (size_t i = 0; i <= a.size(); ++i) d[i * w] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      d[i * w + j] = std::min({d[(i - 1) * w + j] + 1, d[i * w + j - 1] + 1,
                               d[(i - 1) * w + j - 1] + (a[i - 1] != b[j - 1] ? 1u : 0u)});
  return d[a.size() * w + b.size()];
}

std::string Random(std::mt19937_64 &rng, size_t len, int alphabet) {
  std::string s(len, '\0');
  for (char &c : s) c = static_cast<char>(alphabet == 256 ? rng() % 256 : 'a' + rng() % alphabet);
  return s;
}

TEST(EditDistance, CornerCases) {
  EXPECT_EQ(EditDistance("").Distance(""), 0u);
  EXPECT_EQ(EditDistance("").Distance("abc"), 3u);
  EXPECT_EQ(EditDistance("abc").Distance(""), 3u);
  EXPECT_EQ(EditDistance("budget").Distance("budget"), 0u);
  EXPECT_EQ(EditDistance("budget").Distance("bugdet"), 2u);
  EXPECT_EQ(EditDistance("kitten").Distance("sitting"), 3u);
  EXPECT_EQ(EditDistance(std::string(64, 'a')).Distance(std::string(64, 'a')), 0u);
  EXPECT_EQ(EditDistance(std::string(64, 'a')).Distance(""), 64u);
  EXPECT_EQ(EditDistance(std::string(65, 'a')).Distance(std::string(64, 'a')), 1u);
  EXPECT_EQ(EditDistance("\xff\x80").Distance("\x80\xff"), 2u);  // bytes as unsigned
}

TEST(EditDistance, AgreesWithTheDefinitionOnRandomStrings) {
  std::mt19937_64 rng(9);
  for (int n = 0; n < 6000; ++n) {
    const int alphabet = n % 3 == 0 ? 2 : n % 3 == 1 ? 27 : 256;
    const size_t wlen = rng() % 80, tlen = rng() % 100;  // words on both sides of 64 bytes
    const std::string word = Random(rng, wlen, alphabet), text = Random(rng, tlen, alphabet);
    ASSERT_EQ(EditDistance(word).Distance(text), Reference(word, text))
        << "word " << wlen << " bytes, text " << tlen << " bytes, alphabet " << alphabet;
  }
}

}  // namespace
}  // namespace pfio
