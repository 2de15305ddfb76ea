#include "engine/io_driver.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "common/reused_thread.h"
#include "io/sync_backend.h"

namespace pfio {

namespace {

using Clock = std::chrono::steady_clock;
// The I/O thread's poll timeout: the longest it sleeps without looking at the stop flag.
constexpr int kIoPollMs = 100;
// While it submits a batch, the I/O thread lands what completed at most this long ago: behind
// FUSE each io_submit of an O_DIRECT read can take milliseconds, and a batch of them held the
// reads that landed meanwhile from their readers (docs/limits.md, "The latency-bound test bed").
constexpr auto kLandWhileSubmitting = std::chrono::microseconds(100);

class ThreadedIoDriver : public IoDriver {
 public:
  ThreadedIoDriver(Backend *backend, std::mutex *mu, Hooks hooks)
      : IoDriver(backend, std::move(hooks)), mu_(mu) {
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    thread_ = ReusedThread([this] { Loop(); });
  }
  ~ThreadedIoDriver() override {
    if (thread_.joinable()) {
      Lock lock(*mu_);
      Stop(lock, false);
    }
    close(wake_fd_);
  }

  void Wake() override { SignalEventFd(wake_fd_); }

  void Stop(Lock &lock, bool abandon) override {
    stopped_ = true;
    abandoned_ = abandon;
    if (!thread_.joinable()) return;
    lock.unlock();
    Wake();
    thread_.join();
    lock.lock();
  }

 protected:
  bool WaitStep(Lock &lock, Clock::time_point deadline) override {
    return landed_.wait_until(lock, deadline) != std::cv_status::timeout;
  }

 private:
  void Loop() {
    std::vector<IoRequest *> submit;
    std::vector<StageCall> stage;
    std::vector<IoRequest *> done;
    for (;;) {
      {
        Lock lock(*mu_);
        if (stopped_ && (hooks_.in_flight() == 0 || abandoned_)) return;
        if (!stopped_) hooks_.issue(&submit, &stage);
      }
      // Outside the lock: the application keeps reading from the buffer meanwhile.
      Clock::time_point landed_at = Clock::now();
      SubmitBatch(
          submit, stage,
          [this](IoRequest *req) {
            Lock lock(*mu_);
            hooks_.complete(req);
            landed_.notify_all();
          },
          [this](const Status &s) {
            Lock lock(*mu_);
            hooks_.stage_failed(s);
          },
          [&] {
            const Clock::time_point now = Clock::now();
            if (now - landed_at < kLandWhileSubmitting) return;
            landed_at = now;
            Land(&done);
          });
      submit.clear();
      stage.clear();
      pollfd fds[2] = {{backend_->completion_fd(), POLLIN, 0}, {wake_fd_, POLLIN, 0}};
      poll(fds, 2, kIoPollMs);
      if (fds[1].revents & POLLIN) {
        uint64_t v;
        ssize_t r = read(wake_fd_, &v, sizeof v);
        (void)r;
      }
      Land(&done);
    }
  }

  // Hands what the backend completed to the hooks, and wakes the readers waiting for it.
  void Land(std::vector<IoRequest *> *done) {
    done->clear();
    backend_->Reap(done);
    if (done->empty()) return;
    Lock lock(*mu_);
    for (IoRequest *r : *done) hooks_.complete(r);
    landed_.notify_all();
  }

  std::mutex *mu_;
  std::condition_variable landed_;
  int wake_fd_ = -1;
  bool abandoned_ = false;
  ReusedThread thread_;
};

class VirtualIoDriver : public IoDriver {
 public:
  VirtualIoDriver(Backend *backend, std::mutex *mu, Hooks hooks)
      : IoDriver(backend, std::move(hooks)), clock_(backend->virtual_clock()) {
    // Completions that land while the application computes (between its calls) pump too.
    clock_->SetCompletionHook([this, mu] {
      Lock lock(*mu);
      Pump();
    });
  }
  ~VirtualIoDriver() override { clock_->SetCompletionHook(nullptr); }

  void Wake() override {
    if (!stopped_) Pump();
  }

  void Stop(Lock &, bool) override {
    stopped_ = true;
    clock_->SetCompletionHook(nullptr);
  }

 protected:
  bool WaitStep(Lock &, Clock::time_point) override {
    Pump();
    const bool moved = clock_->StepVirtual();
    Pump();
    return moved;
  }

 private:
  // Issue, submit, land, until nothing moves. Reentry (a completion hook during a pump) is a
  // no-op: the running pump sees its effects on its next pass.
  void Pump() {
    if (pumping_) return;
    pumping_ = true;
    std::vector<IoRequest *> submit;
    std::vector<StageCall> stage;
    std::vector<IoRequest *> done;
    for (;;) {
      submit.clear();
      stage.clear();
      done.clear();
      if (!stopped_) hooks_.issue(&submit, &stage);
      SubmitBatch(submit, stage, hooks_.complete, hooks_.stage_failed);
      backend_->Reap(&done);
      for (IoRequest *r : done) hooks_.complete(r);
      if (submit.empty() && done.empty()) break;
    }
    pumping_ = false;
  }

  VirtualClock *clock_;
  bool pumping_ = false;
};

}  // namespace

std::unique_ptr<IoDriver> IoDriver::Make(Backend *backend, std::mutex *mu, Hooks hooks) {
  if (backend->virtual_clock() != nullptr)
    return std::make_unique<VirtualIoDriver>(backend, mu, std::move(hooks));
  return std::make_unique<ThreadedIoDriver>(backend, mu, std::move(hooks));
}

bool IoDriver::WaitUntil(Lock &lock, uint32_t timeout_ms, const std::function<bool()> &done) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done()) {
    if (!WaitStep(lock, deadline) && !done()) return false;
  }
  return true;
}

void IoDriver::SubmitBatch(const std::vector<IoRequest *> &submit,
                           const std::vector<StageCall> &stage,
                           const std::function<void(IoRequest *)> &failed,
                           const std::function<void(const Status &)> &stage_failed,
                           const std::function<void()> &between) {
  for (IoRequest *req : submit) {
    if (!backend_->Submit(req).ok()) {
      req->result = -EIO;
      failed(req);
    }
    if (between) between();
  }
  for (const StageCall &c : stage) {
    Status s = backend_->Stage(*c.file, c.offset, c.length, c.kind);
    if (!s.ok()) {
      // A failed stage loses nothing (the read itself still goes out), but stop trying.
      stage_failed(s);
      return;
    }
  }
}

}  // namespace pfio
