// PieceIndex: which piece holds each page of one file. An open-addressing hash table from page
// number to piece (linear probing, power-of-two capacity); every page of a piece has an entry,
// so "the pieces over [begin, end)" is one probe per page, in order, with no tree to walk or
// rebalance and no allocation per piece. A piece of n pages costs n inserts and n erases; reads
// are page-sized or larger, so the cost per read stays a few probes. Erased slots become
// tombstones, swept out when the table is rebuilt (as it grows, or once they are a quarter).
//
// Not thread-safe; the ReorderBuffer that owns it is guarded by the context's mutex.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pfio {

struct Piece;

class PieceIndex {
 public:
  // The piece holding page `page` (offset / kPage), or null.
  Piece *Find(uint64_t page) const;
  // Pages [first, first + count) are held by `p`; none of them may be in the index.
  void Insert(uint64_t first, uint64_t count, Piece *p);
  // Pages [first, first + count) are no longer held (each must be).
  void Erase(uint64_t first, uint64_t count);

  size_t pages() const { return size_; }
  // Heap bytes of the table.
  uint64_t heap_bytes() const { return slots_.size() * sizeof(Slot); }
  // Calls f(page, piece) for every page in the index (in no particular order).
  template <class F>
  void ForEachPage(F f) const {
    for (const Slot &s : slots_) {
      if (s.page != kEmpty && s.page != kTomb) f(s.page, s.piece);
    }
  }

 private:
  struct Slot {
    uint64_t page;
    Piece *piece;
  };
  static constexpr uint64_t kEmpty = UINT64_MAX, kTomb = UINT64_MAX - 1;
  size_t Home(uint64_t page) const {
    return static_cast<size_t>((page * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void Rebuild(size_t capacity);

  std::vector<Slot> slots_;
  size_t size_ = 0, tombs_ = 0;
  unsigned shift_ = 64;
};

}  // namespace pfio
