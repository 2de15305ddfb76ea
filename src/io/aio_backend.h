// AioBackend: libaio reads with O_DIRECT into the reorder buffer's aligned memory (the default).
// With `fallback` set (PFIO_BACKEND_AUTO), files whose file system refuses O_DIRECT are read by
// an internal SyncBackend instead, and that is said once on stderr; without it they are an error.
#pragma once

#include <libaio.h>

#include <memory>

#include "io/file_open.h"
#include "io/sync_backend.h"

namespace pfio {

class AioBackend : public Backend {
 public:
  static Status Create(uint32_t queue_depth, bool fallback, std::unique_ptr<Backend> *out,
                       DirectOpener opener = OpenODirect);
  ~AioBackend() override;

  const char *name() const override { return "aio"; }
  Status Open(const std::string &path, FileHandle *out) override;
  void Close(FileHandle *file) override;
  Status Submit(IoRequest *req) override;
  void Reap(std::vector<IoRequest *> *done) override;
  int completion_fd() const override { return event_fd_; }

 private:
  AioBackend(io_context_t ctx, int event_fd, uint32_t depth, bool fallback, DirectOpener opener)
      : ctx_(ctx), event_fd_(event_fd), depth_(depth), fallback_(fallback), opener_(opener) {}

  io_context_t ctx_;
  int event_fd_;
  uint32_t depth_;
  bool fallback_;
  DirectOpener opener_;
  std::unique_ptr<SyncBackend> sync_;  // created on the first file that refuses O_DIRECT
};

}  // namespace pfio
