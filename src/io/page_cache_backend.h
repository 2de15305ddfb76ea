// PageCacheBackend: the engine's second buffer kind, the kernel's page cache, beside the reorder
// buffer that the wrapped backend fills with O_DIRECT reads.
//
// Contract. Wraps the context's backend and forwards every call for files it opened itself.
// OpenCached(path) opens a file of the page-cache kind (FileHandle::buffer = PFIO_BUFFER_CACHE):
// a buffered descriptor for the application's reads (buffered_fd) and a second open file
// description for advice (direct_fd: on a FUSE file, advice through the readers' own description
// waited for their reads; AdviseAhead below has the measurement). For such a file:
//   Submit    gives posix_fadvise(WILLNEED) for [offset, offset + length) (the kernel allocates
//             the pages and starts their reads) and completes the request with result = length:
//             the prefetch has "landed" in the page cache, whose pages a later read waits for
//             if their I/O is still running. From the advice thread, for every file: the
//             engine's I/O thread only hands the request over (docs/measurements.md, "Advice
//             from the advice thread").
//   ReadDirectV, CurrentSize, Version: the buffered descriptor (Backend's own);
//   Stage     nothing (advice is its own staging);
//   Release   posix_fadvise(DONTNEED) of a range the plan no longer needs (Mowry's release), so
//             that what pfio advised and nobody consumed is what the page cache holds for it;
//   AdviseAhead  WILLNEED of a range outside the plan (runs left to the kernel's readahead,
//             which it would start only when the reader reaches them; a front end's own reads
//             through the page cache, as the HDF5 driver's of small chunks), from the advice
//             thread, for a file of either kind: on the page-cache kind's advice description, on
//             the reorder-buffer kind's buffered one (neither is the application's: on a FUSE
//             file, advice through the readers' own description waited for their reads, 1,024
//             8 KiB ranges advised while another thread read them 1.9-2.0 s through a dup() and
//             0.10-0.11 s through a second open()). At most kMaxAhead ranges wait; the caller
//             advises a range itself when that many do (counted in AheadCounts::inline_).
// Advice is a hint: a refused advice is counted and still completes, because the bytes are
// always read from the file afterwards, never from anything the advice returned.
// Why a thread: the kernel does a WILLNEED's work in the calling thread, allocating the pages and
// submitting their reads before it returns, time in which the caller would not read what is
// cached already (docs/measurements.md, "Advice from the advice thread").
// completion_fd() is readable when either the wrapped backend or this one has completions (an
// epoll set of both; one signal per batch of advice); Reap returns both. Submit and Reap from one
// thread, as for every backend; Release and OpenCached under the caller's lock.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "common/reused_thread.h"
#include "io/backend_wrapper.h"

namespace pfio {

// What AdviseAhead did with the ranges it was given.
struct AheadCounts {
  uint64_t ranges = 0;   // ranges given (length > 0)
  uint64_t inline_ = 0;  // of those, advised by the caller: kMaxAhead waited already
  uint64_t dropped = 0;  // still waiting when their file closed or the backend stopped
  uint64_t bytes = 0;    // bytes of the ranges given
};

class PageCacheBackend : public BackendWrapper {
 public:
  static constexpr size_t kMaxAhead = 4096;

  explicit PageCacheBackend(std::unique_ptr<Backend> target);
  ~PageCacheBackend() override;

  // Opens `path` as a file of the page-cache kind; errors name the path (as Backend::Open).
  Status OpenCached(const FileSource &source, FileHandle *out);
  // Drops the file's pages in [offset, offset + length) from the page cache.
  void Release(const FileHandle &file, uint64_t offset, uint64_t length);
  // Asks the kernel to start reading [offset, offset + length) of the file soon: queued for the
  // advice thread (the caller does not wait for the kernel's page allocation), outside any
  // request, the budget and the ranges remembered as advised; dropped if the file closes first.
  // file.willneed_limit sizes the pieces (0: the kernel's default readahead).
  void AdviseAhead(const FileHandle &file, uint64_t offset, uint64_t length);
  // Advice the kernel refused so far (requests and AdviseAhead's).
  uint64_t advice_failed() const;
  AheadCounts ahead_counts() const;

  void Close(FileHandle *file) override;
  void BeginStop() override;
  Status Submit(IoRequest *req) override;
  void Reap(std::vector<IoRequest *> *done) override;
  int completion_fd() const override { return epoll_fd_ >= 0 ? epoll_fd_ : event_fd_; }
  Status ReadDirectV(const FileHandle &file, std::span<const iovec> iov, uint64_t offset,
                     uint64_t *nread) override;
  Status CurrentSize(const FileHandle &file, uint64_t *size) override;
  Status Version(const FileHandle &file, FileVersion *out) override;
  Status Stage(const FileHandle &file, uint64_t offset, uint64_t length, pfio_stage kind) override;

 private:
  static bool Cached(const FileHandle &file) { return file.buffer == PFIO_BUFFER_CACHE; }
  // The description AdviseAhead advises on: not the one the application reads through.
  static int AdviceFd(const FileHandle &file) {
    return Cached(file) ? file.direct_fd : file.buffered_fd;
  }
  // Starts the advice thread if it is not running (mu_ held); false if it could not start.
  bool StartThreadLocked();
  void Advise();  // the advice thread
  // posix_fadvise(WILLNEED) of the request's range (its result set to its length); the rc.
  static int AdviseWillneed(IoRequest *req);
  // The request completed (mu_ held): counted if refused, handed to Reap.
  void FinishLocked(IoRequest *req, int rc);

  int event_fd_ = -1;  // the advice thread's completions
  int epoll_fd_ = -1;  // event_fd_ and the wrapped backend's completion descriptor

  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::deque<IoRequest *> queued_;
  struct Ahead {
    int fd;
    uint64_t offset, length, limit;
  };
  std::deque<Ahead> ahead_;  // AdviseAhead's, after the queued requests
  int advising_fd_ = -1;     // the descriptor the thread advises on now (AdviseAhead's)
  std::condition_variable idle_;
  std::vector<IoRequest *> finished_;
  uint64_t failed_ = 0;
  AheadCounts ahead_counts_;
  bool stop_ = false;
  ReusedThread thread_;                // started at the first OpenCached or AdviseAhead
  std::atomic<bool> advising_{false};  // since then
};

}  // namespace pfio
