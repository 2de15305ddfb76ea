// FileTable: the files open in a context. Gives ids (never reused), keeps each file's handle and
// its reads in flight, and checks file ids and plan extents against the files, naming the bad
// argument, its value and what is allowed.
//
// Guarded by the context's mutex: every method is called with it held.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "engine/buffer_kind.h"
#include "io/backend.h"
#include "pfio/pfio.h"
#include "plan/extent.h"

namespace pfio {

class FileTable {
 public:
  // Takes an opened handle and returns its id; the file's buffer kind is the handle's
  // (BufferKindOf).
  int32_t Add(const FileHandle &handle);
  // Closes the file's handle through `backend`; its id stays taken.
  void Close(int32_t id, Backend *backend);
  // Closes every open file (context shutdown).
  void CloseAll(Backend *backend);

  bool IsOpen(int32_t id) const;
  // The ids of the open files, in the order they opened: what a walk over the files visits, so
  // that a context kept from file to file does not walk every file it ever closed.
  const std::vector<int32_t> &open_ids() const { return open_; }
  // OK if `id` is open; else PFIO_EBADF naming `what` (e.g. "file", "extent 3: file").
  Status Check(int32_t id, const char *what) const;
  // Checks each of `extents` (open file, length > 0, inside the file) and, when `out` is not
  // null, copies them into *out. A count whose copy could not fit in memory is PFIO_ENOMEM
  // before anything is read.
  Status CheckExtents(const pfio_extent *extents, size_t count, std::vector<Extent> *out) const;

  // For an id that Check accepted.
  const FileHandle &handle(int32_t id) const { return files_[id]->handle; }
  const BufferKind &kind(int32_t id) const { return *files_[id]->kind; }
  uint64_t size(int32_t id) const { return files_[id]->handle.size; }
  // The file's size changed on disk (Context::RefreshFile read it again).
  void SetSize(int32_t id, uint64_t size) { files_[id]->handle.size = size; }
  // The most one WILLNEED of the file reads (io/willneed.h), found at its first advice.
  void SetWillneedLimit(int32_t id, uint64_t limit) { files_[id]->handle.willneed_limit = limit; }
  // The size and mtime last seen (at open, refresh or revalidation).
  const FileVersion &version(int32_t id) const { return files_[id]->version; }
  void SetVersion(int32_t id, const FileVersion &v) { files_[id]->version = v; }
  // A read saw the file change (a direct read came back short): revalidate it before the next.
  void MarkChanged(int32_t id) { files_[id]->changed = true; }
  bool changed(int32_t id) const { return files_[id]->changed; }
  void ClearChanged(int32_t id) { files_[id]->changed = false; }
  size_t count() const { return files_.size(); }
  // id -> handle of every open file, and how each file's pieces join into reads, its kind's
  // rule (what BuildRequests needs).
  const std::unordered_map<int32_t, const FileHandle *> &handles() const { return handles_; }
  JoinFor Joins(const RequestShape &shape) const {
    return [this, &shape](int32_t id) { return kind(id).Join(shape, handle(id)); };
  }
  bool empty() const { return files_.empty(); }

  // Where the last read of a run left to readahead ended on the file's buffered description
  // (ReadPath::FlushRun primes the kernel's readahead of a run that does not continue it).
  uint64_t stream_end(int32_t id) const { return files_[id]->stream_end; }
  void SetStreamEnd(int32_t id, uint64_t end) { files_[id]->stream_end = end; }

  // Reads in flight per file (a file closes only when it has none).
  void ReadIssued(int32_t id) { ++files_[id]->in_flight; }
  void ReadLanded(int32_t id) { --files_[id]->in_flight; }
  uint32_t in_flight(int32_t id) const { return files_[id]->in_flight; }

 private:
  struct File {
    FileHandle handle;
    const BufferKind *kind = nullptr;
    bool open = false;
    uint32_t in_flight = 0;
    FileVersion version;
    bool changed = false;
    uint64_t stream_end = UINT64_MAX;
  };
  std::vector<std::unique_ptr<File>> files_;
  std::vector<int32_t> open_;
  std::unordered_map<int32_t, const FileHandle *> handles_;
};

}  // namespace pfio
