// The Context's plan calls: appending, replacing (from the front, after the last mark), the
// readahead ranges, each held to the plan's memory bound (at most half the budget's cap).
#include <algorithm>
#include <iterator>

#include "engine/context.h"
#include "io/page_cache_backend.h"
#include "io/willneed.h"

namespace pfio {

namespace {

// Calls fill(chunk, n) with the caller's extents as the plan keeps them, 1024 at a time, so no
// copy of the whole array is made; stops early when fill returns false.
template <typename Fill>
void InChunks(const pfio_extent *extents, size_t count, Fill fill) {
  Extent chunk[1024];
  for (size_t i = 0; i < count;) {
    const size_t n = std::min<size_t>(count - i, std::size(chunk));
    for (size_t j = 0; j < n; ++j) {
      const pfio_extent &x = extents[i + j];
      chunk[j] = Extent{x.file, x.marked != 0, x.offset, x.length};
    }
    if (!fill(chunk, n)) return;
    i += n;
  }
}

}  // namespace

Status Context::PlanAppend(const pfio_extent *extents, size_t count) {
  Lock lock(mu_);
  Status s = files_.CheckExtents(extents, count, nullptr);  // all checked before any is kept
  if (!s.ok()) return s;
  AccessPlan &plan = window_.plan();
  const uint64_t old_end = plan.end_index();
  // Held to the bound as it grows: a plan too large is refused having taken at most the bound
  // and one chunk, not the whole plan.
  InChunks(extents, count, [&](const Extent *chunk, size_t n) {
    plan.Append(chunk, n);
    s = CheckPlanSize(count);
    return s.ok();
  });
  if (!s.ok()) {
    plan.TruncateFrom(old_end);  // as it was
    return s;
  }
  Refill(false);
  return Status::Ok();
}

Status Context::CheckPlanSize(size_t added) const {
  const AccessPlan &plan = window_.plan();
  const uint64_t limit = memory_.cap() / 2;
  if (plan.heap_bytes() <= limit) return Status::Ok();
  return Status::NoMem(Format(
      "plan with %zu extents added would hold more than %s in memory (%zu runs of %llu "
      "bytes when it passed that; extents of one length at one stride share a run): "
      "expected at most half the memory budget (%s); append the plan in parts as reading "
      "goes on, or raise budget",
      added, Bytes(limit).c_str(), plan.runs(),
      static_cast<unsigned long long>(AccessPlan::MaxBytesFor(1)), Bytes(memory_.cap()).c_str()));
}

Status Context::ReplaceChecked(const pfio_extent *extents, size_t count) {
  // The unread entries the new plan starts with stay as they are: a plan that moves one call
  // ahead per call (the collective layer's) repeats all of the old one but its first call, and
  // planning those again cost each call the whole look-ahead's piece lookups (1 rank, tiles:
  // over a quarter of the reader's CPU time). For what follows: new entries first, old references
  // last, so pieces both plans need are kept, not re-read.
  uint64_t keep = 0;
  InChunks(extents, count, [&](const Extent *chunk, size_t n) {
    const uint64_t same = window_.SamePrefix(chunk, n, keep);
    keep += same;
    return same == n;
  });
  std::deque<Window::Entry> old = window_.ReplaceAfter(keep, [&](AccessPlan *plan) {
    InChunks(extents + keep, count - keep, [&](const Extent *chunk, size_t n) {
      plan->Append(chunk, n);
      return true;
    });
  });
  if (old.empty()) {  // the new plan only extends the window: refilled as after an append
    Refill(false);
    return Status::Ok();
  }
  Refill(true);  // before the old entries go: pieces both plans need are kept
  stats_.bytes_wasted += window_.DropEntries(&old);
  PruneQueue();
  Refill(false);
  return Status::Ok();
}

Status Context::PlanReplace(const pfio_extent *extents, size_t count) {
  Lock lock(mu_);
  Status s = files_.CheckExtents(extents, count, nullptr);
  if (!s.ok()) return s;
  return ReplaceFrom(extents, count);
}

Status Context::ReplaceFrom(const pfio_extent *extents, size_t count) {
  // The new plan as it will be stored, built first and held to the bound as it grows (a plan
  // too large is refused having taken at most the bound), then freed before the real one is.
  const uint64_t limit = memory_.cap() / 2;
  {
    AccessPlan trial;
    bool over = false;
    InChunks(extents, count, [&](const Extent *chunk, size_t n) {
      trial.Append(chunk, n);
      over = trial.heap_bytes() > limit;
      return !over;
    });
    if (over) {
      return Status::NoMem(
          Format("replacement plan of %zu extents would hold more than %s in memory (%zu runs "
                 "when it passed that): expected at most half the memory budget (%s); the plan "
                 "is unchanged",
                 count, Bytes(limit).c_str(), trial.runs(), Bytes(memory_.cap()).c_str()));
    }
  }
  return ReplaceChecked(extents, count);
}

Status Context::PlanReplaceAfterMark(const pfio_extent *extents, size_t count) {
  Lock lock(mu_);
  Status s = files_.CheckExtents(extents, count, nullptr);
  if (!s.ok()) return s;
  size_t skip = 0;
  InChunks(extents, count, [&](const Extent *chunk, size_t n) {
    const size_t same = window_.plan().ConsumedSinceMarkPrefix(chunk, n, skip);
    skip += same;
    return same == n;
  });
  return ReplaceFrom(extents + skip, count - skip);
}

Status Context::PlanLastMark(pfio_extent *mark) {
  Lock lock(mu_);
  const AccessPlan &plan = window_.plan();
  if (!plan.last_mark()) return Status::State("no marked extent has been read yet");
  const Extent &e = *plan.last_mark();
  *mark = pfio_extent{e.file, 1, e.offset, e.length};
  return Status::Ok();
}

Status Context::PlanReadahead(const pfio_extent *ranges, size_t count) {
  Lock lock(mu_);
  std::vector<Extent> checked;
  Status s = files_.CheckExtents(ranges, count, &checked);
  if (s.ok()) window_.SetReadahead(checked);
  return s;
}

Status Context::AdviseNow(const pfio_extent *ranges, size_t count) {
  Lock lock(mu_);
  std::vector<Extent> checked;
  Status s = files_.CheckExtents(ranges, count, &checked);
  if (!s.ok() || cache_backend_ == nullptr) return s;
  for (const Extent &r : checked) {
    const FileHandle &h = files_.handle(r.file);
    if (h.willneed_limit == 0) files_.SetWillneedLimit(r.file, WillneedLimit(h.buffered_fd));
    cache_backend_->AdviseAhead(h, r.offset, r.length);
  }
  return Status::Ok();
}

}  // namespace pfio
