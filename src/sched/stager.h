// Stager: Barve's LoadIntoDiskBuffer. When a target's read is issued, the target's next queued
// blocks (up to target_stages) are staged: the storage is asked to bring them close to the host
// (Backend::Stage: a drive cache, the page cache, a Lustre OSS cache) so their reads are short
// when they go. Staging is off for reads below 64 KiB (Barve Tables 4-6 show a loss there), when
// the backend's model says the bus has no time left to gain (decided once, on the first window),
// and after a stage fails; note() says which.
//
// Guarded by the context's mutex: every method is called with it held. The stage calls it
// returns are made by the caller, after the reads they follow, outside the lock.
#pragma once

#include <cstdint>
#include <list>
#include <string>
#include <vector>

#include "common/modes.h"
#include "common/status.h"
#include "io/backend.h"
#include "partition/request_builder.h"

namespace pfio {

struct StageCall {
  const FileHandle *file;
  uint64_t offset, length;
  pfio_stage kind;
};

class Stager {
 public:
  // Staging pays only for large blocks (Barve Tables 4-6: a loss at 8-32 KiB).
  static constexpr uint64_t kStageMin = 64 * 1024;

  // configured: the config's stage; automatic: what AUTO means on this backend.
  Stager(pfio_stage configured, pfio_stage automatic, uint32_t target_stages);

  // Sizes the per-target counts (only while nothing is queued).
  void Configure(uint32_t targets) { staged_.assign(targets, 0); }

  // Decides, once, from the first window's mean read size, whether staging can gain.
  void Resolve(uint64_t mean_read, uint32_t targets, const DeviceModel &device);
  bool resolved() const { return resolved_; }

  // `pr` is being issued (still first among its target's queued reads in `queue`): its own
  // stage is spent, and the target's next blocks are staged (calls appended to *out).
  void OnIssue(PendingRead *pr, const std::list<PendingRead *> &queue, std::vector<StageCall> *out);
  // `pr` left the queue without being issued.
  void OnDropped(const PendingRead *pr);
  // A stage call failed: staging stops (the reads themselves still go).
  void Failed(const Status &s);

  // Queued reads of `target` whose block is staged.
  uint32_t staged(uint32_t target) const { return staged_[target]; }
  pfio_stage mode() const { return mode_; }
  const std::string &note() const { return note_; }
  uint64_t stages() const { return stages_; }
  uint64_t stages_small() const { return stages_small_; }

 private:
  pfio_stage mode_;
  uint32_t target_stages_;
  bool resolved_ = false;
  std::string note_;
  std::vector<uint32_t> staged_;
  uint64_t stages_ = 0, stages_small_ = 0;
};

}  // namespace pfio
