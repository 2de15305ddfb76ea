// RangeIndex: the pieces of one file held in the kernel's page cache (the page-cache buffer
// kind), found by offset. Such a piece is one advice: the pages a window needs and the gaps
// advised with them, up to megabytes, so a file has few and a plan entry finds the one or two
// that cover it with one ordered lookup, where the per-page index (buffer/piece_index.h) would
// probe once per page and touch a slot per page at every insert and erase (measured: on
// pfio-mpibench's tiles, 8 KiB entries, the page index's probes were a fifth of the engine's
// CPU). Pieces never overlap.
//
// Not thread-safe; the ReorderBuffer that owns it is guarded by the context's mutex.
#pragma once

#include <cstdint>
#include <iterator>
#include <map>

namespace pfio {

struct Piece;

class RangeIndex {
 public:
  // Appends the pieces overlapping [begin, end), ascending, to *out.
  template <class Out>
  void Overlapping(uint64_t begin, uint64_t end, Out *out) const;
  // Piece `p` holds [offset, end) and overlaps no piece in the index.
  void Insert(uint64_t offset, uint64_t end, Piece *p);
  // The piece at `offset` (in the index) leaves it.
  void Erase(uint64_t offset);

  bool empty() const { return by_offset_.empty(); }
  size_t size() const { return by_offset_.size(); }
  // Heap bytes of the index (a tree node per piece).
  uint64_t heap_bytes() const { return by_offset_.size() * kNodeBytes; }
  template <class F>
  void ForEach(F f) const {
    for (const auto &[offset, held] : by_offset_) f(held.piece);
  }

 private:
  static constexpr uint64_t kNodeBytes = 64;  // std::map node with its key and value, as allocated
  struct Held {
    uint64_t end;
    Piece *piece;
  };
  std::map<uint64_t, Held> by_offset_;  // by first byte
};

template <class Out>
void RangeIndex::Overlapping(uint64_t begin, uint64_t end, Out *out) const {
  auto it = by_offset_.upper_bound(begin);
  if (it != by_offset_.begin() && std::prev(it)->second.end > begin) --it;
  for (; it != by_offset_.end() && it->first < end; ++it) out->push_back(it->second.piece);
}

}  // namespace pfio
