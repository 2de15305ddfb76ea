// BufferKind: where the prefetched bytes of a file are held, and what that changes in each step
// of the engine: one method per row of docs/architecture.md's "Two buffer kinds" table (plan,
// request, issue, serve; land and release are the backend's and the ReorderBuffer's, the same
// calls for both). Two kinds: ReorderBufferKind (buffer = engine: pages of pfio's BufferPool
// filled by O_DIRECT reads) and PageCacheKind (buffer = cache: the kernel's page cache, filled
// by advice from PageCacheBackend's advice thread, the budget over advised bytes nobody read).
//
// Contract. A file's kind is chosen once, when it opens (Context::OpenFile: the setting, or
// buffer_rule.h's rule), and kept with it in the FileTable; the Context and its parts ask the
// file's kind and never test which one it is. A kind holds no state of its own beyond what it
// is built with; every method is called with the context's lock held.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "buffer/reorder_buffer.h"
#include "common/status.h"
#include "io/backend.h"
#include "partition/request_builder.h"
#include "pfio/pfio.h"

namespace pfio {

class BufferKind {
 public:
  using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;
  // Whether an existing piece lies in [begin, end) of the file.
  using Holds = std::function<bool(uint64_t begin, uint64_t end)>;

  // What serving a piece may ask of the read in progress (ReadPath's, for one call).
  class Reader {
   public:
    virtual ~Reader() = default;
    // Reads file bytes [pos, pos + n) into dst with the run of the file they continue (one
    // preadv for the run, before the call returns); `waits`: they may still be in flight.
    virtual Status ReadFromFile(char *dst, uint64_t pos, uint64_t n, bool waits) = 0;
    // Waits (bounded) until p's read has landed or failed.
    virtual Status WaitLanded(Piece *p) = 0;
    // p's read failed or came back short: [lo, hi) read directly instead (a miss).
    virtual Status ReadAgain(const Piece &p, uint64_t lo, uint64_t hi, char *dst) = 0;
    // The application read from p.
    virtual void Served(Piece *p) = 0;
  };

  virtual ~BufferKind() = default;
  // Which kind (reports: pfio_file_buffer, stats).
  virtual pfio_buffer_kind id() const = 0;

  // plan: the most a window holds planned and not consumed, for a room (the prefetch budget)
  // of `room` bytes; UINT64_MAX: the window's budget alone bounds it.
  virtual uint64_t UnreadCap(uint64_t room) const = 0;

  // request: the ranges the pieces of a window's new ranges of `file` cover (sorted, merged,
  // page aligned; `held` says where pieces exist already); *gap_bytes grows by the gaps
  // joined into them.
  virtual Ranges PieceRanges(Ranges ranges, const FileHandle &file, const RequestShape &shape,
                             const Holds &held, uint64_t *gap_bytes) const = 0;
  // The longest piece, and whether pieces are found by range (ReorderBuffer::Create).
  virtual uint64_t MaxPiece(const RequestShape &shape) const = 0;
  virtual bool by_range() const = 0;
  // How the file's pieces join into reads (BuildRequests).
  virtual RequestJoin Join(const RequestShape &shape, const FileHandle &file) const = 0;

  // issue: memory for a piece whose read goes out (`urgent`: the application waits for it);
  // false when the budget's capacity has none.
  virtual bool Take(ReorderBuffer *buffer, Piece *p, bool urgent) const = 0;
  // The read's vectors, its pieces holding memory.
  virtual void Prepare(PendingRead *read, const RequestShape &shape) const = 0;

  // serve: file bytes [lo, hi) of piece p, which a plan entry holds, into dst.
  virtual Status Serve(Reader *reader, Piece *p, uint64_t lo, uint64_t hi, char *dst) const = 0;
  // Whether the front end may read the file's bytes itself and tell the engine
  // (pfio_read_done); the error names file `id` when not.
  virtual Status AcceptCallerReads(int32_t id, const FileHandle &file) const = 0;
};

// buffer = engine.
class ReorderBufferKind final : public BufferKind {
 public:
  pfio_buffer_kind id() const override { return PFIO_BUFFER_ENGINE; }
  uint64_t UnreadCap(uint64_t room) const override;
  Ranges PieceRanges(Ranges ranges, const FileHandle &file, const RequestShape &shape,
                     const Holds &held, uint64_t *gap_bytes) const override;
  uint64_t MaxPiece(const RequestShape &shape) const override { return shape.max_request; }
  bool by_range() const override { return false; }
  RequestJoin Join(const RequestShape &shape, const FileHandle &file) const override;
  bool Take(ReorderBuffer *buffer, Piece *p, bool urgent) const override;
  void Prepare(PendingRead *read, const RequestShape &shape) const override;
  Status Serve(Reader *reader, Piece *p, uint64_t lo, uint64_t hi, char *dst) const override;
  Status AcceptCallerReads(int32_t id, const FileHandle &file) const override;
};

// buffer = cache.
class PageCacheKind final : public BufferKind {
 public:
  // The most this kind holds advised and unconsumed, per context.
  static constexpr uint64_t kBatch = 64ull << 20;

  pfio_buffer_kind id() const override { return PFIO_BUFFER_CACHE; }
  uint64_t UnreadCap(uint64_t room) const override;
  Ranges PieceRanges(Ranges ranges, const FileHandle &file, const RequestShape &shape,
                     const Holds &held, uint64_t *gap_bytes) const override;
  uint64_t MaxPiece(const RequestShape &shape) const override;
  bool by_range() const override { return true; }
  RequestJoin Join(const RequestShape &shape, const FileHandle &file) const override;
  bool Take(ReorderBuffer *buffer, Piece *p, bool urgent) const override;
  void Prepare(PendingRead *read, const RequestShape &shape) const override;
  Status Serve(Reader *reader, Piece *p, uint64_t lo, uint64_t hi, char *dst) const override;
  Status AcceptCallerReads(int32_t id, const FileHandle &file) const override;
};

// The kind of a file as opened (FileHandle::buffer, which PageCacheBackend::OpenCached sets):
// the one place that tells the kinds apart. Both are stateless, one instance each.
const BufferKind &BufferKindOf(const FileHandle &file);

}  // namespace pfio
