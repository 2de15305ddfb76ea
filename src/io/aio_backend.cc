#include "io/aio_backend.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <mutex>

#include "io/file_open.h"

namespace pfio {

namespace {
struct AioOp {
  iocb cb;
  IoRequest *req;
};
std::once_flag g_fallback_notice;
}  // namespace

Status AioBackend::Create(uint32_t queue_depth, bool fallback, std::unique_ptr<Backend> *out,
                          DirectOpener opener) {
  io_context_t ctx{};
  int r = io_setup(static_cast<int>(queue_depth), &ctx);
  if (r < 0) {
    return Status::Io(
        Format("io_setup(queue_depth = %u) failed: %s; lower queue_depth or raise "
               "/proc/sys/fs/aio-max-nr",
               queue_depth, std::strerror(-r)));
  }
  int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (efd < 0) {
    io_destroy(ctx);
    return Status::Io(Format("eventfd failed: %s", std::strerror(errno)));
  }
  out->reset(new AioBackend(ctx, efd, queue_depth, fallback, std::move(opener)));
  return Status::Ok();
}

AioBackend::~AioBackend() {
  sync_.reset();
  io_destroy(ctx_);
  close(event_fd_);
}

Status AioBackend::Open(const std::string &path, FileHandle *out) {
  std::string refused;
  Status s = OpenFileHandle(path, true, out, &refused, opener_);
  if (!s.ok() || out->o_direct) return s;
  if (!fallback_) {
    CloseFileHandle(out);
    return Status::Io(refused + "; backend = aio needs O_DIRECT: use backend auto or sync");
  }
  std::call_once(g_fallback_notice, [&] {
    std::fprintf(stderr,
                 "pfio: %s; reading it (and any other such file) through the page cache with the "
                 "sync backend\n",
                 refused.c_str());
  });
  if (!sync_) sync_ = std::make_unique<SyncBackend>(std::min<uint32_t>(depth_, 8), event_fd_);
  return Status::Ok();
}

void AioBackend::Close(FileHandle *file) {
  CloseFileHandle(file);
}

Status AioBackend::Submit(IoRequest *req) {
  if (!req->file->o_direct || req->buffered) {
    // Files without O_DIRECT, and blocks staged in the page cache, are read through it.
    if (!sync_) sync_ = std::make_unique<SyncBackend>(std::min<uint32_t>(depth_, 8), event_fd_);
    return sync_->Submit(req);
  }
  auto *op = new AioOp;
  std::memset(&op->cb, 0, sizeof op->cb);
  op->req = req;
  io_prep_preadv(&op->cb, req->file->direct_fd, req->iov.data(), static_cast<int>(req->iov.size()),
                 static_cast<long long>(req->offset));
  io_set_eventfd(&op->cb, event_fd_);
  op->cb.data = op;
  iocb *list[1] = {&op->cb};
  for (;;) {
    int r = io_submit(ctx_, 1, list);
    if (r == 1) return Status::Ok();
    if (r == -EAGAIN || r == -EINTR) {
      usleep(100);
      continue;
    }
    delete op;
    return Status::Io(Format("io_submit of %llu bytes at offset %llu of %s failed: %s",
                             static_cast<unsigned long long>(req->length),
                             static_cast<unsigned long long>(req->offset), req->file->path.c_str(),
                             std::strerror(r < 0 ? -r : EIO)));
  }
}

void AioBackend::Reap(std::vector<IoRequest *> *done) {
  uint64_t count;
  ssize_t n = read(event_fd_, &count, sizeof count);
  (void)n;  // EAGAIN: nothing signalled; reap anyway
  if (sync_) sync_->Reap(done);
  io_event events[64];
  timespec zero{0, 0};
  for (;;) {
    int got = io_getevents(ctx_, 0, 64, events, &zero);
    if (got <= 0) break;
    for (int i = 0; i < got; ++i) {
      auto *op = static_cast<AioOp *>(events[i].data);
      op->req->result = static_cast<int64_t>(static_cast<long>(events[i].res));
      done->push_back(op->req);
      delete op;
    }
    if (got < 64) break;
  }
}

Status MakeBackend(pfio_backend kind, uint32_t queue_depth, std::unique_ptr<Backend> *out) {
  switch (kind) {
    case PFIO_BACKEND_AUTO:
      return AioBackend::Create(queue_depth, true, out);
    case PFIO_BACKEND_AIO:
      return AioBackend::Create(queue_depth, false, out);
    case PFIO_BACKEND_SYNC:
      out->reset(new SyncBackend(std::min<uint32_t>(queue_depth, 8)));
      return Status::Ok();
    default:
      return Status::Invalid(
          Format("backend = %d: this build has auto (0), aio (1) and sync (2); "
                 "io_uring (3) is not built yet",
                 static_cast<int>(kind)));
  }
}

}  // namespace pfio
