#include "common/edit_distance.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace pfio {

EditDistance::EditDistance(std::string word) : word_(std::move(word)) {
  if (word_.size() > 64) return;
  for (size_t i = 0; i < word_.size(); ++i)
    positions_[static_cast<unsigned char>(word_[i])] |= uint64_t{1} << i;
}

size_t EditDistance::Distance(std::string_view text) const {
  const size_t m = word_.size();
  if (m == 0) return text.size();
  if (m > 64) {  // row by row: D[i][j] over the word's prefix i and the text's prefix j
    std::vector<size_t> row(text.size() + 1);
    for (size_t j = 0; j <= text.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= m; ++i) {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= text.size(); ++j) {
        const size_t up = row[j];
        row[j] = std::min(std::min(row[j], row[j - 1]) + 1, diag + (word_[i - 1] != text[j - 1]));
        diag = up;
      }
    }
    return row[text.size()];
  }
  // Myers / Hyyrö: the column of D over the word, kept as vertical deltas +1 (pv) and -1 (mv);
  // the score is D[m][j], the distance of the whole word to the text's first j bytes.
  const uint64_t last = uint64_t{1} << (m - 1);
  uint64_t pv = ~uint64_t{0}, mv = 0;
  size_t score = m;
  for (const char c : text) {
    const uint64_t eq = positions_[static_cast<unsigned char>(c)];
    const uint64_t xv = eq | mv;
    const uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
    uint64_t ph = mv | ~(xh | pv);
    uint64_t mh = pv & xh;
    if (ph & last) {
      ++score;
    } else if (mh & last) {
      --score;
    }
    ph = (ph << 1) | 1;  // row 0 grows by one per text byte: the whole-string distance
    mh <<= 1;
    pv = mh | ~(xv | ph);
    mv = ph & xv;
  }
  return score;
}

}  // namespace pfio
