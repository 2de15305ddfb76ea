#include "engine/engine.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "common/fs_type.h"
#include "engine/config.h"
#include "io/file_open.h"
#include "io/sync_backend.h"
#include "layout/lustre_layout.h"
#include "layout/striped_layout.h"
#include "partition/piece_mapper.h"
#include "partition/rounds.h"
#include "stats/stats_json.h"

namespace pfio {

namespace {
using ull = unsigned long long;
using Clock = std::chrono::steady_clock;
constexpr uint64_t kPage = BufferPool::kPage;
constexpr uint64_t kMiB = 1024 * 1024;
constexpr int kIoPollMs = 100;
constexpr size_t kPassthroughAhead = 64;
// The issue loop looks this far down the queue for a read that may go (a target at its limit or
// a policy hold must not block the others); staging looks as far for a target's next read.
constexpr size_t kIssueScan = 256;
// Staging pays only for large blocks (Barve Tables 4-6: a loss at 8-32 KiB).
constexpr uint64_t kStageMin = 64 * 1024;

uint64_t AlignDown(uint64_t v) {
  return v / kPage * kPage;
}
uint64_t AlignUp(uint64_t v) {
  return (v + kPage - 1) / kPage * kPage;
}
}  // namespace

Status Engine::Create(const Config &config, std::unique_ptr<Backend> backend,
                      std::unique_ptr<MemorySignals> signals, std::unique_ptr<Engine> *out) {
  Status s = ValidateConfig(config);
  if (!s.ok()) return s;
  if (!backend) {
    s = MakeBackend(config.backend, config.queue_depth, &backend);
    if (!s.ok()) return s;
  }
  if (config.stage == PFIO_STAGE_DEVICE && backend->device().AutoStage() != PFIO_STAGE_DEVICE) {
    return Status::Invalid(
        Format("stage = device: backend %s has no simulated drive cache; expected auto, "
               "none, poke or pagecache",
               backend->name()));
  }
  if (config.stage == PFIO_STAGE_LADVISE && backend->virtual_clock() != nullptr) {
    return Status::Invalid(
        Format("stage = ladvise: backend %s simulates disks, it has no Lustre files; expected "
               "auto, none or device",
               backend->name()));
  }
  if (!signals) signals = std::make_unique<ProcMemorySignals>();
  uint64_t limit = config.budget ? config.budget : MemoryTheRankMayUse();
  if (limit < 2 * kMiB) {
    return Status::NoMem(
        Format("memory available to this rank is %s: expected at least 2 MiB "
               "(set budget, or free memory)",
               Bytes(limit).c_str()));
  }
  std::unique_ptr<BufferPool> pool;
  s = BufferPool::Create(AlignDown(limit / 10 * 9), &pool);
  if (!s.ok()) return s;
  auto buffer = std::make_unique<ReorderBuffer>(std::move(pool));
  out->reset(new Engine(config, std::move(backend), std::move(signals), std::move(buffer), limit));
  return Status::Ok();
}

Engine::Engine(const Config &config, std::unique_ptr<Backend> backend,
               std::unique_ptr<MemorySignals> signals, std::unique_ptr<ReorderBuffer> buffer,
               uint64_t limit)
    : cfg_(config),
      backend_(std::move(backend)),
      clock_(backend_->virtual_clock()),
      buffer_(std::move(buffer)),
      memory_(limit, std::max<uint64_t>(4 * kMiB, config.max_request), config.aimd,
              std::move(signals)),
      window_(&files_, buffer_.get()),
      read_path_(&cfg_, &files_, &window_, buffer_.get(), backend_.get(), &stats_, this),
      stager_(config.stage, backend_->device().AutoStage(), config.target_stages) {
  stats_path_ = cfg_.stats_path;
  std::unique_ptr<StripedLayout> striped;
  if (!cfg_.layout.empty()) {
    if (cfg_.layout == kLustreLayout) {
      lustre_layout_pending_ = true;  // read from the first file opened
    } else if (!StripedLayout::Parse(cfg_.layout, &striped).ok()) {
      striped.reset();  // cannot happen: ValidateConfig parsed it
    }
  }
  UseLayout(std::move(striped));
  std::snprintf(stats_.policy, sizeof stats_.policy, "%s", IssuePolicy::Name(cfg_.policy));
  shape_.infill_max = cfg_.infill_max;
  shape_.max_request = std::min<uint64_t>(cfg_.max_request, AlignDown(memory_.cap()));
  if (cfg_.infill_max > 0) {
    void *p = nullptr;
    if (posix_memalign(&p, kPage, AlignUp(cfg_.infill_max)) == 0) discard_ = static_cast<char *>(p);
    if (discard_ == nullptr) shape_.infill_max = 0;
  }
  shape_.discard = discard_;
  std::snprintf(stats_.backend, sizeof stats_.backend, "%s", backend_->name());
  IoDriver::Hooks hooks;
  hooks.issue = [this](std::vector<IoRequest *> *submit, std::vector<StageCall> *stage) {
    IssueLocked(submit, stage);
  };
  hooks.complete = [this](IoRequest *req) { Complete(scheduler_.InFlight(req)); };
  hooks.stage_failed = [this](const Status &s) { stager_.Failed(s); };
  hooks.in_flight = [this] { return scheduler_.in_flight(); };
  driver_ = IoDriver::Make(backend_.get(), &mu_, std::move(hooks));
}

Engine::~Engine() {
  Shutdown();
  if (!abandoned_) free(discard_);  // else reads still in flight may fill infill gaps into it
}

Status Engine::Shutdown() {
  Lock lock(mu_);
  if (shut_down_) return Status::Ok();
  shut_down_ = true;
  Status result;
  stats_.bytes_wasted += window_.Clear();
  PruneQueue();
  if (!driver_->WaitUntil(lock, cfg_.timeout_ms, [&] { return scheduler_.in_flight() == 0; })) {
    result =
        Status::TimedOut(Format("closing the context: %u prefetch reads still in flight "
                                "after timeout_ms = %u; their memory is leaked, not freed",
                                scheduler_.in_flight(), cfg_.timeout_ms));
    abandoned_ = true;
  }
  driver_->Stop(lock, abandoned_);
  if (!result.ok()) {
    // Reads may still write into the buffer: never free it under them.
    (void)buffer_.release();
    (void)backend_.release();
  }
  if (backend_) files_.CloseAll(backend_.get());
  if (!stats_path_.empty()) {
    pfio_stats snapshot = SnapshotLocked();
    Status w = WriteStatsFile(stats_path_, snapshot, memory_.history());
    if (result.ok()) result = w;
  }
  return result;
}

// ---- files -------------------------------------------------------------------------------------

void Engine::UseLayout(std::unique_ptr<Layout> layout) {
  layout_ = std::move(layout);
  const uint32_t ntargets = layout_ ? layout_->targets() : 1;
  Scheduler::Shape shape;
  shape.policy = cfg_.policy;
  shape.horizon = cfg_.horizon;
  shape.forestall_factor = cfg_.forestall_factor;
  shape.targets = ntargets;
  shape.buses = layout_ ? layout_->buses() : 1;
  shape.queue_depth = cfg_.queue_depth;
  shape.target_reads =
      cfg_.target_reads
          ? cfg_.target_reads
          : std::min(cfg_.queue_depth, backend_->device().TargetDepth(cfg_.queue_depth, ntargets));
  shape.lookahead = cfg_.lookahead_rounds ? cfg_.lookahead_rounds : shape.target_reads;
  scheduler_.Configure(shape);
  stager_.Configure(ntargets);
}

Status Engine::OpenFile(const std::string &path, int32_t *id) {
  FileHandle h;
  Status s = backend_->Open(path, &h);
  if (!s.ok()) return s;
  if (lustre_layout_pending_) {
    // layout = lustre: the first file's striping is the context's (nothing is queued yet).
    std::unique_ptr<StripedLayout> striped;
    s = ReadLustreLayout(path, &striped);
    if (!s.ok()) {
      backend_->Close(&h);
      return Status(s.code(), "layout = lustre: " + s.message());
    }
    Lock lock(mu_);
    if (lustre_layout_pending_ && files_.empty()) UseLayout(std::move(striped));
    lustre_layout_pending_ = false;
  }
  if (stager_.mode() == PFIO_STAGE_LADVISE && !h.on_lustre) {
    const std::string fs = FsTypeName(h.buffered_fd);
    backend_->Close(&h);
    return Status::Invalid(Format(
        "stage = ladvise: %s is on %s, not Lustre; expected stage none, poke or pagecache for "
        "it",
        path.c_str(), fs.c_str()));
  }
  Lock lock(mu_);
  *id = files_.Add(h);
  return Status::Ok();
}

Status Engine::FileSize(int32_t id, uint64_t *size) {
  Lock lock(mu_);
  Status s = files_.Check(id, "file");
  if (s.ok()) *size = files_.size(id);
  return s;
}

Status Engine::CloseFile(int32_t id) {
  Lock lock(mu_);
  Status s = files_.Check(id, "file");
  if (!s.ok()) return s;
  stats_.bytes_wasted += window_.RemoveIf([id](const Extent &e) { return e.file == id; });
  PruneQueue();
  if (!driver_->WaitUntil(lock, cfg_.timeout_ms, [&] { return files_.in_flight(id) == 0; })) {
    return Status::TimedOut(
        Format("closing file %d (%s): %u prefetch reads still in flight "
               "after timeout_ms = %u; the file stays open",
               id, files_.handle(id).path.c_str(), files_.in_flight(id), cfg_.timeout_ms));
  }
  files_.Close(id, backend_.get());
  Refill(false);
  return Status::Ok();
}

// ---- plan --------------------------------------------------------------------------------------

Status Engine::PlanAppend(const pfio_extent *extents, size_t count) {
  Lock lock(mu_);
  std::vector<Extent> v;
  Status s = files_.CheckExtents(extents, count, &v);
  if (!s.ok()) return s;
  window_.plan().Append(v.data(), v.size());
  Refill(false);
  return Status::Ok();
}

Status Engine::ReplaceFrom(const Extent *extents, size_t count) {
  // New entries first, old references last, so pieces both plans need are kept, not re-read.
  std::deque<Window::Entry> old = window_.Replace(extents, count);
  Refill(true);
  stats_.bytes_wasted += window_.DropEntries(&old);
  PruneQueue();
  Refill(false);
  return Status::Ok();
}

Status Engine::PlanReplace(const pfio_extent *extents, size_t count) {
  Lock lock(mu_);
  std::vector<Extent> v;
  Status s = files_.CheckExtents(extents, count, &v);
  if (!s.ok()) return s;
  return ReplaceFrom(v.data(), v.size());
}

Status Engine::PlanReplaceAfterMark(const pfio_extent *extents, size_t count) {
  Lock lock(mu_);
  std::vector<Extent> v;
  Status s = files_.CheckExtents(extents, count, &v);
  if (!s.ok()) return s;
  size_t skip = window_.plan().ConsumedSinceMarkPrefix(v.data(), v.size());
  return ReplaceFrom(v.data() + skip, v.size() - skip);
}

Status Engine::PlanLastMark(pfio_extent *mark) {
  Lock lock(mu_);
  const AccessPlan &plan = window_.plan();
  if (!plan.last_mark()) return Status::State("no marked extent has been read yet");
  const Extent &e = *plan.last_mark();
  *mark = pfio_extent{e.file, 1, e.offset, e.length};
  return Status::Ok();
}

void Engine::PruneQueue() {
  scheduler_.Prune([this](PendingRead *pr) {
    for (Piece *p : pr->pieces) buffer_->Dropped(p);
    stager_.OnDropped(pr);
  });
}

// ---- window ------------------------------------------------------------------------------------

void Engine::SampleSignals() {
  if (memory_.Sample()) buffer_->ReleaseFreeMemory();
}

void Engine::Refill(bool force) {
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
  SampleSignals();
  const uint64_t budget = cfg_.window_mode == PFIO_WINDOW_BATCH
                              ? memory_.budget()
                              : std::max(kPage, memory_.budget() / 100 * cfg_.window_percent);
  // A sequential run: the kernel's readahead keeps up with it at no cost to our budget, and
  // copying it through the reorder buffer could only add overhead. At least this much must be
  // contiguous, so short plans and short runs are still prefetched.
  const uint64_t min_run = std::min(memory_.budget(), 2 * shape_.max_request);
  if (window_.TakeSequentialRun(memory_.budget(), min_run)) return;
  const uint64_t first_new = window_.end();
  Window::NewRanges pending;
  window_.Plan(budget, &pending);
  std::vector<Piece *> fresh;
  MapPieces(
      pending.by_file, layout_.get(), shape_.max_request,
      [this](int32_t f) { return files_.size(f); }, buffer_.get(), &fresh);
  window_.AssignRefs(first_new);
  if (fresh.empty()) return;
  std::vector<std::unique_ptr<PendingRead>> reads =
      BuildRequests(std::move(fresh), shape_, files_.handles());
  if (!stager_.resolved()) {
    uint64_t bytes = 0;
    for (const auto &pr : reads) bytes += pr->req.length;
    stager_.Resolve(bytes / reads.size(), scheduler_.targets(), backend_->device());
  }
  scheduler_.Enqueue(std::move(reads));
  ++stats_.windows;
  Wake();
}

void Engine::ConsumeFront(double stalled) {
  const uint64_t consumed = window_.plan().at(window_.plan().front_index()).length;
  stats_.bytes_wasted += window_.ConsumeFront();
  const double now = Now();
  if (last_consume_ >= 0) scheduler_.Consumed(now - last_consume_ - stalled);
  last_consume_ = now;
  if (memory_.WaitOver(Held())) {
    Wake();
  } else if (scheduler_.policy_held()) {
    Wake();  // the cursor moved: a held read may be due now
  }
  memory_.Consumed(consumed);
  Refill(false);
}

// ---- reads -------------------------------------------------------------------------------------

Status Engine::Read(int32_t id, void *buf, uint64_t offset, uint64_t length, uint64_t *nread) {
  Lock lock(mu_);
  return read_path_.Read(lock, id, buf, offset, length, nread);
}

Status Engine::ReadV(int32_t id, const pfio_read_piece *pieces, size_t count, uint64_t *nread) {
  Lock lock(mu_);
  return read_path_.ReadV(lock, id, pieces, count, nread);
}

Status Engine::Release(int32_t id, uint64_t offset, uint64_t length) {
  Lock lock(mu_);
  Status s = files_.Check(id, "file");
  if (!s.ok()) return s;
  const uint64_t end = length > UINT64_MAX - offset ? UINT64_MAX : offset + length;
  stats_.bytes_wasted += window_.RemoveIf(
      [&](const Extent &e) { return e.file == id && e.offset >= offset && e.end() <= end; });
  PruneQueue();
  Refill(false);
  return Status::Ok();
}

Status Engine::Ignore() {
  Lock lock(mu_);
  read_path_.Ignore();
  return Status::Ok();
}

Status Engine::Unignore() {
  Lock lock(mu_);
  return read_path_.Unignore();
}

// ---- I/O thread --------------------------------------------------------------------------------

uint64_t Engine::Held() const {
  // The plan beyond the window is the application's list (sizeof(Extent) per extent): not
  // charged here, as windows are planned without it.
  return buffer_->in_use() + MemoryGovernor::Metadata(window_.size(), buffer_->piece_count());
}

bool Engine::AllocatePieces(PendingRead *pr) {
  for (size_t i = 0; i < pr->pieces.size(); ++i) {
    if (!buffer_->Allocate(pr->pieces[i])) {
      for (size_t j = 0; j < i; ++j) buffer_->FreePages(pr->pieces[j]);  // all or nothing
      return false;
    }
  }
  stats_.memory_peak = std::max(stats_.memory_peak, buffer_->in_use());
  return true;
}

void Engine::Hurry(PendingRead *pr) {
  const bool behind_stage = stager_.staged(pr->target) > 0 && !pr->staged;
  scheduler_.MakeUrgent(pr, [&](const PendingRead *q) { return behind_stage && q->staged; });
  Wake();
}

void Engine::HurryAll() {
  scheduler_.MakeAllUrgent();
  Wake();
}

bool Engine::BatchLanded() const {
  return scheduler_.queue_empty() && scheduler_.in_flight() == 0;
}

bool Engine::WaitUntil(Lock &lock, const std::function<bool()> &done) {
  return driver_->WaitUntil(lock, cfg_.timeout_ms, done);
}

std::string Engine::Describe() const {
  return Format("%u reads in flight, %zu queued, %s of %s budget in use on backend %s",
                scheduler_.in_flight(), scheduler_.queued(), Bytes(buffer_->in_use()).c_str(),
                Bytes(memory_.budget()).c_str(), backend_->name());
}

void Engine::Wake() {
  driver_->Wake();
}

void Engine::Complete(PendingRead *pr) {
  const int64_t res = pr->req.result;
  files_.ReadLanded(pr->file);
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

bool Engine::EvictFor(const PendingRead *pr) {
  // Only under pressure: the budget was cut below what the window was planned with. (Batch
  // windows are fetched whole by design; without a cut, consumption frees memory soon enough.)
  if (cfg_.window_mode == PFIO_WINDOW_BATCH || memory_.budget() >= window_.budget()) return false;
  while (!memory_.Fits(Held(), pr->piece_bytes)) {
    Piece *victim = MemoryGovernor::Victim(*buffer_, pr->first_use);
    if (victim == nullptr) return false;
    buffer_->Evict(victim);
    ++stats_.evictions;
    stats_.bytes_evicted += victim->length;
    scheduler_.Requeue(BuildRequests({victim}, shape_, files_.handles()));
  }
  return true;
}

void Engine::IssueLocked(std::vector<IoRequest *> *submit, std::vector<StageCall> *stage) {
  // Memory is taken when a read is issued, within the budget. A read the application waits
  // for goes out even above a budget that was just cut (it then only exceeds the budget the
  // window was planned with, never the pool), so a cut never stalls progress.
  auto admit = [&](PendingRead *pr) {
    const bool fits = memory_.Fits(Held(), pr->piece_bytes);
    // Blocked on memory: is it pressure? (Windows sample too; this catches a cut in between.)
    if (!fits && memory_.SampleIfDue(Now())) buffer_->ReleaseFreeMemory();
    if ((!fits && !EvictFor(pr) && !pr->urgent) || !AllocatePieces(pr)) {
      memory_.Wait(pr->piece_bytes);
      return false;
    }
    return true;
  };
  auto issued = [&](PendingRead *pr) {
    stager_.OnIssue(pr, scheduler_.queue(), stage);
    FillIov(pr, shape_);
    for (Piece *p : pr->pieces) buffer_->Issued(p);
    files_.ReadIssued(pr->file);
  };
  scheduler_.Issue(window_.plan().front_index(), Now(), admit, issued, submit);
}

// ---- stats -------------------------------------------------------------------------------------

pfio_stats Engine::SnapshotLocked() const {
  pfio_stats s = stats_;
  s.budget_bytes = memory_.budget();
  s.budget_cap = memory_.cap();
  s.budget_cuts = memory_.cuts();
  s.memory_in_use = buffer_ ? buffer_->in_use() : 0;
  s.policy_holds = scheduler_.policy_holds();
  s.stages = stager_.stages();
  s.stages_small = stager_.stages_small();
  std::snprintf(s.stage_mode, sizeof s.stage_mode, "%s", StageName(stager_.mode()));
  std::snprintf(s.stage_note, sizeof s.stage_note, "%s", stager_.note().c_str());
  return s;
}

pfio_stats Engine::Stats() {
  Lock lock(mu_);
  return SnapshotLocked();
}

Status Engine::WriteStats(const std::string &path) {
  Lock lock(mu_);
  return WriteStatsFile(path, SnapshotLocked(), memory_.history());
}

}  // namespace pfio
