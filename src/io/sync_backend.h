// SyncBackend: a pool of threads doing preadv through the page cache. For file systems that
// refuse O_DIRECT (tmpfs, some FUSE and network file systems) and for PFIO_BACKEND_SYNC.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "io/backend.h"

namespace pfio {

// Adds one to an eventfd counter (wakes a poll on it).
void SignalEventFd(int fd);

class SyncBackend : public Backend {
 public:
  // notify_fd: an eventfd to signal on completion; -1 makes the backend create its own.
  SyncBackend(unsigned threads, int notify_fd = -1);
  ~SyncBackend() override;

  const char *name() const override { return "sync"; }
  Status Open(const FileSource &source, FileHandle *out) override;
  void Close(FileHandle *file) override;
  Status Submit(IoRequest *req) override;
  void Reap(std::vector<IoRequest *> *done) override;
  int completion_fd() const override { return event_fd_; }

 private:
  void Worker();

  int event_fd_;
  bool own_fd_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<IoRequest *> todo_;
  std::vector<IoRequest *> finished_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace pfio
