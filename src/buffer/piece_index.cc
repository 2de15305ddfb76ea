#include "buffer/piece_index.h"

#include <cassert>

namespace pfio {

Piece *PieceIndex::Find(uint64_t page) const {
  if (slots_.empty()) return nullptr;
  const size_t mask = slots_.size() - 1;
  for (size_t i = Home(page);; i = (i + 1) & mask) {
    const Slot &s = slots_[i];
    if (s.page == page) return s.piece;
    if (s.page == kEmpty) return nullptr;
  }
}

void PieceIndex::Insert(uint64_t first, uint64_t count, Piece *p) {
  // At most 3/4 full, tombstones included, so probes stay short and always end.
  if ((size_ + tombs_ + count) * 4 > slots_.size() * 3) {
    size_t capacity = slots_.empty() ? 64 : slots_.size();
    while ((size_ + count) * 2 > capacity) capacity *= 2;
    Rebuild(capacity);
  }
  const size_t mask = slots_.size() - 1;
  for (uint64_t page = first; page < first + count; ++page) {
    size_t i = Home(page);
    while (slots_[i].page != kEmpty && slots_[i].page != kTomb) {
      assert(slots_[i].page != page && "a page is held by one piece at most");
      i = (i + 1) & mask;
    }
    if (slots_[i].page == kTomb) --tombs_;
    slots_[i] = Slot{page, p};
    ++size_;
  }
}

void PieceIndex::Erase(uint64_t first, uint64_t count) {
  const size_t mask = slots_.size() - 1;
  for (uint64_t page = first; page < first + count; ++page) {
    size_t i = Home(page);
    while (slots_[i].page != page) {
      assert(slots_[i].page != kEmpty && "erasing a page that is not in the index");
      i = (i + 1) & mask;
    }
    // A slot whose successor is empty ends every probe that reaches it: it may be empty too.
    if (slots_[(i + 1) & mask].page == kEmpty) {
      slots_[i].page = kEmpty;
    } else {
      slots_[i].page = kTomb;
      ++tombs_;
    }
    --size_;
  }
  if (size_ == 0) {
    // Empty: every slot may be reused as empty (no probe has anything left to find).
    for (Slot &s : slots_) s.page = kEmpty;
    tombs_ = 0;
  } else if (tombs_ * 4 > slots_.size()) {
    Rebuild(slots_.size());
  }
}

void PieceIndex::Rebuild(size_t capacity) {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(capacity, Slot{kEmpty, nullptr});
  shift_ = 64;
  for (size_t c = capacity; c > 1; c >>= 1) --shift_;
  tombs_ = 0;
  const size_t mask = capacity - 1;
  for (const Slot &s : old) {
    if (s.page == kEmpty || s.page == kTomb) continue;
    size_t i = Home(s.page);
    while (slots_[i].page != kEmpty) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

}  // namespace pfio
