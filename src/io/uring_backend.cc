#include "io/uring_backend.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstring>

namespace pfio {

Status UringBackend::Create(uint32_t queue_depth, bool fallback, std::unique_ptr<Backend> *out,
                            DirectOpener opener) {
  int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (efd < 0) return Status::Io(Format("eventfd failed: %s", std::strerror(errno)));
  std::unique_ptr<UringBackend> b(new UringBackend(efd, queue_depth, fallback, std::move(opener)));
  int r = io_uring_queue_init(queue_depth, &b->ring_, 0);
  if (r < 0) {
    b->ring_.ring_fd = -1;
    return Status::Io(
        Format("io_uring_queue_init(queue_depth = %u) failed: %s; the kernel may "
               "have io_uring disabled (/proc/sys/kernel/io_uring_disabled): use "
               "backend aio",
               queue_depth, std::strerror(-r)));
  }
  r = io_uring_register_eventfd(&b->ring_, efd);
  if (r < 0) {
    return Status::Io(Format("io_uring_register_eventfd failed: %s", std::strerror(-r)));
  }
  *out = std::move(b);
  return Status::Ok();
}

UringBackend::~UringBackend() {
  if (ring_.ring_fd >= 0) io_uring_queue_exit(&ring_);
}

Status UringBackend::SubmitDirect(IoRequest *req) {
  io_uring_sqe *sqe = io_uring_get_sqe(&ring_);
  const int retries = BusyRetries();
  for (int tries = 0; sqe == nullptr; ++tries) {
    // The submission queue is full of entries not yet taken by the kernel: hand them over.
    // (The engine keeps at most queue_depth reads in flight, the ring's size, so this is rare.)
    const int r = io_uring_submit(&ring_);
    if (r < 0 && r != -EAGAIN && r != -EBUSY && r != -EINTR) {
      return SubmitFailed("io_uring_submit", *req, -r);
    }
    if (tries >= retries) {
      SubmitRefused();
      return SubmitFailed("io_uring_get_sqe", *req, EAGAIN);
    }
    if (r <= 0) usleep(kBusyRetryUs);
    sqe = io_uring_get_sqe(&ring_);
  }
  SubmitTaken();
  io_uring_prep_readv(sqe, req->file->direct_fd, req->iov.data(),
                      static_cast<unsigned>(req->iov.size()), req->offset);
  io_uring_sqe_set_data(sqe, req);
  // From here the read belongs to the ring: it is never reported as failed to start, since the
  // kernel may still take the entry. A submission the kernel refuses for now (EAGAIN, EBUSY)
  // stays queued and goes with the next submit or reap.
  (void)io_uring_submit(&ring_);
  return Status::Ok();
}

void UringBackend::ReapDirect(std::vector<IoRequest *> *done) {
  if (io_uring_sq_ready(&ring_) > 0) (void)io_uring_submit(&ring_);  // entries left queued
  io_uring_cqe *cqe = nullptr;
  while (io_uring_peek_cqe(&ring_, &cqe) == 0 && cqe != nullptr) {
    auto *req = static_cast<IoRequest *>(io_uring_cqe_get_data(cqe));
    req->result = cqe->res;
    done->push_back(req);
    io_uring_cqe_seen(&ring_, cqe);
  }
}

}  // namespace pfio
