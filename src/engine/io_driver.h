// IoDriver: moves prefetch reads between the scheduler and the backend, and is where every wait
// of the context is bounded. Two implementations behind one interface:
//   threaded  an I/O thread issues (under the context's mutex), submits and stages outside it,
//             polls the backend's completion descriptor and a wake-up descriptor with a timeout,
//             and lands completions under the mutex; waits sleep on a condition variable;
//   virtual   for a virtual-time backend (the simulator): no thread; issuing, submitting and
//             landing run inline ("pumping") whenever something may have changed, and a wait
//             steps the backend's clock to its next completion.
// The same hooks decide what is issued and what a completion does in both, and both submit a
// batch the same way: each read first, then the stage calls that follow it (Barve §5); a read
// that cannot start completes at once with -EIO; staging stops at the first failed stage.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "io/backend.h"
#include "sched/stager.h"

namespace pfio {

class IoDriver {
 public:
  using Lock = std::unique_lock<std::mutex>;
  // Every hook is called with the context's mutex held.
  struct Hooks {
    // Moves what may go now to *submit, and the stage calls that follow them to *stage.
    std::function<void(std::vector<IoRequest *> *, std::vector<StageCall> *)> issue;
    // A read finished (result set), or could not start (result -EIO).
    std::function<void(IoRequest *)> complete;
    // A stage call failed.
    std::function<void(const Status &)> stage_failed;
    // Reads in flight (a stopping driver lets them land first, unless it abandons them).
    std::function<uint32_t()> in_flight;
  };

  // The driver for `backend` (virtual when the backend runs in virtual time). `mu` is the
  // context's mutex; the driver starts working at once.
  static std::unique_ptr<IoDriver> Make(Backend *backend, std::mutex *mu, Hooks hooks);
  virtual ~IoDriver() = default;

  // With the lock held: something may be issuable (new reads, freed memory, a moved cursor).
  virtual void Wake() = 0;

  // The one bounded wait: returns true once `done()` holds (checked with the lock held), false
  // when timeout_ms passed first (or, in virtual time, when nothing is in progress any more).
  bool WaitUntil(Lock &lock, uint32_t timeout_ms, const std::function<bool()> &done);

  // With the lock held (held again on return): stops issuing; the thread, if any, ends once
  // the reads in flight have landed, or at once when `abandon` (a timed-out shutdown).
  virtual void Stop(Lock &lock, bool abandon) = 0;
  bool stopped() const { return stopped_; }

 protected:
  IoDriver(Backend *backend, Hooks hooks) : backend_(backend), hooks_(std::move(hooks)) {}
  // One wait step: false at the deadline (real time) or when nothing is in progress (virtual).
  virtual bool WaitStep(Lock &lock, std::chrono::steady_clock::time_point deadline) = 0;
  // Submits each read, then runs the stage calls in order (stopping at the first that fails).
  // `failed` / `stage_failed` are called as the hooks must be: with the mutex held. `between`,
  // when given, runs after each read submitted.
  void SubmitBatch(const std::vector<IoRequest *> &submit, const std::vector<StageCall> &stage,
                   const std::function<void(IoRequest *)> &failed,
                   const std::function<void(const Status &)> &stage_failed,
                   const std::function<void()> &between = nullptr);

  Backend *backend_;
  Hooks hooks_;
  bool stopped_ = false;
};

}  // namespace pfio
