// BackendWrapper: a Backend that forwards every call to another one (LevelDB's EnvWrapper). Test
// doubles and instrumented backends derive from it and override only the calls they change, so
// a call added to Backend can never be dropped silently by a double that did not know of it.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/backend.h"

namespace pfio {

class BackendWrapper : public Backend {
 public:
  explicit BackendWrapper(std::unique_ptr<Backend> target) : target_(std::move(target)) {}

  const char *name() const override { return target_->name(); }
  Status Open(const FileSource &source, FileHandle *out) override {
    return target_->Open(source, out);
  }
  void Close(FileHandle *file) override { target_->Close(file); }
  Status Submit(IoRequest *req) override { return target_->Submit(req); }
  void Reap(std::vector<IoRequest *> *done) override { target_->Reap(done); }
  void BeginStop() override { target_->BeginStop(); }
  int completion_fd() const override { return target_->completion_fd(); }
  Status ReadDirectV(const FileHandle &file, std::span<const iovec> iov, uint64_t offset,
                     uint64_t *nread) override {
    return target_->ReadDirectV(file, iov, offset, nread);
  }
  Status CurrentSize(const FileHandle &file, uint64_t *size) override {
    return target_->CurrentSize(file, size);
  }
  Status Version(const FileHandle &file, FileVersion *out) override {
    return target_->Version(file, out);
  }
  Status Stage(const FileHandle &file, uint64_t offset, uint64_t length, pfio_stage kind) override {
    return target_->Stage(file, offset, length, kind);
  }
  const DeviceModel &device() const override { return target_->device(); }
  VirtualClock *virtual_clock() override { return target_->virtual_clock(); }

 private:
  std::unique_ptr<Backend> target_;
};

}  // namespace pfio
