#include "predict/judge_memory.h"

#include <deque>
#include <mutex>

namespace pfio::predict {
namespace {

struct Judge {
  std::string key;
  PathJudge judge;
  uint64_t note = 0;
};

struct Kept {
  std::mutex mutex;
  std::deque<Judge> judges;  // oldest first
};

Kept &Memory() {
  static Kept *kept = new Kept;  // never destroyed: files may close during exit
  return *kept;
}

}  // namespace

PathJudge JudgeMemory::Take(const std::string &key, uint64_t *note) {
  Kept &m = Memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  if (note != nullptr) *note = 0;
  for (const Judge &kept : m.judges)
    if (kept.key == key) {
      PathJudge carried = kept.judge;
      carried.NewFile();
      if (note != nullptr) *note = kept.note;
      return carried;
    }
  return PathJudge();
}

void JudgeMemory::Keep(const std::string &key, const PathJudge &judge, uint64_t note) {
  Kept &m = Memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  for (auto it = m.judges.begin(); it != m.judges.end(); ++it)
    if (it->key == key) {
      m.judges.erase(it);
      break;
    }
  if (m.judges.size() >= kKeys) m.judges.pop_front();
  m.judges.push_back({key, judge, note});
}

}  // namespace pfio::predict
