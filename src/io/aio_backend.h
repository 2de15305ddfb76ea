// AioBackend: libaio reads with O_DIRECT into the reorder buffer's aligned memory (the default).
// Its libaio context is made at the first read it submits, not when it is created: a process
// that made one pays for it at exit (the kernel's io_destroy of it waits for RCU grace periods;
// docs/measurements.md, "Others"), and a context of the page-cache buffer kind, or one that only
// advises, never submits a read here. If io_setup fails then, that read fails with io_setup's error
// (it is read directly instead; the error is printed once) and the next read tries again. What it
// shares with the io_uring backend (O_DIRECT opens, the page-cache fallback, one eventfd) is in
// DirectBackend.
#pragma once

#include <libaio.h>

#include <memory>
#include <mutex>
#include <vector>

#include "io/direct_backend.h"

namespace pfio {

class AioBackend : public DirectBackend {
 public:
  static Status Create(uint32_t queue_depth, bool fallback, std::unique_ptr<Backend> *out,
                       DirectOpener opener = OpenODirect);
  ~AioBackend() override;

  const char *name() const override { return fell_back() ? "aio+sync" : "aio"; }

 protected:
  Status SubmitDirect(IoRequest *req) override;
  void ReapDirect(std::vector<IoRequest *> *done) override;

 private:
  struct Op {  // a read's control block, reused: taken at submission, given back when reaped
    iocb cb;
    IoRequest *req;
  };

  AioBackend(int event_fd, uint32_t depth, bool fallback, DirectOpener opener)
      : DirectBackend(event_fd, depth, fallback, std::move(opener)), depth_(depth) {}
  // The libaio context, from AioContextPool, at the first submission.
  Status TakeContext();
  Op *TakeOp();
  void GiveOp(Op *op);

  // From AioContextPool at the first read submitted (null until then; Submit and Reap run on one
  // thread), given back to it when nothing is in flight.
  io_context_t ctx_{};
  uint32_t depth_;
  std::mutex ops_mu_;
  std::vector<std::unique_ptr<Op>> ops_;  // every control block made (in flight: not in free_ops_)
  std::vector<Op *> free_ops_;
};

}  // namespace pfio
