// The edit distance by its definition (the whole dynamic-programming table, one allocation):
// the reference the edit-distance and nearest-key tests compare the fast paths with.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace pfio::test {

inline size_t ReferenceLevenshtein(const std::string &a, const std::string &b) {
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

}  // namespace pfio::test
