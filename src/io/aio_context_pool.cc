#include "io/aio_context_pool.h"

#include <unistd.h>

#include <atomic>
#include <mutex>

namespace pfio {

namespace {

struct IdleContext {
  io_context_t ctx;
  uint32_t depth;
  pid_t owner;  // the process that made it
};

std::mutex &PoolMutex() {
  static std::mutex mu;
  return mu;
}

// Never destroyed: contexts pooled here live until the process exits.
IdleContext *Slots() {
  static IdleContext slots[AioContextPool::kMaxIdle] = {};
  return slots;
}

std::atomic<uint64_t> g_taken{0};

}  // namespace

int AioContextPool::Take(uint32_t depth, io_context_t *ctx) {
  {
    std::lock_guard<std::mutex> lock(PoolMutex());
    const pid_t me = getpid();
    IdleContext *slots = Slots();
    for (int i = 0; i < kMaxIdle; ++i) {
      if (slots[i].ctx == nullptr) continue;
      if (slots[i].owner != me) {
        slots[i] = {};  // a parent's context: not usable here, and not ours to destroy
        continue;
      }
      if (slots[i].depth == depth) {
        *ctx = slots[i].ctx;
        slots[i] = {};
        ++g_taken;
        return 0;
      }
    }
  }
  *ctx = nullptr;
  const int r = io_setup(static_cast<int>(depth), ctx);
  if (r == 0) ++g_taken;
  return r;
}

uint64_t AioContextPool::Taken() {
  return g_taken.load();
}

void AioContextPool::Give(io_context_t ctx, uint32_t depth) {
  {
    std::lock_guard<std::mutex> lock(PoolMutex());
    IdleContext *slots = Slots();
    for (int i = 0; i < kMaxIdle; ++i) {
      if (slots[i].ctx == nullptr) {
        slots[i] = {ctx, depth, getpid()};
        return;
      }
    }
  }
  io_destroy(ctx);
}

int AioContextPool::Idle() {
  std::lock_guard<std::mutex> lock(PoolMutex());
  int n = 0;
  const pid_t me = getpid();
  for (int i = 0; i < kMaxIdle; ++i) n += Slots()[i].ctx != nullptr && Slots()[i].owner == me;
  return n;
}

}  // namespace pfio
