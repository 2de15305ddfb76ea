// UringBackend: io_uring reads with O_DIRECT (liburing), as AioBackend does with libaio: one
// submission per read, completions signalled on an eventfd registered with the ring. Chosen with
// backend = uring; a kernel that refuses io_uring (kernel.io_uring_disabled, seccomp) is an error
// at context creation naming the call and the errno.
#pragma once

#include <liburing.h>

#include <memory>

#include "io/direct_backend.h"

namespace pfio {

class UringBackend : public DirectBackend {
 public:
  static Status Create(uint32_t queue_depth, bool fallback, std::unique_ptr<Backend> *out,
                       DirectOpener opener = OpenODirect);
  ~UringBackend() override;

  const char *name() const override { return fell_back() ? "uring+sync" : "uring"; }

 protected:
  Status SubmitDirect(IoRequest *req) override;
  void ReapDirect(std::vector<IoRequest *> *done) override;

 private:
  UringBackend(int event_fd, uint32_t depth, bool fallback, DirectOpener opener)
      : DirectBackend(event_fd, depth, fallback, std::move(opener)) {}

  io_uring ring_{};
};

}  // namespace pfio
