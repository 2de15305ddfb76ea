// ReusedThread: a thread for one job, taken from threads this process keeps parked, because
// starting and joining a thread for each context was a large part of the cost of a file open
// through pfio (docs/small-calls.md, "The cost of an open").
//
// Contract. ReusedThread(job) runs job() on a parked thread of this process, or on a new one
// when none is parked (std::system_error when none can start, as std::thread). join() returns
// once job() has returned; the thread then parks for the next job (at most kMaxParked parked, a
// thread parked for kParkedFor exits). Like std::thread otherwise: movable, not copyable,
// joinable() until joined; the destructor joins a joinable one. A job must not depend on a
// fresh thread (thread-locals left by an earlier job, the signal mask of the thread that first
// started it). After a fork the child parks anew: its parent's parked threads are not in it.
// The library stays loaded while threads are parked in it (linked -z nodelete).
#pragma once

#include <chrono>
#include <functional>

namespace pfio {

class ReusedThread {
 public:
  static constexpr int kMaxParked = 8;
  static constexpr std::chrono::seconds kParkedFor{30};

  ReusedThread() = default;
  explicit ReusedThread(std::function<void()> job);
  ~ReusedThread();
  ReusedThread(ReusedThread &&other) noexcept;
  ReusedThread &operator=(ReusedThread &&other) noexcept;  // joins this one first
  ReusedThread(const ReusedThread &) = delete;
  ReusedThread &operator=(const ReusedThread &) = delete;

  bool joinable() const { return slot_ != nullptr; }
  void join();

  // Threads parked now, and threads started so far, in this process (tests).
  static int Parked();
  static uint64_t Started();

  struct Slot;

 private:
  Slot *slot_ = nullptr;
};

}  // namespace pfio
