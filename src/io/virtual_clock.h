// VirtualClock: the clock of a backend that runs in virtual time (the simulator). It does not
// run by itself: whoever waits calls StepVirtual, which runs it to its next completion (false:
// nothing is in progress), and the completion hook is called for completions that land while
// the application computes. Real backends have none; their time is the steady clock.
#pragma once

#include <functional>

namespace pfio {

class VirtualClock {
 public:
  virtual ~VirtualClock() = default;
  virtual double Now() const = 0;  // seconds of virtual time
  virtual bool StepVirtual() = 0;
  virtual void SetCompletionHook(std::function<void()> hook) = 0;
};

// Seconds of the steady clock (the time of real backends).
double SteadySeconds();

}  // namespace pfio
