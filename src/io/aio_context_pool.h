// AioContextPool: libaio contexts kept for reuse within the process, because destroying one is
// slow: io_destroy waits for the kernel's RCU grace periods (docs/measurements.md, "Others"),
// which every pfio context (so every MPI_File_close and H5Fclose through pfio) would otherwise
// pay.
//
// Contract. Take(depth) returns a context with room for `depth` reads in flight: an idle one
// made by this process with exactly that depth, else a new one (io_setup's error as a negative
// errno). Give(ctx, depth) hands a context back; the caller promises that nothing is in flight
// on it and nothing waits to be reaped (a context with reads in flight must be destroyed
// instead: only io_destroy waits for them). At most kMaxIdle contexts are kept; the others are
// destroyed. Contexts survive as long as the process: the kernel frees them at exit. After a
// fork the child takes no context its parent pooled (a child cannot use its parent's contexts).
// Thread-safe.
#pragma once

#include <libaio.h>

#include <cstdint>

namespace pfio {

class AioContextPool {
 public:
  static constexpr int kMaxIdle = 4;

  // 0 and *ctx set, or a negative errno from io_setup.
  static int Take(uint32_t depth, io_context_t *ctx);
  static void Give(io_context_t ctx, uint32_t depth);
  // Idle contexts this process holds (tests).
  static int Idle();
  // Contexts handed out by Take so far, pooled or new (tests).
  static uint64_t Taken();
};

}  // namespace pfio
