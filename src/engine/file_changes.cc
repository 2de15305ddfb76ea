// Context: files that change on disk under a reader (revalidate, and shrinks seen by reads).
#include "engine/context.h"

namespace pfio {

Status Context::CheckFile(int32_t id, bool *changed) {
  *changed = false;
  Lock lock(mu_);
  Status s = files_.Check(id, "file");
  if (!s.ok()) return s;
  FileVersion now;
  s = backend_->Version(files_.handle(id), &now);
  if (!s.ok()) return s;
  if (!files_.changed(id) && files_.version(id).Vouches(now)) return Status::Ok();
  *changed = true;
  ++stats_.files_changed;
  return RefreshLocked(lock, id, "checking");
}

Status Context::RevalidateIfDue(Lock &lock) {
  bool any = false;
  for (const int32_t id : files_.open_ids()) {
    if (cfg_.revalidate && !files_.changed(id)) {
      FileVersion now;
      Status s = backend_->Version(files_.handle(id), &now);
      if (!s.ok()) return Status(s.code(), "revalidate: " + s.message());
      if (!files_.version(id).Vouches(now)) files_.MarkChanged(id);
    }
    any = any || files_.changed(id);
  }
  if (!any) return Status::Ok();
  for (const int32_t id : files_.open_ids()) {
    if (!files_.changed(id)) continue;
    FileVersion now;
    Status s = backend_->Version(files_.handle(id), &now);
    if (!s.ok()) return Status(s.code(), "revalidate: " + s.message());
    files_.SetSize(id, now.size);
    files_.SetVersion(id, now);
    files_.ClearChanged(id);
    ++stats_.files_changed;
  }
  return ReplanAfterChange(lock);
}

Status Context::ReplanAfterChange(Lock &lock) {
  // Every prefetched byte goes (a piece may hold bytes of the old file, whichever file it
  // belongs to is cheap to tell but not worth the risk); the plan stays, in order, and its reads
  // are issued again once the reads still in flight, which may hold old bytes, have landed and
  // been dropped, as a refresh waits for them (DropFileLocked): with new reads of the same
  // ranges issued at once, one read of the engine kind on a whole-second file system came back
  // with old bytes (CoarseTimes, revalidate = on, 1 run in about 10).
  const AccessPlan saved = window_.plan();
  std::deque<Window::Entry> old = window_.Replace([](AccessPlan *) {});
  stats_.bytes_wasted += window_.DropEntries(&old);
  PruneQueue();
  if (!driver_->WaitUntil(lock, cfg_.timeout_ms, [&] { return scheduler_.in_flight() == 0; })) {
    return Status::TimedOut(
        Format("revalidate: %u prefetch reads still in flight after "
               "timeout_ms = %u",
               scheduler_.in_flight(), cfg_.timeout_ms));
  }
  Extent chunk[1024];
  for (uint64_t i = saved.front_index(); i < saved.end_index();) {
    size_t n = 0;
    for (; n < std::size(chunk) && i < saved.end_index(); ++n, ++i) chunk[n] = saved.at(i);
    window_.plan().Append(chunk, n);
  }
  Refill(false);
  return Status::Ok();
}

}  // namespace pfio
