// ReadPath: one application read, start to end. Bytes the plan expected are served as the
// file's buffer kind serves a piece (BufferKind::Serve: copied from the reorder buffer, waiting,
// bounded, for a piece in flight, after asking for its read to go first; or read from the file
// for the page-cache kind); a read elsewhere first looks a little ahead in the plan (resync), else
// is served directly from the file, as are the bytes of a failed or short prefetch, extents larger
// than the whole budget and sequential runs left to the kernel's readahead. Never returns bytes it
// did not read: a short file or a failed direct read is an error naming the file. Bytes read
// from the file itself for the page-cache kind and for passthrough runs are gathered while they
// continue each other in the file and read together (one preadv, engine/file_run.h) before the
// call returns.
//
// Guarded by the context's mutex: `lock` holds it on entry and on return; it is released only
// around direct reads (the I/O thread keeps landing reads meanwhile) and inside waits.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "buffer/reorder_buffer.h"
#include "common/status.h"
#include "engine/buffer_kind.h"
#include "engine/config.h"
#include "engine/file_run.h"
#include "engine/file_table.h"
#include "engine/window.h"
#include "io/backend.h"
#include "pfio/pfio.h"

namespace pfio {

class ReadPath {
 public:
  using Lock = std::unique_lock<std::mutex>;

  // What a read needs from the rest of the context (called with the lock held).
  class Host {
   public:
    virtual ~Host() = default;
    // Plans the window further (force: even while reads of the last window are queued).
    virtual void Refill(bool force) = 0;
    // The front plan entry was read; `stalled` seconds of the time since the last one were
    // spent waiting for prefetches (not the application's own compute).
    virtual void ConsumeFront(double stalled) = 0;
    // The application waits for this queued read: it goes next on its target.
    virtual void Hurry(PendingRead *read) = 0;
    // Every queued read is needed now (a batch window), and whether none is left to land.
    virtual void HurryAll() = 0;
    virtual bool BatchLanded() const = 0;
    // The context's one bounded wait (timeout_ms).
    virtual bool WaitUntil(Lock &lock, const std::function<bool()> &done) = 0;
    // "N reads in flight, M queued, X of Y budget in use", for timeout messages.
    virtual std::string Describe() const = 0;
    // Seconds (virtual time on the simulator).
    virtual double Now() const = 0;
  };

  ReadPath(const Config *config, FileTable *files, Window *window, ReorderBuffer *buffer,
           Backend *backend, pfio_stats *stats, Host *host)
      : cfg_(*config),
        files_(files),
        window_(window),
        buffer_(buffer),
        backend_(backend),
        stats_(stats),
        host_(host) {}

  // pfio_read / pfio_readv.
  Status Read(Lock &lock, int32_t id, void *buf, uint64_t offset, uint64_t length, uint64_t *nread);
  Status ReadV(Lock &lock, int32_t id, const pfio_read_piece *pieces, size_t count,
               uint64_t *nread);

  // pfio_read_done: [offset, offset + length) of a file of the page-cache kind was read by the
  // caller itself (from the page cache, through a descriptor of its own): the plan moves as
  // Read would move it, and nothing is read. *nread: the bytes of the range inside the file.
  Status ReadDone(Lock &lock, int32_t id, uint64_t offset, uint64_t length, uint64_t *nread);

  // pfio_ignore / pfio_unignore: reads in between do not move through the plan.
  void Ignore() { ++ignore_depth_; }
  bool ignoring() const { return ignore_depth_ > 0; }
  Status Unignore();

 private:
  // One read of Read/ReadV, leaving the last run of the file it read from to *run. A run is the
  // call's own (a local of Read/ReadV): another thread's call may go on while this one has the
  // lock released, and must neither join nor drop it. run == nullptr: ReadDone's walk (no bytes
  // are read and the lock is never released).
  // ReadDone's part of CopyOut: the entry's pieces were read from (page-cache kind).
  void CallerRead(const Window::Entry &entry, uint64_t pos, uint64_t n, bool *all_buffered);
  Status ReadOne(Lock &lock, int32_t id, void *buf, uint64_t offset, uint64_t length,
                 uint64_t *nread, FileRun *run);
  // Bytes [pos, pos + n) of the file into dst with the run they continue, or a new one (the
  // last run read first).
  Status Defer(Lock &lock, int32_t id, char *dst, uint64_t pos, uint64_t n, bool prefetched,
               FileRun *run);
  // Reads *run (lock released) and empties it; short is an error (the file shrank).
  Status FlushRun(Lock &lock, FileRun *run);
  Status CopyOut(Lock &lock, const Window::Entry &entry, int32_t id, uint64_t pos, uint64_t n,
                 char *dst, bool *all_buffered, FileRun *run);
  // What the file's buffer kind serves a piece with, for one CopyOut.
  class PieceReads final : public BufferKind::Reader {
   public:
    PieceReads(ReadPath *path, Lock &lock, int32_t id, bool *all_buffered, FileRun *run)
        : path_(path), lock_(lock), id_(id), all_buffered_(all_buffered), run_(run) {}
    Status ReadFromFile(char *dst, uint64_t pos, uint64_t n, bool waits) override;
    Status WaitLanded(Piece *p) override;
    Status ReadAgain(const Piece &p, uint64_t lo, uint64_t hi, char *dst) override;
    void Served(Piece *p) override;

   private:
    ReadPath *path_;
    Lock &lock_;
    int32_t id_;
    bool *all_buffered_;
    FileRun *run_;
  };
  Status WaitSettled(Lock &lock, Piece *p);
  Status WaitBatchLanded(Lock &lock);
  // The lock is released around the read.
  Status ReadDirect(Lock &lock, int32_t id, char *dst, uint64_t pos, uint64_t n, uint64_t *got);
  // A direct read of bytes inside the file as opened: short is an error (the file shrank).
  Status ReadDirectAll(Lock &lock, int32_t id, char *dst, uint64_t pos, uint64_t n);
  // A direct read came back short: the file shrank. Marks it changed (the context revalidates
  // it before the next read) and returns the error naming it.
  Status ShortFile(int32_t id, uint64_t pos, uint64_t got, uint64_t wanted);

  const Config &cfg_;
  FileTable *files_;
  Window *window_;
  ReorderBuffer *buffer_;
  Backend *backend_;
  pfio_stats *stats_;
  Host *host_;
  int ignore_depth_ = 0;
  double stall_since_consume_ = 0;  // seconds waited for prefetches since the last consume
};

}  // namespace pfio
