#include "engine/context.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "common/fs_type.h"
#include "common/page.h"
#include "engine/buffer_rule.h"
#include "engine/config.h"
#include "io/file_open.h"
#include "io/page_cache_backend.h"
#include "io/sync_backend.h"
#include "layout/lustre_layout.h"
#include "layout/striped_layout.h"
#include "partition/piece_mapper.h"
#include "partition/rounds.h"
#include "stats/stats_json.h"

namespace pfio {

namespace {
using ull = unsigned long long;
constexpr uint64_t kMiB = 1024 * 1024;

}  // namespace

Status Context::Create(const Config &config, std::unique_ptr<Backend> backend,
                       std::unique_ptr<MemorySignals> signals, std::unique_ptr<Context> *out) {
  Status s = ValidateConfig(config);
  if (!s.ok()) return s;
  if (!backend) {
    s = MakeBackend(config.backend, config.queue_depth, &backend);
    if (!s.ok()) return s;
  }
  PageCacheBackend *page_cache = nullptr;
  if (backend->virtual_clock() == nullptr) {
    // The page-cache buffer kind beside the backend's own reads.
    auto wrapped = std::make_unique<PageCacheBackend>(std::move(backend));
    page_cache = wrapped.get();
    backend = std::move(wrapped);
  } else if (config.buffer == PFIO_BUFFER_CACHE) {
    return Status::Invalid(
        Format("buffer = cache: backend %s simulates disks, it has no page "
               "cache; expected buffer = engine",
               backend->name()));
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
  std::unique_ptr<NodeShare> node;  // the real machine: the node's other pfio processes too
  MemorySample first;               // on the real machine: its memory now, read once
  uint64_t limit = config.budget;
  if (!signals) {
    signals =
        std::make_unique<ProcMemorySignals>(MemorySignalSources::Own(), config.reserve_percent);
    node = std::make_unique<NodeRegistry>();
    if (limit == 0) {
      // MemoryTheRankMayUse from a sample (the same reserve and cgroup rule) that the governor
      // then starts from; one sample serves the contexts a process creates within a sampling
      // period (docs/small-calls.md, "The cost of an open"); a given budget needs no sample
      // here, its first is taken at the first read
      first = RecentSample(signals.get(), config.reserve_percent, MemoryGovernor::kSampleEvery);
      limit = first.total > 0 ? first.headroom : 0;
    }
  } else if (limit == 0) {
    limit = MemoryTheRankMayUse(config.reserve_percent);
  }
  if (limit < 2 * kMiB) {
    return Status::NoMem(
        Format("memory available to this rank is %s: expected at least 2 MiB "
               "(set budget, or free memory)",
               Bytes(limit).c_str()));
  }
  std::unique_ptr<BufferPool> pool;
  s = BufferPool::Create(AimdController::Cap(limit), &pool, config.huge_pages);
  if (!s.ok()) return s;
  auto buffer = std::make_unique<ReorderBuffer>(std::move(pool));
  out->reset(new Context(config, std::move(backend), page_cache, std::move(signals),
                         std::move(node), std::move(buffer), limit,
                         first.total > 0 ? &first : nullptr));
  return Status::Ok();
}

Context::Context(const Config &config, std::unique_ptr<Backend> backend,
                 PageCacheBackend *page_cache, std::unique_ptr<MemorySignals> signals,
                 std::unique_ptr<NodeShare> node, std::unique_ptr<ReorderBuffer> buffer,
                 uint64_t limit, const MemorySample *first)
    : cfg_(config),
      backend_(std::move(backend)),
      cache_backend_(page_cache),
      clock_(backend_->virtual_clock()),
      buffer_(std::move(buffer)),
      memory_(limit, std::max<uint64_t>(4 * kMiB, config.max_request), config.aimd,
              std::move(signals), std::move(node), /*share_node=*/config.budget == 0,
              /*clock=*/nullptr, first),
      window_(&files_, buffer_.get()),
      read_path_(&cfg_, &files_, &window_, buffer_.get(), backend_.get(), &stats_, this),
      stager_(config.stage, backend_->device().AutoStage(), config.target_stages) {
  stats_path_ = cfg_.stats_path;
  // Pieces held in the page cache leave it when they leave the budget (called with mu_ held).
  buffer_->SetCacheRelease(
      [this](const Extent &r) {
        if (cache_backend_ != nullptr && files_.IsOpen(r.file))
          cache_backend_->Release(files_.handle(r.file), r.offset, r.length);
      },
      cfg_.cache_release);
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
  const bool auto_infill = cfg_.infill_max == kInfillAuto;
  shape_.infill_max = auto_infill ? kInfillLocal : cfg_.infill_max;
  shape_.infill_remote = auto_infill ? kInfillRemote : cfg_.infill_max;
  shape_.cache_release = cfg_.cache_release;
  shape_.max_request = std::min<uint64_t>(cfg_.max_request, PageAlignDown(memory_.cap()));
  shape_.cache_max_request = std::max(
      shape_.max_request, std::min<uint64_t>(kCacheMaxRequest, PageAlignDown(memory_.cap() / 8)));
  if (const uint64_t gap = std::max(shape_.infill_max, shape_.infill_remote); gap > 0) {
    void *p = nullptr;
    if (posix_memalign(&p, kPage, PageAlignUp(gap)) == 0) discard_ = static_cast<char *>(p);
    if (discard_ == nullptr) shape_.infill_max = shape_.infill_remote = 0;
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

Context::~Context() {
  Shutdown();
  if (!abandoned_) free(discard_);  // else reads still in flight may fill infill gaps into it
}

bool Context::DrainLocked(Lock &lock) {
  stats_.bytes_wasted += window_.Clear();
  PruneQueue();
  return !drain_timed_out_ &&
         driver_->WaitUntil(lock, cfg_.timeout_ms, [&] { return scheduler_.in_flight() == 0; });
}

Status Context::WriteStatsPathLocked() {
  if (stats_path_.empty()) return Status::Ok();
  return WriteStatsFile(stats_path_, SnapshotLocked(), memory_.history(),
                        "stats_path (PFIO_STATS, PFIO_STATS_PATH, or the setting "
                        "\"stats_path\" / hint prefetch_stats_path)");
}

Status Context::Shutdown() {
  Lock lock(mu_);
  if (shut_down_) return Status::Ok();
  shut_down_ = true;
  Status result;
  if (!DrainLocked(lock)) {
    result =
        Status::TimedOut(Format("closing the context: %u prefetch reads still in flight "
                                "after timeout_ms = %u; their memory is leaked, not freed",
                                scheduler_.in_flight(), cfg_.timeout_ms));
    abandoned_ = true;
  }
  if (!abandoned_) backend_->BeginStop();  // its threads leave beside the driver's
  driver_->Stop(lock, abandoned_);
  if (!result.ok()) {
    // Reads may still write into the buffer: never free it under them.
    (void)buffer_.release();
    (void)backend_.release();
  }
  if (backend_) {
    if (buffer_) buffer_->FlushReleases();
    files_.CloseAll(backend_.get());
  }
  if (!vacant_) {
    if (Status w = WriteStatsPathLocked(); result.ok()) result = w;
  }
  return result;
}

Status Context::Vacate(bool *vacated) {
  Lock lock(mu_);
  *vacated = false;
  // A Lustre layout is read from the context's first file; a simulated clock keeps the
  // simulator's runs deterministic from a fresh context.
  if (shut_down_ || cfg_.layout == kLustreLayout || clock_ != nullptr || read_path_.ignoring())
    return Status::Ok();
  if (!DrainLocked(lock)) {
    drain_timed_out_ = true;
    return Status::Ok();
  }
  buffer_->FlushReleases();
  for (const int32_t id : files_.open_ids()) buffer_->ForgetFile(id);
  files_.CloseAll(backend_.get());
  const Status written = WriteStatsPathLocked();
  memory_.Charge(0);
  memory_.LeaveNode();
  buffer_->ReleaseFreeMemory();
  // The next user's counts start at zero; those kept outside stats_ are counted from here.
  counted_before_ = SnapshotLocked();
  const pfio_stats named = stats_;
  stats_ = pfio_stats{};
  std::memcpy(stats_.policy, named.policy, sizeof stats_.policy);
  vacant_ = *vacated = true;
  return written;
}

void Context::Occupy() {
  Lock lock(mu_);
  vacant_ = false;
  memory_.RejoinNode();
}

// ---- files -------------------------------------------------------------------------------------

void Context::UseLayout(std::unique_ptr<Layout> layout) {
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

// buffer = auto: the kind buffer_rule.h chooses from the file system holding the file (statfs)
// and from what the open finds out. On remote storage that refuses O_DIRECT the file, opened for
// O_DIRECT first, is opened again in the page cache from the first open's descriptor.
Status Context::OpenByRule(const FileSource &source, FileHandle *h) {
  BufferFacts facts;
  facts.page_cache = cache_backend_ != nullptr;
  // not looked at: opened as local, the open says why
  facts.remote = source.fd >= 0 ? OnRemoteStorage(source.fd) : PathOnRemoteStorage(source.path);
  if (ChooseBufferKind(facts).kind == PFIO_BUFFER_CACHE)
    return cache_backend_->OpenCached(source, h);
  Status s = backend_->Open(source, h);
  if (!s.ok() || !facts.page_cache) return s;
  facts.direct = h->o_direct;
  if (ChooseBufferKind(facts).kind == PFIO_BUFFER_ENGINE) return s;
  FileHandle cached;
  s = cache_backend_->OpenCached(FileSource(source.path, h->buffered_fd), &cached);
  backend_->Close(h);
  *h = cached;
  return s;
}

Status Context::OpenFile(const FileSource &source, int32_t *id) {
  const std::string &path = source.path;
  FileHandle h;
  Status s = cfg_.buffer == PFIO_BUFFER_AUTO ? OpenByRule(source, &h)
             : cfg_.buffer == PFIO_BUFFER_CACHE && cache_backend_ != nullptr
                 ? cache_backend_->OpenCached(source, &h)
                 : backend_->Open(source, &h);
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
  FileVersion version;
  const bool versioned = backend_->Version(h, &version).ok();
  Lock lock(mu_);
  *id = files_.Add(h);
  if (versioned) files_.SetVersion(*id, version);
  return Status::Ok();
}

Status Context::FileSize(int32_t id, uint64_t *size) {
  Lock lock(mu_);
  Status s = files_.Check(id, "file");
  if (s.ok()) *size = files_.size(id);
  return s;
}

Status Context::FileBuffer(int32_t id, int *page_cache) {
  Lock lock(mu_);
  Status s = files_.Check(id, "file");
  if (s.ok()) *page_cache = files_.kind(id).id() == PFIO_BUFFER_CACHE ? 1 : 0;
  return s;
}

// Every planned and buffered byte of file `id` goes; its reads in flight land and are dropped
// (bounded by timeout_ms; `doing` names the call in the error).
Status Context::DropFileLocked(Lock &lock, int32_t id, const char *doing) {
  stats_.bytes_wasted += window_.RemoveIf([id](const Extent &e) { return e.file == id; });
  PruneQueue();
  if (!driver_->WaitUntil(lock, cfg_.timeout_ms, [&] { return files_.in_flight(id) == 0; })) {
    return Status::TimedOut(
        Format("%s file %d (%s): %u prefetch reads still in flight after "
               "timeout_ms = %u; the file stays open",
               doing, id, files_.handle(id).path.c_str(), files_.in_flight(id), cfg_.timeout_ms));
  }
  buffer_->FlushReleases();  // the file's pieces are gone: their pages leave while it is open
  return Status::Ok();
}

Status Context::CloseFile(int32_t id) {
  Lock lock(mu_);
  Status s = files_.Check(id, "file");
  if (s.ok()) s = DropFileLocked(lock, id, "closing");
  if (!s.ok()) return s;
  files_.Close(id, backend_.get());
  buffer_->ForgetFile(id);
  Refill(false);
  return Status::Ok();
}

Status Context::RefreshFile(int32_t id) {
  Lock lock(mu_);
  Status s = files_.Check(id, "file");
  return s.ok() ? RefreshLocked(lock, id, "refreshing") : s;
}

Status Context::RefreshLocked(Lock &lock, int32_t id, const char *doing) {
  Status s = DropFileLocked(lock, id, doing);
  uint64_t size = 0;
  if (s.ok()) s = backend_->CurrentSize(files_.handle(id), &size);
  if (!s.ok()) return s;
  files_.SetSize(id, size);
  // Taken after the drop: a change from now on moves the times past this version's.
  FileVersion version;
  if (backend_->Version(files_.handle(id), &version).ok()) files_.SetVersion(id, version);
  files_.ClearChanged(id);
  Refill(false);
  return Status::Ok();
}

// ---- reads -------------------------------------------------------------------------------------

template <class ReadFn>
Status Context::Reading(uint64_t *nread, ReadFn read) {
  Lock lock(mu_);
  Status s = RevalidateIfDue(lock);
  if (!s.ok()) {
    *nread = 0;
    return s;
  }
  return read(lock);
}

Status Context::Read(int32_t id, void *buf, uint64_t offset, uint64_t length, uint64_t *nread) {
  return Reading(nread,
                 [&](Lock &lock) { return read_path_.Read(lock, id, buf, offset, length, nread); });
}

Status Context::ReadV(int32_t id, const pfio_read_piece *pieces, size_t count, uint64_t *nread) {
  return Reading(nread,
                 [&](Lock &lock) { return read_path_.ReadV(lock, id, pieces, count, nread); });
}

Status Context::ReadDone(int32_t id, uint64_t offset, uint64_t length, uint64_t *nread) {
  return Reading(nread,
                 [&](Lock &lock) { return read_path_.ReadDone(lock, id, offset, length, nread); });
}

Status Context::Release(int32_t id, uint64_t offset, uint64_t length) {
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

Status Context::ChargeMemory(uint64_t bytes) {
  Lock lock(mu_);
  if (bytes > memory_.cap() / 2)
    return Status::Invalid(Format(
        "pfio_memory_charge: %s is more than half the budget's cap "
        "(%s): expected at most %s",
        Bytes(bytes).c_str(), Bytes(memory_.cap()).c_str(), Bytes(memory_.cap() / 2).c_str()));
  memory_.Charge(bytes);
  return Status::Ok();
}

uint64_t Context::MemoryCap() {
  Lock lock(mu_);
  return memory_.cap();
}

uint64_t Context::MemoryBudget() {
  Lock lock(mu_);
  return memory_.budget();
}

Status Context::Ignore() {
  Lock lock(mu_);
  read_path_.Ignore();
  return Status::Ok();
}

Status Context::Unignore() {
  Lock lock(mu_);
  return read_path_.Unignore();
}

// ---- I/O thread --------------------------------------------------------------------------------

// ---- stats -------------------------------------------------------------------------------------

pfio_stats Context::SnapshotLocked() const {
  pfio_stats s = stats_;
  const pfio_stats &before = counted_before_;
  std::snprintf(s.backend, sizeof s.backend, "%s", backend_->name());  // may change at an open
  s.budget_bytes = memory_.budget();
  s.budget_cap = memory_.cap();
  s.budget_cuts = memory_.cuts() - before.budget_cuts;
  s.memory_in_use = buffer_ ? buffer_->in_use() : 0;
  s.memory_charged = memory_.charged();
  if (cache_backend_ != nullptr) {
    const AheadCounts ahead = cache_backend_->ahead_counts();
    s.advised_now = ahead.ranges - before.advised_now;
    s.advised_inline = ahead.inline_ - before.advised_inline;
    s.advised_dropped = ahead.dropped - before.advised_dropped;
    s.advised_now_bytes = ahead.bytes - before.advised_now_bytes;
    s.advice_failed = cache_backend_->advice_failed() - before.advice_failed;
  }
  s.policy_holds = scheduler_.policy_holds() - before.policy_holds;
  s.stages = stager_.stages() - before.stages;
  s.stages_small = stager_.stages_small() - before.stages_small;
  std::snprintf(s.stage_mode, sizeof s.stage_mode, "%s", StageName(stager_.mode()));
  std::snprintf(s.stage_note, sizeof s.stage_note, "%s", stager_.note().c_str());
  return s;
}

pfio_stats Context::Stats() {
  Lock lock(mu_);
  return SnapshotLocked();
}

Status Context::WriteStats(const std::string &path) {
  Lock lock(mu_);
  return WriteStatsFile(path, SnapshotLocked(), memory_.history(), "pfio_stats_write: path");
}

}  // namespace pfio
