#include "engine/buffer_kind.h"

#include <algorithm>

#include "common/page.h"

namespace pfio {

// ReorderBufferKind

uint64_t ReorderBufferKind::UnreadCap(uint64_t) const {
  return UINT64_MAX;
}

BufferKind::Ranges ReorderBufferKind::PieceRanges(Ranges ranges, const FileHandle &,
                                                  const RequestShape &, const Holds &,
                                                  uint64_t *) const {
  return ranges;  // a piece per range (cut at max_request and stripes); gaps join in requests
}

RequestJoin ReorderBufferKind::Join(const RequestShape &shape, const FileHandle &file) const {
  return ReadJoin(shape, file);
}

bool ReorderBufferKind::Take(ReorderBuffer *buffer, Piece *p, bool) const {
  return buffer->Allocate(p);
}

void ReorderBufferKind::Prepare(PendingRead *read, const RequestShape &shape) const {
  FillIov(read, shape);
}

Status ReorderBufferKind::Serve(Reader *reader, Piece *p, uint64_t lo, uint64_t hi,
                                char *dst) const {
  Status s = reader->WaitLanded(p);
  if (!s.ok()) return s;
  if (p->state != Piece::State::kReady) return reader->ReadAgain(*p, lo, hi, dst);
  p->CopyOut(lo, hi, dst);
  reader->Served(p);
  return Status::Ok();
}

Status ReorderBufferKind::AcceptCallerReads(int32_t id, const FileHandle &file) const {
  return Status::Invalid(
      Format("file %d (%s) is of the reorder-buffer kind (buffer = engine): its prefetched "
             "bytes are in pfio's buffer, so read them with pfio_read; pfio_read_done is for "
             "files opened with buffer = cache",
             id, file.path.c_str()));
}

// PageCacheKind

uint64_t PageCacheKind::UnreadCap(uint64_t room) const {
  // Advised in batches (refilled at half, Context::Refill), so that a batch's reads overlap the
  // next one's advice (docs/architecture.md, "Two buffer kinds").
  return std::min(kBatch, std::max(kPage, room / 2));
}

BufferKind::Ranges PageCacheKind::PieceRanges(Ranges ranges, const FileHandle &file,
                                              const RequestShape &shape, const Holds &held,
                                              uint64_t *gap_bytes) const {
  return AdviceSpans(ranges, shape, file, held, gap_bytes);  // one piece, one advice, each
}

uint64_t PageCacheKind::MaxPiece(const RequestShape &shape) const {
  return std::max(shape.max_request, shape.cache_max_request);
}

RequestJoin PageCacheKind::Join(const RequestShape &shape, const FileHandle &) const {
  return AdviceJoin(shape);
}

bool PageCacheKind::Take(ReorderBuffer *buffer, Piece *p, bool urgent) const {
  return buffer->Charge(p, urgent);
}

void PageCacheKind::Prepare(PendingRead *, const RequestShape &) const {}  // advice: no vectors

Status PageCacheKind::Serve(Reader *reader, Piece *p, uint64_t lo, uint64_t hi, char *dst) const {
  // The file holds the bytes whether or not their advice has been given (or failed): no wait
  // for it to land, which would add the I/O thread's wake-up to every read the advice has not
  // reached yet; the kernel waits for pages in flight instead.
  Status s = reader->ReadFromFile(dst, lo, hi - lo, /*waits=*/!p->settled());
  if (s.ok()) reader->Served(p);
  return s;
}

Status PageCacheKind::AcceptCallerReads(int32_t, const FileHandle &) const {
  return Status::Ok();
}

const BufferKind &BufferKindOf(const FileHandle &file) {
  static const ReorderBufferKind reorder_buffer;
  static const PageCacheKind page_cache;
  if (file.buffer == PFIO_BUFFER_CACHE) return page_cache;
  return reorder_buffer;
}

}  // namespace pfio
