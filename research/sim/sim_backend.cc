#include "sim/sim_backend.h"

#include <unistd.h>

#include <algorithm>
#include <limits>
#include <span>

#include "io/sync_backend.h"
#include "sim/barve_model.h"
#include "testdata/pattern.h"

namespace pfio {

namespace {
using ull = unsigned long long;
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

Status SimBackend::Create(const SimBackendOptions &options, std::unique_ptr<SimBackend> *out) {
  if (options.disk.rpm <= 0) {
    return Status::Invalid("sim backend: no disk parameters (expected cheetah, barracuda or wren)");
  }
  if (options.disks < 1 || options.disks > 1024) {
    return Status::Invalid(Format("sim backend: disks = %u: expected 1 .. 1024", options.disks));
  }
  if (options.buses < 1 || options.buses > options.disks) {
    return Status::Invalid(
        Format("sim backend: buses = %u: expected 1 .. disks (%u)", options.buses, options.disks));
  }
  if (options.stripe == 0 || options.stripe % 4096 != 0) {
    return Status::Invalid(
        Format("sim backend: stripe = %llu: expected a multiple of 4096", (ull)options.stripe));
  }
  if (options.fence > 255) {
    return Status::Invalid(Format("sim backend: fence = %u: expected 0 .. 255", options.fence));
  }
  const int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) return Status::Io("sim backend: eventfd failed");
  out->reset(new SimBackend(options, fd));
  return Status::Ok();
}

SimBackend::SimBackend(const SimBackendOptions &o, int event_fd)
    : o_(o), event_fd_(event_fd), array_(o.disk, o.disks, o.buses, o.fence, o.seed) {
  stats_.reads_per_disk.assign(o.disks, 0);
}

SimBackend::~SimBackend() {
  close(event_fd_);
}

void SimBackend::AddFile(const std::string &path, uint64_t size) {
  files_[path] = size;
}

Status SimBackend::Open(const FileSource &source, FileHandle *out) {
  const std::string &path = source.path;
  auto it = files_.find(path);
  if (it == files_.end()) {
    return Status::BadFile(
        Format("sim backend: no virtual file \"%s\" (%zu added; add it with SimBackend::AddFile)",
               path.c_str(), files_.size()));
  }
  *out = FileHandle{};
  out->path = path;
  out->size = it->second;
  return Status::Ok();
}

uint32_t SimBackend::Command(DiskCommand::Kind kind, uint64_t offset, uint64_t length,
                             uint64_t tag) {
  const double ready = array_.now() + o_.disk.host_ms / 1000;
  uint32_t parts = 0;
  for (uint64_t pos = offset; pos < offset + length;) {
    const uint64_t index = pos / o_.stripe, within = pos % o_.stripe;
    const uint64_t n = std::min(offset + length - pos, o_.stripe - within);
    DiskCommand c;
    c.kind = kind;
    c.disk = static_cast<uint32_t>(index % o_.disks);
    c.position = (index / o_.disks) * o_.stripe + within;
    c.bytes = n;
    c.ready = ready;
    c.tag = tag;
    array_.Submit(c);
    ++parts;
    pos += n;
    if (kind == DiskCommand::Kind::kStage) break;  // a stage loads the block's first stripe
  }
  return parts;
}

Status SimBackend::Submit(IoRequest *req) {
  if (req->length == 0) {
    return Status::Invalid("sim backend: a read of 0 bytes: expected at least 1");
  }
  const uint64_t tag = next_tag_++;
  Pending &p = pending_[tag];
  p.req = req;
  p.parts = Command(DiskCommand::Kind::kRead, req->offset, req->length, tag);
  return Status::Ok();
}

void SimBackend::Land(const DiskCompletion &c) {
  if (c.stage) return;  // the one-sector reply to a stage is dropped
  auto it = pending_.find(c.tag);
  if (it == pending_.end()) return;
  Pending &p = it->second;
  if (p.req != nullptr) {
    ++stats_.reads_per_disk[c.disk];
    stats_.completion_disks.push_back(c.disk);
    if (c.from_cache) ++stats_.from_cache;
  }
  if (--p.parts > 0) return;
  if (p.req == nullptr) {
    p.done = true;  // a direct read: ReadBuffer collects it
    return;
  }
  IoRequest *req = p.req;
  pending_.erase(it);
  const uint64_t size = req->file->size;
  const uint64_t valid = req->offset >= size ? 0 : std::min(req->length, size - req->offset);
  uint64_t at = req->offset;
  for (const iovec &v : req->iov) {
    const uint64_t n =
        at < req->offset + valid ? std::min<uint64_t>(v.iov_len, req->offset + valid - at) : 0;
    if (n > 0) FillPattern(v.iov_base, at, n, o_.data_seed);
    at += v.iov_len;
  }
  req->result = static_cast<int64_t>(valid);
  ++stats_.reads;
  done_.push_back(req);
  SignalEventFd(event_fd_);
}

void SimBackend::Reap(std::vector<IoRequest *> *done) {
  uint64_t v;
  while (read(event_fd_, &v, sizeof v) > 0) {
  }
  done->insert(done->end(), done_.begin(), done_.end());
  done_.clear();
}

Status SimBackend::ReadDirectV(const FileHandle &file, std::span<const iovec> iov, uint64_t offset,
                               uint64_t *nread) {
  *nread = 0;
  for (const iovec &v : iov) {
    uint64_t got = 0;
    Status s = ReadBuffer(file, v.iov_base, offset + *nread, v.iov_len, &got);
    if (!s.ok()) return s;
    *nread += got;
    if (got < v.iov_len) break;  // end of file
  }
  return Status::Ok();
}

Status SimBackend::ReadBuffer(const FileHandle &file, void *buf, uint64_t offset, uint64_t length,
                              uint64_t *nread) {
  *nread = 0;
  const uint64_t n = offset >= file.size ? 0 : std::min(length, file.size - offset);
  if (n == 0) return Status::Ok();
  // A synchronous read in virtual time: the clock runs until it lands; prefetch reads landing
  // meanwhile are handed to the engine through the hook.
  const uint64_t tag = next_tag_++;
  pending_[tag].parts = Command(DiskCommand::Kind::kRead, offset, n, tag);
  ++stats_.direct_reads;
  DiskCompletion c;
  while (!pending_[tag].done && array_.Run(kInf, &c)) {
    Land(c);
    if (hook_ && !c.stage && c.tag != tag) hook_();
  }
  pending_.erase(tag);
  FillPattern(buf, offset, n, o_.data_seed);
  *nread = n;
  return Status::Ok();
}

Status SimBackend::Stage(const FileHandle &file, uint64_t offset, uint64_t length,
                         pfio_stage kind) {
  if (kind != PFIO_STAGE_DEVICE) return Backend::Stage(file, offset, length, kind);
  Command(DiskCommand::Kind::kStage, offset, length, 0);
  ++stats_.stages;
  return Status::Ok();
}

Status SimBackend::StageCanGain(uint64_t block, uint32_t targets) const {
  // Barve §5: staging overlaps one disk's positioning with the others' transfers, so it gains
  // only while the bus has idle time. When eqs. (3)/(4) put the naive rate within 10 % of the
  // bus rate, there is nothing left to overlap.
  const uint32_t per_bus = std::max<uint32_t>(1, std::min(targets, o_.disks) / o_.buses);
  const double naive = ModelMbPerS(o_.disk, per_bus, block, o_.fence);
  const double bus = o_.disk.bus_rate / 1e6;
  if (naive >= 0.9 * bus)
    return Status::State(
        Format("model (Barve 3/4): %u disks/bus reach %.1f of %.1f MB/s at %s; no bus time to gain",
               per_bus, naive, bus, Bytes(block).c_str()));
  return Status::Ok();
}

uint32_t SimBackend::TargetDepth(uint32_t queue_depth, uint32_t targets) const {
  (void)queue_depth;
  (void)targets;
  return 1;  // Barve's drives take one command at a time
}

bool SimBackend::StepVirtual() {
  DiskCompletion c;
  if (!array_.Run(kInf, &c)) return false;
  Land(c);
  return true;
}

void SimBackend::Compute(double seconds) {
  const double until = array_.now() + std::max(0.0, seconds);
  DiskCompletion c;
  while (array_.Run(until, &c)) {
    Land(c);
    if (hook_ && !c.stage) hook_();
  }
}

}  // namespace pfio
