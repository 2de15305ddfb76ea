#include "io/page_cache_backend.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <span>
#include <system_error>

#include "common/fs_type.h"
#include "io/file_open.h"
#include "io/sync_backend.h"
#include "io/willneed.h"

namespace pfio {

PageCacheBackend::PageCacheBackend(std::unique_ptr<Backend> target)
    : BackendWrapper(std::move(target)) {
  event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  const int inner = BackendWrapper::completion_fd();
  if (inner >= 0) {
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    if (epoll_fd_ >= 0 && (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, inner, &ev) != 0 ||
                           epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, event_fd_, &ev) != 0)) {
      close(epoll_fd_);  // then only the wrapped backend's completions wake a poll: see Reap
      epoll_fd_ = -1;
    }
  }
}

void PageCacheBackend::BeginStop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    ahead_counts_.dropped += ahead_.size();
    ahead_.clear();
  }
  wake_.notify_all();
  BackendWrapper::BeginStop();
}

PageCacheBackend::~PageCacheBackend() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    ahead_counts_.dropped += ahead_.size();
    ahead_.clear();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (epoll_fd_ >= 0) close(epoll_fd_);
  if (event_fd_ >= 0) close(event_fd_);
}

Status PageCacheBackend::OpenCached(const FileSource &source, FileHandle *out) {
  const std::string &path = source.path;
  if (epoll_fd_ < 0 && BackendWrapper::completion_fd() >= 0) {
    return Status::Io(Format("opening %s in the page cache: no epoll set for backend %s (%s)",
                             path.c_str(), name(), std::strerror(errno)));
  }
  std::string unused;
  FileHandle f;
  Status s = OpenFileHandle(source, /*want_direct=*/false, &f, &unused);
  if (!s.ok()) return s;
  const int advice_fd = OwnDescriptor(f.buffered_fd);
  if (advice_fd < 0) {
    const int e = errno;
    CloseFileHandle(&f);
    return Status::Io(
        Format("opening %s a second time (for page cache advice) failed: %s "
               "(errno %d)",
               path.c_str(), std::strerror(e), e));
  }
  f.direct_fd = advice_fd;
  f.o_direct = false;
  f.buffer = PFIO_BUFFER_CACHE;
  f.remote = OnRemoteStorage(f.buffered_fd);
  f.willneed_limit = WillneedLimit(advice_fd);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!StartThreadLocked()) {
      CloseFileHandle(&f);
      return Status::Io(
          Format("opening %s in the page cache: its advice thread could not start", path.c_str()));
    }
  }
  advising_.store(true, std::memory_order_release);
  *out = f;
  return Status::Ok();
}

bool PageCacheBackend::StartThreadLocked() {
  if (thread_.joinable()) return true;
  try {
    thread_ = ReusedThread([this] { Advise(); });
  } catch (const std::system_error &) {
    return false;
  }
  return true;
}

void PageCacheBackend::Close(FileHandle *file) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    const int fd = AdviceFd(*file);
    if (fd >= 0) {
      ahead_counts_.dropped += std::erase_if(ahead_, [fd](const Ahead &a) { return a.fd == fd; });
      idle_.wait(lock, [&] { return advising_fd_ != fd; });  // not closed under the advice
    }
  }
  if (Cached(*file)) {
    CloseFileHandle(file);
  } else {
    BackendWrapper::Close(file);
  }
}

void PageCacheBackend::Release(const FileHandle &file, uint64_t offset, uint64_t length) {
  (void)posix_fadvise(file.buffered_fd, static_cast<off_t>(offset), static_cast<off_t>(length),
                      POSIX_FADV_DONTNEED);
}

void PageCacheBackend::AdviseAhead(const FileHandle &file, uint64_t offset, uint64_t length) {
  const int fd = AdviceFd(file);
  if (length == 0 || fd < 0) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    ++ahead_counts_.ranges;
    ahead_counts_.bytes += length;
    if (ahead_.size() < kMaxAhead && StartThreadLocked()) {
      ahead_.push_back({fd, offset, length, file.willneed_limit});
      wake_.notify_one();
      return;
    }
    ++ahead_counts_.inline_;
  }
  const int rc = Willneed(fd, offset, length, file.willneed_limit);  // the caller's own
  if (rc != 0) {
    std::lock_guard<std::mutex> lock(mu_);
    ++failed_;
  }
}

uint64_t PageCacheBackend::advice_failed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failed_;
}

AheadCounts PageCacheBackend::ahead_counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ahead_counts_;
}

Status PageCacheBackend::Submit(IoRequest *req) {
  if (!Cached(*req->file)) return BackendWrapper::Submit(req);
  {
    std::lock_guard<std::mutex> lock(mu_);
    queued_.push_back(req);
  }
  wake_.notify_one();
  return Status::Ok();
}

void PageCacheBackend::Reap(std::vector<IoRequest *> *done) {
  BackendWrapper::Reap(done);
  if (!advising_.load(std::memory_order_acquire)) return;  // no file of the page-cache kind yet
  uint64_t count;
  ssize_t r = read(event_fd_, &count, sizeof count);  // re-armed by the next completion
  (void)r;
  std::lock_guard<std::mutex> lock(mu_);
  done->insert(done->end(), finished_.begin(), finished_.end());
  finished_.clear();
}

void PageCacheBackend::Advise() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || !queued_.empty() || !ahead_.empty(); });
    if (queued_.empty() && (stop_ || ahead_.empty())) return;  // stopping: AdviseAhead's dropped
    if (queued_.empty()) {
      const Ahead a = ahead_.front();
      ahead_.pop_front();
      advising_fd_ = a.fd;
      lock.unlock();
      const int rc = Willneed(a.fd, a.offset, a.length, a.limit);
      lock.lock();
      if (rc != 0) ++failed_;
      advising_fd_ = -1;
      idle_.notify_all();
      continue;
    }
    IoRequest *req = queued_.front();
    queued_.pop_front();
    lock.unlock();
    const int rc = AdviseWillneed(req);
    lock.lock();
    FinishLocked(req, rc);
  }
}

int PageCacheBackend::AdviseWillneed(IoRequest *req) {
  req->result = static_cast<int64_t>(req->length);  // advice lands whatever the kernel says
  return Willneed(req->file->direct_fd, req->offset, req->length, req->file->willneed_limit);
}

void PageCacheBackend::FinishLocked(IoRequest *req, int rc) {
  if (rc != 0) ++failed_;
  // One signal per batch: Reap reads the eventfd before it takes the lock and drains, so a
  // list that was not empty here has a signal posted that its drain has yet to follow.
  if (finished_.empty()) SignalEventFd(event_fd_);
  finished_.push_back(req);
}

Status PageCacheBackend::ReadDirectV(const FileHandle &file, std::span<const iovec> iov,
                                     uint64_t offset, uint64_t *nread) {
  if (Cached(file)) return Backend::ReadDirectV(file, iov, offset, nread);
  return BackendWrapper::ReadDirectV(file, iov, offset, nread);
}

Status PageCacheBackend::CurrentSize(const FileHandle &file, uint64_t *size) {
  if (Cached(file)) return Backend::CurrentSize(file, size);
  return BackendWrapper::CurrentSize(file, size);
}

Status PageCacheBackend::Version(const FileHandle &file, FileVersion *out) {
  if (Cached(file)) return Backend::Version(file, out);
  return BackendWrapper::Version(file, out);
}

Status PageCacheBackend::Stage(const FileHandle &file, uint64_t offset, uint64_t length,
                               pfio_stage kind) {
  if (Cached(file)) return Status::Ok();
  return BackendWrapper::Stage(file, offset, length, kind);
}

}  // namespace pfio
