// PageCacheBackend: the engine's second buffer kind, the kernel's page cache, beside the reorder
// buffer that the wrapped backend fills with O_DIRECT reads.
//
// Contract. Wraps the context's backend and forwards every call for files it opened itself.
// OpenCached(path) opens a file of the page-cache kind (FileHandle::buffer = PFIO_BUFFER_CACHE):
// a buffered descriptor for the application's reads (buffered_fd) and a second open file
// description for advice (direct_fd: on a FUSE file, advice through the readers' own description
// waited for their reads; see io/page_cache_advisor.h). For such a file:
//   Submit    gives posix_fadvise(WILLNEED) for [offset, offset + length) (the kernel allocates
//             the pages and starts their reads) and completes the request with result = length:
//             the prefetch has "landed" in the page cache, whose pages a later read waits for
//             if their I/O is still running. On local files in the calling thread (the engine's
//             I/O thread: handing each request to another thread took tiles 39k futex calls a
//             run instead of 3k, 4 ranks on 2 cores), on remote ones (FUSE, network: advice may
//             wait for the transport) from the advice thread;
//   ReadDirectV, CurrentSize, Version: the buffered descriptor (Backend's own);
//   Stage     nothing (advice is its own staging);
//   Release   posix_fadvise(DONTNEED) of a range the plan no longer needs (Mowry's release), so
//             that what pfio advised and nobody consumed is what the page cache holds for it;
//   AdviseAhead  WILLNEED of a range outside the plan (runs left to the kernel's readahead,
//             which it would start only when the reader reaches them), from the advice thread.
// Advice is a hint: a refused advice is counted and still completes, because the bytes are
// always read from the file afterwards, never from anything the advice returned.
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
#include <string>
#include <thread>
#include <vector>

#include "io/backend_wrapper.h"

namespace pfio {

class PageCacheBackend : public BackendWrapper {
 public:
  explicit PageCacheBackend(std::unique_ptr<Backend> target);
  ~PageCacheBackend() override;

  // Opens `path` as a file of the page-cache kind; errors name the path (as Backend::Open).
  Status OpenCached(const std::string &path, FileHandle *out);
  // Drops the file's pages in [offset, offset + length) from the page cache.
  void Release(const FileHandle &file, uint64_t offset, uint64_t length);
  // Asks the kernel to start reading [offset, offset + length) of a file of the page-cache kind
  // soon: queued for the advice thread (the caller does not wait for the kernel's page
  // allocation), outside any request, the budget and the ranges remembered as advised; dropped
  // if the file closes first.
  void AdviseAhead(const FileHandle &file, uint64_t offset, uint64_t length);
  // Advice the kernel refused so far.
  uint64_t advice_failed() const;

  void Close(FileHandle *file) override;
  Status Submit(IoRequest *req) override;
  void Reap(std::vector<IoRequest *> *done) override;
  int completion_fd() const override { return epoll_fd_ >= 0 ? epoll_fd_ : event_fd_; }
  Status ReadDirectV(const FileHandle &file, const std::vector<iovec> &iov, uint64_t offset,
                     uint64_t *nread) override;
  Status CurrentSize(const FileHandle &file, uint64_t *size) override;
  Status Version(const FileHandle &file, FileVersion *out) override;
  Status Stage(const FileHandle &file, uint64_t offset, uint64_t length, pfio_stage kind) override;

 private:
  static bool Cached(const FileHandle &file) { return file.buffer == PFIO_BUFFER_CACHE; }
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
  bool stop_ = false;
  std::thread thread_;                 // started at the first OpenCached
  std::atomic<bool> advising_{false};  // since then
};

}  // namespace pfio
