// PerProcess: a fact about this process worked out once and shared by its threads, worked out
// again in a forked child (a child's /proc/self, start time and cgroup are its own).
//
// Contract. Get(compute) returns the value compute() gave at the first Get of this process; later
// calls return it without calling compute. Thread-safe: concurrent first calls compute once.
// For facts that do not change while the process lives (its cgroup, its start time, a device's
// readahead); a value that changes (memory available) must be read each time instead.
#pragma once

#include <unistd.h>

#include <mutex>
#include <utility>

namespace pfio {

template <class T>
class PerProcess {
 public:
  template <class Compute>
  T Get(Compute compute) {
    std::lock_guard<std::mutex> lock(mu_);
    const pid_t me = getpid();
    if (owner_ != me) {
      value_ = compute();
      owner_ = me;
    }
    return value_;
  }

 private:
  std::mutex mu_;
  pid_t owner_ = 0;
  T value_{};
};

}  // namespace pfio
