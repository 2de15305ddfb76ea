#include "buffer/reorder_buffer.h"

namespace pfio {

ReorderBuffer::~ReorderBuffer() {
  for (auto &[file, pieces] : by_file_) {
    for (auto &[off, p] : pieces) {
      pool_->Free(p->data, p->length);
      delete p;
    }
  }
}

void ReorderBuffer::Overlapping(int32_t file, uint64_t begin, uint64_t end,
                                std::vector<Piece *> *out) const {
  out->clear();
  auto f = by_file_.find(file);
  if (f == by_file_.end()) return;
  const auto &m = f->second;
  auto it = m.upper_bound(begin);
  if (it != m.begin()) {
    auto prev = std::prev(it);
    if (prev->second->end() > begin) out->push_back(prev->second);
  }
  for (; it != m.end() && it->first < end; ++it) out->push_back(it->second);
}

Piece *ReorderBuffer::Create(int32_t file, uint64_t offset, uint64_t length, uint64_t expected) {
  char *mem = pool_->Allocate(length);
  if (mem == nullptr) return nullptr;
  auto *p = new Piece;
  p->file = file;
  p->offset = offset;
  p->length = length;
  p->expected = expected;
  p->data = mem;
  by_file_[file].emplace(offset, p);
  ++count_;
  return p;
}

uint64_t ReorderBuffer::Unref(Piece *p) {
  if (--p->refs > 0) return 0;
  if (!p->settled()) return 0;  // freed when its read lands or its queued read is pruned
  return Destroy(p);
}

uint64_t ReorderBuffer::FreeIfOrphan(Piece *p) { return p->refs == 0 ? Destroy(p) : 0; }

uint64_t ReorderBuffer::Destroy(Piece *p) {
  const uint64_t wasted = (!p->served && p->state == Piece::State::kReady) ? p->expected : 0;
  auto f = by_file_.find(p->file);
  f->second.erase(p->offset);
  if (f->second.empty()) by_file_.erase(f);
  pool_->Free(p->data, p->length);
  --count_;
  delete p;
  return wasted;
}

}  // namespace pfio
