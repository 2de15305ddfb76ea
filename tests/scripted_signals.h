// ScriptedSignals: memory signals for tests that report contention on chosen samples (the n-th
// call of Sample, counting from 0), so budget cuts happen at known points.
#pragma once

#include <set>
#include <utility>

#include "memory/memory_signals.h"

namespace pfio::test {

class ScriptedSignals : public MemorySignals {
 public:
  explicit ScriptedSignals(std::set<int> pressure_at) : at_(std::move(pressure_at)) {}
  MemorySample Sample() override {
    MemorySample s;
    s.contention = at_.count(n_++) > 0;
    if (s.contention) s.reason = "scripted pressure";
    return s;
  }

 private:
  std::set<int> at_;
  int n_ = 0;
};

}  // namespace pfio::test
