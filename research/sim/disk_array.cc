#include "sim/disk_array.h"

#include <algorithm>
#include <limits>

namespace pfio {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSector = 512;
}  // namespace

DiskArray::DiskArray(const BusDiskParams &params, uint32_t disks, uint32_t buses, uint32_t fence,
                     uint64_t seed)
    : p_(params),
      buses_(std::max(1u, std::min(buses, disks))),
      fence_(fence),
      rng_(seed),
      disks_(std::max(1u, disks)),
      bus_(buses_) {}

void DiskArray::Submit(const DiskCommand &command) {
  DiskCommand c = command;
  c.ready = std::max(c.ready, now_);
  bus_[bus_of(c.disk)].queue.push_back(c);
}

bool DiskArray::idle() const {
  for (const Bus &b : bus_) {
    if (!b.queue.empty()) return false;
  }
  for (const Disk &d : disks_) {
    if (d.op.active) return false;
  }
  return finished_.empty();
}

void DiskArray::Start(uint32_t i, const DiskCommand &c, double now) {
  Disk &d = disks_[i];
  Op &op = d.op;
  op = Op{};
  op.active = true;
  op.tag = c.tag;
  op.stage = c.kind == DiskCommand::Kind::kStage;
  const uint64_t cyl = std::min(c.position / p_.CylinderBytes(), p_.max_cyl - 1);
  if (!op.stage && d.cache_valid && c.position == d.cache_position && c.bytes <= d.cache_bytes) {
    op.to_send = static_cast<double>(c.bytes);
    op.data_start = d.cache_start;  // the block streams into the cache from then on
    op.first_boundary = kInf;       // served from the cache: no track disconnects while loading
    op.from_cache = true;
    d.cache_valid = false;
    return;
  }
  d.cache_valid = false;  // a new command stops the drive's read-ahead
  const uint64_t dist = cyl > d.cylinder ? cyl - d.cylinder : d.cylinder - cyl;
  d.cylinder = cyl;
  const double positioned =
      now + p_.drive_ms / 1000 + p_.SeekMs(dist) / 1000 + Uniform() * p_.RevS();
  if (op.stage) {
    // One sector for the host; the drive then reads the block ahead into its cache.
    op.to_send = kSector;
    op.data_start = positioned;
    op.first_boundary = kInf;
    d.cache_valid = true;
    d.cache_position = c.position;
    d.cache_bytes = c.bytes;
    d.cache_start = positioned + kSector / p_.head_rate;
    return;
  }
  op.to_send = static_cast<double>(c.bytes);
  op.data_start = positioned;
  op.first_boundary = Uniform() * static_cast<double>(p_.track_bytes);
}

double DiskArray::Available(const Op &op, double t) const {
  if (t <= op.data_start) return 0;
  return std::min(op.to_send, (t - op.data_start) * p_.head_rate);
}

double DiskArray::WantsAt(uint32_t i) const {
  const Op &op = disks_[i].op;
  if (!op.active) return kInf;
  const double left = op.to_send - op.sent;
  const double block = op.stage ? kSector : op.to_send;
  const double fence_bytes = fence_ == 0 ? kSector : block * fence_ / 256;
  const double need = std::min(left, std::max(kSector, fence_bytes));
  return op.data_start + (op.sent + need) / p_.head_rate;
}

double DiskArray::NextAction(uint32_t b, int *transfer_disk, size_t *command) const {
  const Bus &bus = bus_[b];
  *transfer_disk = -1;
  *command = SIZE_MAX;
  double wants = kInf;
  int wanting = -1;
  // A disk that wants the bus wins over the HBA (highest id first, as SCSI priority).
  for (int i = static_cast<int>(disks_.size()) - 1; i >= 0; --i) {
    if (bus_of(static_cast<uint32_t>(i)) != b) continue;
    const double w = WantsAt(static_cast<uint32_t>(i));
    if (w <= bus.t) {
      *transfer_disk = i;
      return bus.t;
    }
    if (w < wants) {
      wants = w;
      wanting = i;
    }
  }
  double ready = kInf;
  size_t first = SIZE_MAX;
  for (size_t k = 0; k < bus.queue.size(); ++k) {
    const DiskCommand &c = bus.queue[k];
    if (disks_[c.disk].op.active) continue;  // one command per disk at a time
    if (c.ready < ready) {
      ready = c.ready;
      first = k;
    }
    if (c.ready <= bus.t) break;  // FIFO among the commands that are ready
  }
  if (ready <= bus.t) {
    *command = first;
    return bus.t;
  }
  if (wants <= ready) {
    *transfer_disk = wanting;
    return wants;
  }
  *command = first;
  return ready;
}

void DiskArray::Transfer(uint32_t b, uint32_t i) {
  Bus &bus = bus_[b];
  Op &op = disks_[i].op;
  const double backlog = Available(op, bus.t) - op.sent;
  const double t1 = bus.t + backlog / p_.bus_rate;
  const double at_t1 = Available(op, t1);
  double target;
  if (at_t1 >= op.to_send) {
    target = op.to_send;
  } else {
    const double track = static_cast<double>(p_.track_bytes);
    target = op.first_boundary;
    while (target <= at_t1) target += track;
    target = std::min(target, op.to_send);
  }
  const double done_reading = op.data_start + target / p_.head_rate;
  bus.t = std::max({t1, done_reading, bus.t + (target - op.sent) / p_.bus_rate});
  op.sent = target;
  if (op.sent < op.to_send) return;
  op.active = false;
  DiskCompletion c{op.tag, i, bus.t, op.stage, op.from_cache};
  auto at = std::upper_bound(finished_.begin(), finished_.end(), c.time,
                             [](double t, const DiskCompletion &x) { return t < x.time; });
  finished_.insert(at, c);
}

bool DiskArray::Run(double until, DiskCompletion *done) {
  for (;;) {
    double next = kInf;
    uint32_t which = 0;
    int transfer = -1;
    size_t command = SIZE_MAX;
    for (uint32_t b = 0; b < buses_; ++b) {
      int t;
      size_t c;
      const double a = NextAction(b, &t, &c);
      if (a < next) {
        next = a;
        which = b;
        transfer = t;
        command = c;
      }
    }
    // A completion is final once no bus can act before it.
    if (!finished_.empty() && finished_.front().time <= next && finished_.front().time <= until) {
      *done = finished_.front();
      finished_.pop_front();
      now_ = std::max(now_, done->time);
      return true;
    }
    if (next > until || next == kInf) {
      if (until != kInf) now_ = std::max(now_, until);
      return false;
    }
    Bus &bus = bus_[which];
    bus.t = std::max(bus.t, next);
    if (transfer >= 0) {
      Transfer(which, static_cast<uint32_t>(transfer));
    } else {
      const DiskCommand c = bus.queue[command];
      bus.queue.erase(bus.queue.begin() + static_cast<std::ptrdiff_t>(command));
      bus.t += p_.cmd_bus_ms / 1000.0;
      Start(c.disk, c, bus.t);
    }
  }
}

}  // namespace pfio
