#include "io/aio_backend.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <mutex>

#include "io/aio_context_pool.h"
#include "io/file_open.h"
#ifdef PFIO_HAVE_URING
#include "io/uring_backend.h"
#endif

namespace pfio {

Status AioBackend::Create(uint32_t queue_depth, bool fallback, std::unique_ptr<Backend> *out,
                          DirectOpener opener) {
  int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (efd < 0) return Status::Io(Format("eventfd failed: %s", std::strerror(errno)));
  out->reset(new AioBackend(efd, queue_depth, fallback, std::move(opener)));
  return Status::Ok();
}

AioBackend::~AioBackend() {
  if (ctx_ == nullptr) return;  // never read directly: no libaio context was made
  // Reused only when nothing is in flight or waiting to be reaped; else io_destroy waits for
  // what is in flight (and drops its completions) before ops_ frees the control blocks.
  io_event leftover;
  timespec zero{0, 0};
  if (ops_.size() == free_ops_.size() && io_getevents(ctx_, 0, 1, &leftover, &zero) == 0) {
    AioContextPool::Give(ctx_, depth_);
  } else {
    io_destroy(ctx_);
  }
}

Status AioBackend::TakeContext() {
  const int r = AioContextPool::Take(depth_, &ctx_);  // ctx_ stays null when it fails
  if (r == 0) return Status::Ok();
  Status s =
      Status::Io(Format("io_setup(queue_depth = %u) failed: %s; lower queue_depth or raise "
                        "/proc/sys/fs/aio-max-nr",
                        depth_, std::strerror(-r)));
  static std::once_flag notice;  // each read goes direct meanwhile: say why once
  std::call_once(notice, [&] {
    std::fprintf(stderr, "pfio: %s; reads go direct until it succeeds\n", s.message().c_str());
  });
  return s;
}

AioBackend::Op *AioBackend::TakeOp() {
  std::lock_guard<std::mutex> lock(ops_mu_);
  if (free_ops_.empty()) {
    ops_.push_back(std::make_unique<Op>());
    return ops_.back().get();
  }
  Op *op = free_ops_.back();
  free_ops_.pop_back();
  return op;
}

void AioBackend::GiveOp(Op *op) {
  std::lock_guard<std::mutex> lock(ops_mu_);
  free_ops_.push_back(op);
}

Status AioBackend::SubmitDirect(IoRequest *req) {
  if (ctx_ == nullptr) {
    Status s = TakeContext();
    if (!s.ok()) return s;
  }
  Op *op = TakeOp();
  std::memset(&op->cb, 0, sizeof op->cb);
  op->req = req;
  io_prep_preadv(&op->cb, req->file->direct_fd, req->iov.data(), static_cast<int>(req->iov.size()),
                 static_cast<long long>(req->offset));
  io_set_eventfd(&op->cb, event_fd_);
  op->cb.data = op;
  iocb *list[1] = {&op->cb};
  const int retries = BusyRetries();
  for (int tries = 0;; ++tries) {
    int r = io_submit(ctx_, 1, list);
    if (r == 1) {
      SubmitTaken();
      return Status::Ok();
    }
    if ((r == -EAGAIN || r == -EINTR) && tries < retries) {
      usleep(kBusyRetryUs);
      continue;
    }
    if (r == -EAGAIN) SubmitRefused();
    GiveOp(op);
    return SubmitFailed("io_submit", *req, r < 0 ? -r : EIO);
  }
}

void AioBackend::ReapDirect(std::vector<IoRequest *> *done) {
  if (ctx_ == nullptr) return;
  io_event events[64];
  timespec zero{0, 0};
  for (;;) {
    int got = io_getevents(ctx_, 0, 64, events, &zero);
    if (got <= 0) break;
    for (int i = 0; i < got; ++i) {
      auto *op = static_cast<Op *>(events[i].data);
      op->req->result = static_cast<int64_t>(static_cast<long>(events[i].res));
      done->push_back(op->req);
      GiveOp(op);
    }
    if (got < 64) break;
  }
}

Status MakeBackend(pfio_backend kind, uint32_t queue_depth, std::unique_ptr<Backend> *out) {
  switch (kind) {  // every value: the config checked it
    case PFIO_BACKEND_AUTO:
      return AioBackend::Create(queue_depth, true, out);
    case PFIO_BACKEND_AIO:
      return AioBackend::Create(queue_depth, false, out);
    case PFIO_BACKEND_SYNC:
      out->reset(new SyncBackend(std::min<uint32_t>(queue_depth, 8)));
      return Status::Ok();
    case PFIO_BACKEND_URING:
#ifdef PFIO_HAVE_URING
      return UringBackend::Create(queue_depth, false, out);
#else
      return Status::Invalid("backend = uring: this pfio was built without liburing");
#endif
  }
  return Status::Invalid(Format("backend = %d: not a backend", static_cast<int>(kind)));
}

}  // namespace pfio
