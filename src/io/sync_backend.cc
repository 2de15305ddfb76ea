#include "io/sync_backend.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include "io/file_open.h"

namespace pfio {

void SignalEventFd(int fd) {
  uint64_t one = 1;
  ssize_t r = write(fd, &one, sizeof one);
  (void)r;  // a full counter still wakes the reader
}

SyncBackend::SyncBackend(unsigned threads, int notify_fd)
    : event_fd_(notify_fd >= 0 ? notify_fd : eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      own_fd_(notify_fd < 0) {
  if (threads == 0) threads = 1;
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { Worker(); });
}

SyncBackend::~SyncBackend() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto &t : threads_) t.join();
  if (own_fd_) close(event_fd_);
}

Status SyncBackend::Open(const FileSource &source, FileHandle *out) {
  std::string unused;
  return OpenFileHandle(source, false, out, &unused);
}

void SyncBackend::Close(FileHandle *file) {
  CloseFileHandle(file);
}

Status SyncBackend::Submit(IoRequest *req) {
  {
    std::lock_guard<std::mutex> l(mu_);
    todo_.push_back(req);
  }
  cv_.notify_one();
  return Status::Ok();
}

void SyncBackend::Reap(std::vector<IoRequest *> *done) {
  std::lock_guard<std::mutex> l(mu_);
  done->insert(done->end(), finished_.begin(), finished_.end());
  finished_.clear();
}

void SyncBackend::Worker() {
  std::vector<char> sink;  // this worker's own place for infill gap bytes
  std::vector<iovec> iov;
  for (;;) {
    IoRequest *req;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [this] { return stop_ || !todo_.empty(); });
      if (todo_.empty()) return;  // stopping with nothing left
      req = todo_.front();
      todo_.pop_front();
    }
    iov = req->iov;
    for (const iovec &v : iov)
      if (v.iov_base == req->discard && sink.size() < v.iov_len) sink.resize(v.iov_len);
    for (iovec &v : iov)
      if (req->discard != nullptr && v.iov_base == req->discard) v.iov_base = sink.data();
    req->result = PreadvFully(req->file->buffered_fd, req->offset, iov);
    {
      std::lock_guard<std::mutex> l(mu_);
      finished_.push_back(req);
    }
    SignalEventFd(event_fd_);
  }
}

}  // namespace pfio
