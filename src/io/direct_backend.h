// DirectBackend: what the asynchronous O_DIRECT backends (aio, uring) share. Files are opened
// with O_DIRECT; with `fallback` set (PFIO_BACKEND_AUTO), a file whose file system refuses it is
// read by an internal SyncBackend through the page cache instead (said once on stderr), and
// without it that is an error. Reads of such files and of blocks staged in the page cache go to
// the SyncBackend; the rest to the subclass's SubmitDirect. Completions of both are signalled on
// one eventfd, so the I/O thread polls one descriptor.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "io/file_open.h"
#include "io/sync_backend.h"

namespace pfio {

class DirectBackend : public Backend {
 public:
  ~DirectBackend() override;

  Status Open(const FileSource &source, FileHandle *out) override;
  void Close(FileHandle *file) override;
  Status Submit(IoRequest *req) override;
  void Reap(std::vector<IoRequest *> *done) override;
  int completion_fd() const override { return event_fd_; }
  // Whether some file was opened without O_DIRECT (read by the SyncBackend): name() then says
  // "<name>+sync", so the stats tell the truth about how the context reads.
  bool fell_back() const { return fell_back_; }

 protected:
  // Takes event_fd (an eventfd the subclass's completions signal).
  DirectBackend(int event_fd, uint32_t depth, bool fallback, DirectOpener opener)
      : event_fd_(event_fd), depth_(depth), fallback_(fallback), opener_(std::move(opener)) {}
  // Starts an O_DIRECT read of req (its file has a direct descriptor).
  virtual Status SubmitDirect(IoRequest *req) = 0;
  // Appends finished direct reads to *done without blocking.
  virtual void ReapDirect(std::vector<IoRequest *> *done) = 0;
  // The error for a submission that failed with `err` (errno), naming the read and the file.
  static Status SubmitFailed(const char *call, const IoRequest &req, int err);
  // How many times a full submission queue (EAGAIN) is retried, kBusyRetryUs apart, before the
  // read fails (and is read directly by the reader): bounded, so a queue that never drains
  // cannot hold the I/O thread (and with it the readers and shutdown). After one such failure
  // the backend is `congested`: submissions are tried once, without waiting, until one is taken.
  static constexpr int kBusyRetries = 1000;  // x 100 us = 100 ms
  static constexpr int kBusyRetryUs = 100;
  int BusyRetries() const { return congested_ ? 0 : kBusyRetries; }
  // After a submission: taken (clears congestion) or refused after BusyRetries (sets it).
  void SubmitTaken() { congested_ = false; }
  void SubmitRefused() { congested_ = true; }

  int event_fd_;
  uint32_t depth_;

 private:
  SyncBackend *Sync();

  bool fallback_;
  DirectOpener opener_;
  std::unique_ptr<SyncBackend> sync_;  // created on first need
  std::atomic<bool> fell_back_{false};
  bool congested_ = false;  // Submit runs on one thread only
};

}  // namespace pfio
