#include "sched/stager.h"

#include <iterator>

#include "sched/scheduler.h"

namespace pfio {

Stager::Stager(pfio_stage configured, pfio_stage automatic, uint32_t target_stages)
    : mode_(configured == PFIO_STAGE_AUTO ? automatic : configured), target_stages_(target_stages) {
  if (mode_ == PFIO_STAGE_NONE) {
    note_ = configured == PFIO_STAGE_NONE
                ? "off: stage = none"
                : "off: auto, and this backend has no drive model to stage into";
  } else if (target_stages_ == 0) {
    note_ = "off: target_stages = 0";
    mode_ = PFIO_STAGE_NONE;
  }
}

void Stager::Resolve(uint64_t mean_read, uint32_t targets, const DeviceModel &device) {
  resolved_ = true;
  if (mode_ == PFIO_STAGE_NONE) return;
  const Status gain = device.StageCanGain(mean_read, targets);
  if (!gain.ok()) {
    mode_ = PFIO_STAGE_NONE;
    note_ = "off: " + gain.message();
  } else if (mean_read < kStageMin) {
    note_ =
        "on for reads of 64 KiB and more only; the first window's mean read is " + Bytes(mean_read);
  }
}

void Stager::OnIssue(PendingRead *pr, const std::list<PendingRead *> &queue,
                     std::vector<StageCall> *out) {
  if (pr->staged) --staged_[pr->target];  // spent: the target may stage its next block
  if (mode_ == PFIO_STAGE_NONE) return;
  const uint32_t target = pr->target;
  uint32_t &staged = staged_[target];
  size_t scanned = 0;
  for (auto it = std::next(pr->queue_pos);
       it != queue.end() && scanned < Scheduler::kIssueScan && staged < target_stages_;
       ++it, ++scanned) {
    PendingRead *q = *it;
    if (q->target != target || q->staged) continue;
    if (q->req.length < kStageMin) {
      if (!q->stage_checked) ++stages_small_;
      q->stage_checked = true;
      return;  // the target's next read is small: staging it would cost more than it saves
    }
    q->stage_checked = q->staged = true;
    ++staged;
    if (mode_ == PFIO_STAGE_PAGECACHE) q->req.buffered = true;  // it will be in the cache
    out->push_back(StageCall{q->req.file, q->req.offset, q->req.length, mode_});
    ++stages_;
  }
}

void Stager::OnDropped(const PendingRead *pr) {
  if (pr->staged) --staged_[pr->target];
}

void Stager::Failed(const Status &s) {
  if (mode_ == PFIO_STAGE_NONE) return;
  mode_ = PFIO_STAGE_NONE;
  note_ = "off after an error: " + s.message();
}

}  // namespace pfio
