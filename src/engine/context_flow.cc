// The flows between the Context's parts: planning a window, issuing what the Admission lets
// take memory, landing completions, consuming plan entries.
#include <algorithm>

#include "common/page.h"
#include "engine/context.h"
#include "partition/piece_mapper.h"

namespace pfio {

namespace {
// A run handed to readahead needs only this many entries of look-ahead to see where it ends.
constexpr size_t kPassthroughAhead = 64;
}  // namespace

void Context::PruneQueue() {
  scheduler_.Prune([this](PendingRead *pr) {
    for (Piece *p : pr->pieces) buffer_->Dropped(p);
    stager_.OnDropped(pr);
  });
}

void Context::Refill(bool force) {
  if (driver_->stopped() || !window_.has_more()) return;
  if (cfg_.window_mode == PFIO_WINDOW_BATCH) {
    if (!window_.empty()) return;
  } else if (!force && !window_.empty()) {
    // A run handed to readahead needs only enough look-ahead to see where it ends.
    if (window_.PassthroughAhead(kPassthroughAhead)) return;
    // The next window is planned once every read of the last one has been issued; its reads
    // then go out, in offset order, as consumption frees memory.
    if (!scheduler_.queue_empty()) return;
  }
  // The page-cache kind advises in batches (up to its UnreadCap of the room advised and not yet
  // consumed, refilled at half; a window that took the whole plan, refilled at half of it) so
  // that a batch's reads overlap the next one's advice, and a plan that grows by a call per
  // call (the collective layer's look-ahead) wakes the advice thread every few calls, not at
  // each (docs/architecture.md, "Two buffer kinds"). Checked before the memory signals are
  // sampled: this return is taken at nearly every read.
  const BufferKind &next_kind = files_.kind(window_.plan().at(window_.end()).file);
  const bool batch_window = cfg_.window_mode == PFIO_WINDOW_BATCH;
  const uint64_t batch = batch_window ? UINT64_MAX : next_kind.UnreadCap(memory_.prefetch_budget());
  if (batch != UINT64_MAX && !force && !window_.empty() &&
      2 * window_.unread_bytes() > std::min(batch, batch_unread_))
    return;
  admission_.Sample(Now());
  const uint64_t room = memory_.prefetch_budget();
  const uint64_t unread_cap = batch_window ? UINT64_MAX : next_kind.UnreadCap(room);
  // The page-cache kind's requests charge the gaps they advise (partition/request_builder.h),
  // which the window does not see: it plans less by the last window's ratio.
  const uint64_t budget = static_cast<uint64_t>(
      static_cast<double>(batch_window ? room : std::max(kPage, room / 100 * cfg_.window_percent)) /
      gap_expansion_);
  // A sequential run: the kernel's readahead keeps up with it at no cost to our budget, and
  // copying it through the reorder buffer could only add overhead. At least this much must be
  // contiguous, so short plans and short runs are still prefetched.
  const uint64_t min_run = std::min(room, 2 * shape_.max_request);
  if (window_.TakeSequentialRun(room, min_run)) return;
  const uint64_t first_new = window_.end();
  Window::NewRanges pending;
  window_.Plan(budget, &pending, unread_cap);
  // A window the plan's end limited is refilled at half of it; one the budget or the batch
  // limited, by the batch rule alone (a window smaller than the batch then tops up at each read)
  batch_unread_ = window_.has_more() ? UINT64_MAX : window_.unread_bytes();
  // Each file's new ranges as its kind holds them (the page-cache kind: joined into spans, one
  // piece and one advice each, gaps included: partition/request_builder.h), then its pieces.
  uint64_t advice_gaps = 0;
  std::vector<Piece *> held, fresh;
  auto size = [this](int32_t f) { return files_.size(f); };
  for (auto &[file, ranges] : pending.Sorted()) {
    const BufferKind &kind = files_.kind(file);
    auto holds = [&, file = file](uint64_t begin, uint64_t end) {
      held.clear();
      buffer_->Overlapping(file, begin, end, &held);
      return !held.empty();
    };
    RangesByFile pieces;
    pieces.emplace(file, kind.PieceRanges(std::move(ranges), files_.handle(file), shape_, holds,
                                          &advice_gaps));
    MapPieces(pieces, layout_.get(), kind.MaxPiece(shape_), size, buffer_.get(), &fresh,
              kind.by_range());
  }
  window_.AssignRefs(first_new);
  if (fresh.empty()) return;
  std::vector<std::unique_ptr<PendingRead>> reads =
      BuildRequests(std::move(fresh), files_.handles(), files_.Joins(shape_));
  uint64_t charged = 0;
  for (const auto &pr : reads) charged += pr->piece_bytes;
  const uint64_t planned = charged - advice_gaps;
  gap_expansion_ = planned > 0 ? static_cast<double>(charged) / static_cast<double>(planned) : 1;
  if (!stager_.resolved()) {
    uint64_t bytes = 0;
    for (const auto &pr : reads) bytes += pr->req.length;
    stager_.Resolve(bytes / reads.size(), scheduler_.targets(), backend_->device());
  }
  scheduler_.Enqueue(std::move(reads));
  ++stats_.windows;
  Wake();
}

void Context::ConsumeFront(double stalled) {
  const uint64_t consumed = window_.plan().front().length;
  stats_.bytes_wasted += window_.ConsumeFront();
  if (scheduler_.times_consumption()) {  // a clock read less per read where nothing uses it
    const double now = Now();
    if (last_consume_ >= 0) scheduler_.Consumed(now - last_consume_ - stalled);
    last_consume_ = now;
  }
  if (memory_.waiting() && memory_.WaitOver(admission_.Held())) {
    Wake();
  } else if (scheduler_.policy_held()) {
    Wake();  // the cursor moved: a held read may be due now
  }
  memory_.Consumed(consumed);
  Refill(false);
}

void Context::Hurry(PendingRead *pr) {
  const bool behind_stage = stager_.staged(pr->target) > 0 && !pr->staged;
  scheduler_.MakeUrgent(pr, [&](const PendingRead *q) { return behind_stage && q->staged; });
  Wake();
}

void Context::HurryAll() {
  scheduler_.MakeAllUrgent();
  Wake();
}

bool Context::BatchLanded() const {
  return scheduler_.queue_empty() && scheduler_.in_flight() == 0;
}

bool Context::WaitUntil(Lock &lock, const std::function<bool()> &done) {
  return driver_->WaitUntil(lock, cfg_.timeout_ms, done);
}

std::string Context::Describe() const {
  return Format("%u reads in flight, %zu queued, %s of %s budget in use on backend %s",
                scheduler_.in_flight(), scheduler_.queued(), Bytes(buffer_->in_use()).c_str(),
                Bytes(memory_.budget()).c_str(), backend_->name());
}

void Context::Wake() {
  driver_->Wake();
}

void Context::Complete(PendingRead *pr) {
  const int64_t res = pr->req.result;
  files_.ReadLanded(pr->file);
  admission_.Landed(pr);
  ++stats_.requests;
  bool short_read = false;
  if (res < 0) {
    ++stats_.io_errors;
  } else {
    stats_.bytes_read += static_cast<uint64_t>(res);
    stats_.bytes_wasted += std::min<uint64_t>(pr->gap_bytes, static_cast<uint64_t>(res));
  }
  const uint64_t got = res > 0 ? static_cast<uint64_t>(res) : 0;
  for (Piece *p : pr->pieces) {
    const uint64_t rel = p->offset - pr->req.offset;
    const uint64_t valid = got > rel ? std::min(got - rel, p->length) : 0;
    const bool ready = res >= 0 && valid >= p->expected;
    if (!ready && res >= 0) short_read = true;
    stats_.bytes_wasted += buffer_->Landed(p, ready, res < 0 ? static_cast<int>(-res) : 0);
  }
  if (short_read) ++stats_.io_errors;
  scheduler_.Landed(pr, Now());  // last: the read is destroyed
}

void Context::IssueLocked(std::vector<IoRequest *> *submit, std::vector<StageCall> *stage) {
  // Memory is taken when a read is issued, within the budget. A read the application waits
  // for goes out even above a budget that was just cut (it then only exceeds the budget the
  // window was planned with, never the pool), so a cut never stalls progress.
  auto admit = [&](PendingRead *pr) { return admission_.Admit(pr, Now()); };
  auto issued = [&](PendingRead *pr) {
    stager_.OnIssue(pr, scheduler_.queue(), stage);
    files_.kind(pr->file).Prepare(pr, shape_);
    for (Piece *p : pr->pieces) buffer_->Issued(p);
    admission_.Issued(pr);
    files_.ReadIssued(pr->file);
  };
  scheduler_.Issue(window_.plan().front_index(), Now(), admit, issued, submit);
}

}  // namespace pfio
