// Backend: the only seam between pfio and file descriptors (like LevelDB's Env). Slim on
// purpose: open, close, submit, reap, direct read, stage. What is known about the device and the
// simulator's clock sit behind their own interfaces (device(), virtual_clock()). Test doubles
// derive from BackendWrapper (io/backend_wrapper.h), which forwards every call.
//
// A backend opens files, runs asynchronous vectored reads, and does direct (synchronous) reads for
// data that was not prefetched. Completion is signalled through completion_fd(), a descriptor
// that becomes readable when Reap has something, so one poll(2) with a timeout can wait on it
// and on the engine's own wake-up descriptor: every wait stays bounded. Submit and Reap are called
// from one thread; ReadDirect may be called from any.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/modes.h"
#include "common/status.h"
#include "io/device_model.h"
#include "io/virtual_clock.h"

namespace pfio {

// The file an Open is for: its path, and the descriptor a front end already opened it with (-1:
// none). Every descriptor pfio holds for the file is reopened from the first one (the front
// end's, else pfio's own open of the path), never from the path again, so a file renamed over
// the path between two opens is never read through one handle (docs/reliability.md, "One open
// per file"). The path names the file in messages and for its file system's facts.
struct FileSource {
  FileSource(std::string p, int descriptor = -1) : path(std::move(p)), fd(descriptor) {}
  FileSource(const char *p) : path(p) {}
  std::string path;
  int fd = -1;
};

struct FileHandle {
  std::string path;
  int direct_fd = -1;    // for prefetch reads (O_DIRECT where the backend uses it)
  int buffered_fd = -1;  // for direct reads of arbitrary ranges
  uint64_t size = 0;
  bool o_direct = false;
  bool on_lustre = false;  // Lustre's advice ioctl (stage = ladvise) is issued only then
  bool remote = false;     // on network or user-space storage (OnRemoteStorage): another clock
  // Where its prefetched bytes are held: the reorder buffer (read with the backend's reads) or
  // the page cache (advised; io/page_cache_backend.h).
  pfio_buffer_kind buffer = PFIO_BUFFER_ENGINE;
  uint64_t willneed_limit = 0;  // the page-cache kind: the most one WILLNEED reads (willneed.h)
};

// What says whether a file changed on disk: its size and its modification and status-change
// times (a copy that restores the old mtime still moves ctime). Both times come from a clock
// that ticks coarsely (the kernel's, 1-10 ms; a file server's, which may be skewed), so a change
// in the same tick as the look leaves them equal: a version taken within kRacyWindow of its own
// times is `racy` and never vouches for the file (git's "racily clean" entries have the same
// cure).
struct FileVersion {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  bool racy = false;
  // True when `now`, taken later, shows the file as it was when this version was taken.
  bool Vouches(const FileVersion &now) const {
    return !racy && size == now.size && mtime_ns == now.mtime_ns && ctime_ns == now.ctime_ns;
  }
};
// How close to its own change times a version is racy: local file systems with fine times,
// remote ones (whose times come from the server's clock), and file systems that keep whole
// seconds (a change stamped with the second it began in; FAT's 2 s, and a tick's margin).
constexpr int64_t kRacyWindowLocalNs = 100'000'000;
constexpr int64_t kRacyWindowRemoteNs = 2'000'000'000;
constexpr int64_t kRacyWindowCoarseNs = 2'100'000'000;

struct IoRequest {
  const FileHandle *file = nullptr;
  uint64_t offset = 0;
  uint64_t length = 0;  // sum of iov lengths
  std::vector<iovec> iov;
  int64_t result = 0;     // bytes read, or -errno
  bool buffered = false;  // read through the page cache (its block was staged there)
  // The shared sink infill gaps are read into (iov entries with this base; their bytes are never
  // used). A backend whose reads run on several threads of its own may point those entries at a
  // sink per thread instead, so that two of its threads never write the same memory.
  char *discard = nullptr;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char *name() const = 0;

  // Opens the source's file read-only. For O_DIRECT backends, a file system that refuses O_DIRECT
  // is PFIO_EIO naming the path, unless the backend was built to fall back.
  virtual Status Open(const FileSource &source, FileHandle *out) = 0;
  virtual void Close(FileHandle *file) = 0;
  // The context is shutting down with nothing in flight and submits no more: threads of the
  // backend's own may start leaving now, beside the context's (its destruction still waits for
  // them), so that a context's end waits for them once, not one after another.
  virtual void BeginStop() {}

  // Starts a read of req->iov at req->offset. On error nothing was started.
  virtual Status Submit(IoRequest *req) = 0;

  // Appends finished requests (result set) to *done without blocking.
  virtual void Reap(std::vector<IoRequest *> *done) = 0;

  virtual int completion_fd() const = 0;

  // Reads [offset, offset + the buffers' length) into `iov` in order, synchronously; *nread is
  // short only at end of file. Real backends: one preadv on the buffered descriptor (its kernel
  // readahead sees one read), retried until done.
  virtual Status ReadDirectV(const FileHandle &file, std::span<const iovec> iov, uint64_t offset,
                             uint64_t *nread);
  // The same into one buffer.
  Status ReadDirect(const FileHandle &file, void *buf, uint64_t offset, uint64_t length,
                    uint64_t *nread) {
    const iovec one{buf, static_cast<size_t>(length)};
    return ReadDirectV(file, std::span<const iovec>(&one, 1), offset, nread);
  }

  // Staging (Barve's LoadIntoDiskBuffer): asks the storage to bring [offset, offset+length)
  // close to the host without transferring it, so that its read, issued later, is short.
  // Real backends implement POKE (a 4 KiB O_DIRECT read just before the block), PAGECACHE
  // (readahead(2); the read must then be `buffered`) and LADVISE (only with Lustre; otherwise
  // an error naming the build); DEVICE is the simulator's. Never changes any data.
  virtual Status Stage(const FileHandle &file, uint64_t offset, uint64_t length, pfio_stage kind);

  // The file's size now (it may have changed since Open: written, truncated, extended). The
  // default asks the buffered descriptor (fstat); nothing is closed or reopened, so POSIX locks
  // the process holds on the file stay held.
  virtual Status CurrentSize(const FileHandle &file, uint64_t *size);
  // The file's size and modification time now (fstat of the buffered descriptor by default).
  virtual Status Version(const FileHandle &file, FileVersion *out);

  // What the scheduler may know of the device (io/device_model.h); the default knows nothing.
  virtual const DeviceModel &device() const;
  // The virtual clock of a simulated device (io/virtual_clock.h); null for real devices.
  virtual VirtualClock *virtual_clock() { return nullptr; }
};

const char *StageName(pfio_stage kind);

// Which backend the config asked for, with the aio -> sync fallback for AUTO.
Status MakeBackend(pfio_backend kind, uint32_t queue_depth, std::unique_ptr<Backend> *out);

}  // namespace pfio
