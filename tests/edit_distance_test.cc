// EditDistance against the definition: the full dynamic-programming table, on random strings of
// every length around the 64-byte switch between the bit-parallel and the row-by-row paths, over
// small and full byte alphabets, and on the corner cases.
#include "common/edit_distance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "levenshtein_reference.h"

namespace pfio {
namespace {

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
    ASSERT_EQ(EditDistance(word).Distance(text), test::ReferenceLevenshtein(word, text))
        << "word " << wlen << " bytes, text " << tlen << " bytes, alphabet " << alphabet;
  }
}

}  // namespace
}  // namespace pfio
