#include "io/direct_backend.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace pfio {

namespace {
std::once_flag g_fallback_notice;
}  // namespace

DirectBackend::~DirectBackend() {
  sync_.reset();
  close(event_fd_);
}

SyncBackend *DirectBackend::Sync() {
  if (!sync_) sync_ = std::make_unique<SyncBackend>(std::min<uint32_t>(depth_, 8), event_fd_);
  return sync_.get();
}

Status DirectBackend::Open(const FileSource &source, FileHandle *out) {
  std::string refused;
  Status s = OpenFileHandle(source, true, out, &refused, opener_);
  if (!s.ok() || out->o_direct) return s;
  if (!fallback_) {
    CloseFileHandle(out);
    return Status::Io(refused +
                      Format("; backend = %s needs O_DIRECT: use backend auto or sync", name()));
  }
  std::call_once(g_fallback_notice, [&] {
    std::fprintf(stderr,
                 "pfio: %s; reading it (and any other such file) through the page cache with the "
                 "sync backend\n",
                 refused.c_str());
  });
  Sync();
  fell_back_ = true;
  return Status::Ok();
}

void DirectBackend::Close(FileHandle *file) {
  CloseFileHandle(file);
}

Status DirectBackend::Submit(IoRequest *req) {
  // Files without O_DIRECT, and blocks staged in the page cache, are read through it.
  if (!req->file->o_direct || req->buffered) return Sync()->Submit(req);
  return SubmitDirect(req);
}

void DirectBackend::Reap(std::vector<IoRequest *> *done) {
  uint64_t count;
  ssize_t n = read(event_fd_, &count, sizeof count);
  (void)n;  // EAGAIN: nothing signalled; reap anyway
  if (sync_) sync_->Reap(done);
  ReapDirect(done);
}

Status DirectBackend::SubmitFailed(const char *call, const IoRequest &req, int err) {
  return Status::Io(Format(
      "%s of %llu bytes at offset %llu of %s failed: %s%s", call,
      static_cast<unsigned long long>(req.length), static_cast<unsigned long long>(req.offset),
      req.file->path.c_str(), std::strerror(err),
      err == EAGAIN ? " (the submission queue stayed full; the read goes direct)" : ""));
}

}  // namespace pfio
