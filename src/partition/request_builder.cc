#include "partition/request_builder.h"

#include <algorithm>

namespace pfio {

namespace {
void AddIov(PendingRead *r, char *base, uint64_t len) {
  r->req.iov.push_back({base, static_cast<size_t>(len)});
  r->req.length += len;
}
}  // namespace

std::vector<PendingRead *> BuildRequests(std::vector<Piece *> pieces, const RequestShape &shape,
                                         const std::unordered_map<int32_t, const FileHandle *> &handles) {
  std::sort(pieces.begin(), pieces.end(), [](const Piece *a, const Piece *b) {
    return a->file != b->file ? a->file < b->file : a->offset < b->offset;
  });
  std::vector<PendingRead *> out;
  PendingRead *cur = nullptr;
  for (Piece *p : pieces) {
    if (cur != nullptr) {
      const Piece *last = cur->pieces.back();
      const bool same_file = last->file == p->file;
      const uint64_t gap = same_file && p->offset >= last->end() ? p->offset - last->end() : ~0ull;
      const uint64_t gap_iovs = gap == 0 ? 0 : 1;
      const bool fits = gap <= shape.infill_max &&
                        (p->end() - cur->req.offset) <= shape.max_request &&
                        cur->req.iov.size() + gap_iovs + 1 <= kMaxIov;
      if (fits) {
        if (gap > 0) {
          AddIov(cur, shape.discard, gap);
          cur->gap_bytes += gap;
        }
        AddIov(cur, p->data, p->length);
        cur->pieces.push_back(p);
        p->request = cur;
        continue;
      }
    }
    cur = new PendingRead;
    cur->file = p->file;
    cur->req.file = handles.at(p->file);
    cur->req.offset = p->offset;
    cur->req.owner = cur;
    AddIov(cur, p->data, p->length);
    cur->pieces.push_back(p);
    p->request = cur;
    out.push_back(cur);
  }
  return out;
}

}  // namespace pfio
