#include "buffer/range_index.h"

#include <cassert>

namespace pfio {

void RangeIndex::Insert(uint64_t offset, uint64_t end, Piece *p) {
  auto [it, added] = by_offset_.emplace(offset, Held{end, p});
  (void)it;
  (void)added;
  assert(added && "a range piece starts where another does");
  assert((it == by_offset_.begin() || std::prev(it)->second.end <= offset) &&
         "range pieces never overlap");
  assert((std::next(it) == by_offset_.end() || std::next(it)->first >= end) &&
         "range pieces never overlap");
}

void RangeIndex::Erase(uint64_t offset) {
  [[maybe_unused]] const size_t erased = by_offset_.erase(offset);
  assert(erased == 1 && "erasing a range piece that is not in the index");
}

}  // namespace pfio
