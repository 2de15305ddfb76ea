#include "common/reused_thread.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace pfio {

struct ReusedThread::Slot {
  std::mutex mu;
  std::condition_variable cv;
  std::function<void()> job;
  bool has_job = false;  // a job given and not yet finished
  bool quit = false;     // its joiner did not park it: exit
};

namespace {

struct Park {
  std::mutex mu;
  std::vector<ReusedThread::Slot *> parked;
  pid_t owner = 0;
  std::atomic<uint64_t> started{0};
};

// Never destroyed: parked threads wait on it until the process exits.
Park &ThePark() {
  static Park *park = new Park;
  return *park;
}

// Under park.mu: forget a parent's parked threads (they do not exist in a forked child).
void AdoptLocked(Park &park) {
  const pid_t me = getpid();
  if (park.owner == me) return;
  park.parked.clear();  // their slots leak: nothing in this process may touch them
  park.owner = me;
}

// Removes `slot` from the parked ones; false when a job took it first.
bool Unpark(ReusedThread::Slot *slot) {
  Park &park = ThePark();
  std::lock_guard<std::mutex> lock(park.mu);
  auto it = std::find(park.parked.begin(), park.parked.end(), slot);
  if (it == park.parked.end()) return false;
  park.parked.erase(it);
  return true;
}

void Run(ReusedThread::Slot *slot) {
  std::unique_lock<std::mutex> lock(slot->mu);
  for (;;) {
    const bool woken = slot->cv.wait_for(lock, ReusedThread::kParkedFor,
                                         [&] { return slot->has_job || slot->quit; });
    if (slot->quit) break;
    if (woken && slot->job) {
      std::function<void()> job = std::move(slot->job);
      slot->job = nullptr;
      lock.unlock();
      job();
      job = nullptr;  // its captures go before join returns
      lock.lock();
      slot->has_job = false;
      slot->cv.notify_all();
      continue;
    }
    if (slot->has_job) continue;  // finished, not yet joined
    lock.unlock();
    const bool mine = Unpark(slot);  // parked too long: leave, unless a job took it meanwhile
    lock.lock();
    if (mine) break;
  }
  lock.unlock();
  delete slot;
}

}  // namespace

ReusedThread::ReusedThread(std::function<void()> job) {
  Park &park = ThePark();
  Slot *slot = nullptr;
  {
    std::lock_guard<std::mutex> lock(park.mu);
    AdoptLocked(park);
    if (!park.parked.empty()) {
      slot = park.parked.back();
      park.parked.pop_back();
    }
  }
  if (slot != nullptr) {
    std::lock_guard<std::mutex> lock(slot->mu);
    slot->job = std::move(job);
    slot->has_job = true;
    slot->cv.notify_all();
    slot_ = slot;
    return;
  }
  slot = new Slot;
  slot->job = std::move(job);
  slot->has_job = true;
  try {
    std::thread(Run, slot).detach();
  } catch (...) {
    delete slot;
    throw;
  }
  park.started.fetch_add(1, std::memory_order_relaxed);
  slot_ = slot;
}

ReusedThread::~ReusedThread() {
  if (joinable()) join();
}

ReusedThread::ReusedThread(ReusedThread &&other) noexcept
    : slot_(std::exchange(other.slot_, nullptr)) {}

ReusedThread &ReusedThread::operator=(ReusedThread &&other) noexcept {
  if (this != &other) {
    if (joinable()) join();
    slot_ = std::exchange(other.slot_, nullptr);
  }
  return *this;
}

void ReusedThread::join() {
  Slot *slot = std::exchange(slot_, nullptr);
  if (slot == nullptr) return;
  {
    std::unique_lock<std::mutex> lock(slot->mu);
    slot->cv.wait(lock, [&] { return !slot->has_job; });
  }
  Park &park = ThePark();
  bool parked = false;
  {
    std::lock_guard<std::mutex> lock(park.mu);
    AdoptLocked(park);
    if (static_cast<int>(park.parked.size()) < kMaxParked) {
      park.parked.push_back(slot);
      parked = true;
    }
  }
  if (!parked) {
    std::lock_guard<std::mutex> lock(slot->mu);
    slot->quit = true;
    slot->cv.notify_all();
  }
}

int ReusedThread::Parked() {
  Park &park = ThePark();
  std::lock_guard<std::mutex> lock(park.mu);
  AdoptLocked(park);
  return static_cast<int>(park.parked.size());
}

uint64_t ReusedThread::Started() {
  return ThePark().started.load(std::memory_order_relaxed);
}

}  // namespace pfio
