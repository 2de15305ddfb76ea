#include "partition/request_builder.h"

#include <algorithm>

namespace pfio {

namespace {
size_t PageCount(const Piece *p) {
  return p->length / BufferPool::kPage;
}
}  // namespace

uint64_t InfillFor(const RequestShape &shape, const FileHandle &file) {
  return file.remote ? shape.infill_remote : shape.infill_max;
}

RequestJoin ReadJoin(const RequestShape &shape, const FileHandle &file) {
  return {InfillFor(shape, file), shape.max_request, /*advice=*/false};
}

RequestJoin AdviceJoin(const RequestShape &shape) {
  return {0, std::max(shape.max_request, shape.cache_max_request), /*advice=*/true};
}

std::vector<std::pair<uint64_t, uint64_t>> AdviceSpans(
    const std::vector<std::pair<uint64_t, uint64_t>> &ranges, const RequestShape &shape,
    const FileHandle &file, const std::function<bool(uint64_t, uint64_t)> &held,
    uint64_t *gap_bytes) {
  const uint64_t join = shape.cache_release ? 0
                        : file.remote       ? std::max(shape.infill_remote, kCacheJoinGapRemote)
                                            : std::max(shape.infill_max, kCacheJoinGapLocal);
  const uint64_t span = std::max(shape.max_request, shape.cache_max_request);
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto &[begin, end] : ranges) {
    if (!out.empty()) {
      auto &last = out.back();
      const uint64_t gap = begin - last.second;
      if (gap <= join && end - last.first <= span && (gap == 0 || !held(last.second, begin))) {
        *gap_bytes += gap;
        last.second = end;
        continue;
      }
    }
    out.emplace_back(begin, end);
  }
  return out;
}

std::vector<std::unique_ptr<PendingRead>> BuildRequests(
    std::vector<Piece *> pieces, const std::unordered_map<int32_t, const FileHandle *> &handles,
    const JoinFor &join) {
  std::sort(pieces.begin(), pieces.end(), [](const Piece *a, const Piece *b) {
    if (a->file != b->file) return a->file < b->file;
    if (a->target != b->target) return a->target < b->target;
    return a->offset < b->offset;
  });
  std::vector<std::unique_ptr<PendingRead>> out;
  PendingRead *cur = nullptr;
  size_t cur_iovs = 0;  // worst case: one vector per page plus one per gap
  RequestJoin rule;     // cur's file's
  for (Piece *p : pieces) {
    if (cur != nullptr) {
      const Piece *last = cur->pieces.back();
      const bool same_file = last->file == p->file && last->target == p->target;
      const uint64_t gap = same_file && p->offset >= last->end() ? p->offset - last->end() : ~0ull;
      const size_t iovs = cur_iovs + PageCount(p) + (gap > 0 ? 1 : 0);
      if (gap <= rule.gap && p->end() - cur->req.offset <= rule.span &&
          (rule.advice || iovs <= kMaxIov)) {
        cur->gap_bytes += gap;
        cur->piece_bytes += p->length + (rule.advice ? gap : 0);
        cur->req.length = p->end() - cur->req.offset;
        cur->pieces.push_back(p);
        cur_iovs = iovs;
        p->request = cur;
        continue;
      }
    }
    out.push_back(std::make_unique<PendingRead>());
    cur = out.back().get();
    cur->file = p->file;
    cur->target = p->target;
    cur->bus = p->bus;
    cur->target_offset = p->target_offset;
    cur->req.file = handles.at(p->file);
    rule = join(p->file);
    cur->req.offset = p->offset;
    cur->req.length = p->length;
    cur->piece_bytes = p->length;
    cur->pieces.push_back(p);
    cur_iovs = PageCount(p);
    p->request = cur;
  }
  return out;
}

void FillIov(PendingRead *r, const RequestShape &shape) {
  auto &iov = r->req.iov;
  iov.clear();
  r->req.discard = shape.discard;
  uint64_t pos = r->req.offset;
  for (const Piece *p : r->pieces) {
    if (p->offset > pos) iov.push_back({shape.discard, static_cast<size_t>(p->offset - pos)});
    for (char *page : p->pages) {
      if (!iov.empty() && static_cast<char *>(iov.back().iov_base) + iov.back().iov_len == page &&
          iov.back().iov_base != shape.discard) {
        iov.back().iov_len += BufferPool::kPage;  // contiguous pages: one vector
      } else {
        iov.push_back({page, static_cast<size_t>(BufferPool::kPage)});
      }
    }
    pos = p->end();
  }
}

}  // namespace pfio
