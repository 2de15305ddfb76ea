// SimBackend: the `sim` backend. The real engine (scheduler, policies, rounds, staging, reorder
// buffer) runs against simulated disks on shared buses (sim/disk_array) in virtual time, through
// the same Backend interface as the aio backend. Files are virtual: their bytes are the
// self-verifying pattern (testdata/pattern), so every byte the engine serves can be checked.
//
// A file is striped over the disks like StripedLayout ("stripe=S,targets=disks,buses=B"): stripe
// i lives on disk i mod disks at position (i div disks) * S. A read that spans stripes becomes
// one command per stripe and completes when all have. Commands reach a disk after the host's
// share of the per-request overhead.
//
// Virtual time runs only when asked: StepVirtual (the engine, while the application waits) runs
// to the next completion; Compute(seconds) (the application's work between reads) runs the
// devices that long and calls the completion hook after each completion, so the engine issues
// more reads at the virtual instant a read lands. Deterministic for a given seed.
#pragma once

#include <sys/eventfd.h>

#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/backend.h"
#include "sim/disk_array.h"

namespace pfio {

struct SimBackendOptions {
  BusDiskParams disk;
  uint32_t disks = 4;
  uint32_t buses = 1;
  uint32_t fence = 0;
  uint64_t stripe = 1024 * 1024;
  uint64_t seed = 1;       // rotational positions and track phases
  uint64_t data_seed = 1;  // the pattern of the virtual files
};

struct SimBackendStats {
  uint64_t reads = 0, stages = 0, from_cache = 0, direct_reads = 0;
  std::vector<uint64_t> reads_per_disk;
  std::vector<uint32_t> completion_disks;  // disk of each prefetch-read command, in order
};

class SimBackend : public Backend, public DeviceModel, public VirtualClock {
 public:
  // options.disk must be a looked-up parameter set; disks >= 1; 1 <= buses <= disks; stripe a
  // multiple of 4 KiB.
  static Status Create(const SimBackendOptions &options, std::unique_ptr<SimBackend> *out);
  ~SimBackend() override;

  void AddFile(const std::string &path, uint64_t size);

  const char *name() const override { return "sim"; }
  Status Open(const FileSource &source, FileHandle *out) override;
  void Close(FileHandle *file) override { (void)file; }
  Status Submit(IoRequest *req) override;
  void Reap(std::vector<IoRequest *> *done) override;
  int completion_fd() const override { return event_fd_; }
  // Buffer by buffer, each a read of the simulated disks (ReadBuffer).
  Status ReadDirectV(const FileHandle &file, std::span<const iovec> iov, uint64_t offset,
                     uint64_t *nread) override;

  Status Stage(const FileHandle &file, uint64_t offset, uint64_t length, pfio_stage kind) override;
  // Virtual files never change size.
  Status CurrentSize(const FileHandle &file, uint64_t *size) override {
    *size = file.size;
    return Status::Ok();
  }
  Status Version(const FileHandle &file, FileVersion *out) override {
    *out = FileVersion{file.size, 0, 0, false};
    return Status::Ok();
  }
  const DeviceModel &device() const override { return *this; }
  VirtualClock *virtual_clock() override { return this; }

  // DeviceModel: the simulated disks take one command at a time; staging goes to the drive
  // cache, where Barve's bus model says it can gain.
  pfio_stage AutoStage() const override { return PFIO_STAGE_DEVICE; }
  Status StageCanGain(uint64_t block, uint32_t targets) const override;
  uint32_t TargetDepth(uint32_t queue_depth, uint32_t targets) const override;

  // VirtualClock.
  double Now() const override { return array_.now(); }
  bool StepVirtual() override;
  void SetCompletionHook(std::function<void()> hook) override { hook_ = std::move(hook); }

  // The application computes for `seconds` of virtual time.
  void Compute(double seconds);

  const SimBackendStats &stats() const { return stats_; }

 private:
  // One buffer's read in virtual time: the clock runs until it lands.
  Status ReadBuffer(const FileHandle &file, void *buf, uint64_t offset, uint64_t length,
                    uint64_t *nread);
  struct Pending {
    IoRequest *req = nullptr;  // null for a direct read
    uint32_t parts = 0;
    bool done = false;
  };
  SimBackend(const SimBackendOptions &o, int event_fd);
  // Sends the commands for [offset, offset + length): one per stripe.
  uint32_t Command(DiskCommand::Kind kind, uint64_t offset, uint64_t length, uint64_t tag);
  void Land(const DiskCompletion &c);

  SimBackendOptions o_;
  int event_fd_;
  DiskArray array_;
  std::map<std::string, uint64_t> files_;
  std::map<uint64_t, Pending> pending_;
  uint64_t next_tag_ = 1;
  std::vector<IoRequest *> done_;
  std::function<void()> hook_;
  SimBackendStats stats_;
};

}  // namespace pfio
