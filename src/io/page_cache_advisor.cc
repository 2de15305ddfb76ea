#include "io/page_cache_advisor.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "io/file_open.h"
#include "io/willneed.h"

namespace pfio {

PageCacheAdvisor::PageCacheAdvisor(int fd)
    : own_fd_(OwnDescriptor(fd)),
      limit_(own_fd_ >= 0 ? WillneedLimit(own_fd_) : kMinWillneedLimit),
      owner_(getpid()),
      shared_(std::make_unique<Shared>()) {
  if (own_fd_ >= 0) shared_->thread = std::thread([this] { Run(); });
}

PageCacheAdvisor::~PageCacheAdvisor() {
  if (getpid() != owner_) {
    (void)shared_.release();  // a forked child: the parent's thread is not here (see Shared)
  } else if (shared_->thread.joinable()) {
    {
      std::lock_guard<std::mutex> lock(shared_->mu);
      shared_->stop = true;
      shared_->counts.dropped += shared_->queue.size();
      shared_->queue.clear();
    }
    shared_->wake.notify_all();
    shared_->thread.join();
  }
  if (own_fd_ >= 0) close(own_fd_);
}

void PageCacheAdvisor::Advise(const Range &r) {
  const int rc = pfio::Willneed(own_fd_, r.offset, r.length, limit_);
  std::lock_guard<std::mutex> lock(shared_->mu);
  ++shared_->counts.advised;
  shared_->counts.bytes += r.length;
  if (rc != 0) ++shared_->counts.failed;
}

void PageCacheAdvisor::Willneed(uint64_t offset, uint64_t length) {
  if (length == 0 || !ok()) return;
  const Range r{offset, length};
  bool here = getpid() != owner_;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    if (!here && shared_->queue.size() >= kMaxQueued) here = true;
    if (here) {
      ++shared_->counts.inline_;
    } else {
      shared_->queue.push_back(r);
      ++shared_->counts.queued;
      shared_->counts.max_waiting =
          std::max<uint64_t>(shared_->counts.max_waiting, shared_->queue.size());
    }
  }
  if (here)
    Advise(r);
  else
    shared_->wake.notify_one();
}

void PageCacheAdvisor::Run() {
  Shared &s = *shared_;
  std::unique_lock<std::mutex> lock(s.mu);
  for (;;) {
    s.wake.wait(lock, [&s] { return s.stop || !s.queue.empty(); });
    if (s.stop) break;
    const Range r = s.queue.front();
    s.queue.pop_front();
    s.busy = true;
    lock.unlock();
    Advise(r);
    lock.lock();
    s.busy = false;
    if (s.queue.empty()) s.idle.notify_all();
  }
  s.idle.notify_all();
}

bool PageCacheAdvisor::Drain(unsigned timeout_ms) {
  Shared &s = *shared_;
  std::unique_lock<std::mutex> lock(s.mu);
  if (getpid() != owner_) return true;  // a forked child advises inline: nothing waits
  return s.idle.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                         [&s] { return s.stop || (s.queue.empty() && !s.busy); });
}

AdvisorCounts PageCacheAdvisor::Counts() const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  return shared_->counts;
}

}  // namespace pfio
