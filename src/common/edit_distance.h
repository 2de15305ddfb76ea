// The edit (Levenshtein) distance between a fixed word and any text: insertions, deletions and
// substitutions of single bytes, each costing 1. Used to suggest the nearest valid name for a
// misspelt one (configuration keys), where one word is compared with many.
//
// Contract: Distance(text) equals the classic dynamic-programming distance between word() and
// text for every word and text (tests/edit_distance_test.cc checks it against that definition
// on random strings). Words of up to 64 bytes use Myers' bit-parallel algorithm in Hyyrö's form
// for whole-string distance (one pass over the text, a few word operations per byte); longer
// words fall back to the row-by-row computation. Bytes are compared as unsigned chars.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pfio {

class EditDistance {
 public:
  explicit EditDistance(std::string word);

  const std::string &word() const { return word_; }

  // The distance from word() to `text`.
  size_t Distance(std::string_view text) const;

 private:
  std::string word_;
  std::array<uint64_t, 256> positions_{};  // bit i set where word_[i] is that byte (short words)
};

}  // namespace pfio
