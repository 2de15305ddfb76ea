// PendingPages: the pages of one file that the window being planned will fetch. Window::Admit
// asks how many pages of an entry's gaps are not pending yet (so repeats count once against the
// budget) and then adds them; Ranges() gives them as merged byte ranges once the window is
// planned. An insert-only open-addressing set of page numbers (linear probing, power-of-two
// capacity) that also counts maximal runs of consecutive pages: admitting an entry costs a probe
// per page and no allocation per range (an ordered map of ranges cost a tree walk and a node per
// range, per entry: about half of planning's time on 4 KiB random reads).
//
// Not thread-safe; used while the context's mutex is held.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace pfio {

class PendingPages {
 public:
  bool Contains(uint64_t page) const;
  // Pages of [first, last) not in the set.
  uint64_t CountMissing(uint64_t first, uint64_t last) const;
  // Adds pages [first, last); returns how many were new.
  uint64_t Add(uint64_t first, uint64_t last);

  uint64_t pages() const { return pages_.size(); }
  // Maximal runs of consecutive pages: the ranges Ranges() will return.
  uint64_t runs() const { return runs_; }
  // The pages as byte ranges [begin, end), merged and sorted.
  std::vector<std::pair<uint64_t, uint64_t>> Ranges() const;

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;
  size_t Home(uint64_t page) const {
    return static_cast<size_t>((page * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void Grow();

  std::vector<uint64_t> slots_;
  std::vector<uint64_t> pages_;  // in the order added
  uint64_t runs_ = 0;
  unsigned shift_ = 64;
};

}  // namespace pfio
