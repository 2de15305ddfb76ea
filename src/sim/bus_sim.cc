#include "sim/bus_sim.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <random>

namespace pfio {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSector = 512;

enum class OpKind { kRead, kPrefetch, kCachedRead };

// One command a disk is working on.
struct Op {
  OpKind kind = OpKind::kRead;
  double to_send = 0;  // bytes for the host
  double sent = 0;
  double data_start = 0;      // when the first byte of the host data comes under the head
  double first_boundary = 0;  // bytes of the data before the head crosses a track boundary
  bool active = false;
};

struct Disk {
  Op op;
  uint64_t cylinder = 0;
  double cache_start = kInf;  // prefetched block: when its first byte comes under the head
  double busy_until = 0;      // the drive finishes loading a prefetched block
};

class Sim {
 public:
  explicit Sim(const BusSimConfig &c) : c_(c), rng_(c.seed), disks_(c.disks) {
    result_.requests_per_disk.assign(c.disks, 0);
  }

  BusSimResult Run() {
    const double end = c_.warmup_s + c_.measure_s;
    if (c_.pipeline) {
      for (uint32_t i = 0; i < c_.disks; ++i) Command(i, OpKind::kPrefetch, host_free_);
      host_disk_ = 0;
      NextPipelineRead();
    } else {
      for (uint32_t i = 0; i < c_.disks; ++i) Command(i, OpKind::kRead, c_.disk.overhead_ms / 2000);
    }
    while (t_ < end) {
      // Bus free at t_: a disk that wants it wins (highest id first, as SCSI priority); the HBA
      // sends a command only when no disk is asking.
      int want = -1;
      for (int i = static_cast<int>(c_.disks) - 1; i >= 0; --i) {
        if (WantsAt(i) <= t_) {
          want = i;
          break;
        }
      }
      if (want >= 0) {
        Transfer(static_cast<uint32_t>(want));
        continue;
      }
      if (!hba_.empty() && hba_.front().ready <= t_) {
        Pending cmd = hba_.front();
        hba_.pop_front();
        t_ += c_.disk.cmd_bus_ms / 1000.0;
        Start(cmd.disk, cmd.kind, t_);
        continue;
      }
      double next = kInf;
      for (uint32_t i = 0; i < c_.disks; ++i) next = std::min(next, WantsAt(i));
      if (!hba_.empty()) next = std::min(next, hba_.front().ready);
      if (next == kInf) break;  // nothing left to do
      t_ = std::max(t_, next);
    }
    result_.mb_s = delivered_ / c_.measure_s / 1e6;
    result_.round_fraction = RoundFraction(completions_, c_.disks);
    return result_;
  }

 private:
  struct Pending {
    uint32_t disk;
    OpKind kind;
    double ready;  // the host has issued it (host overhead done)
  };

  double Uniform() { return std::uniform_real_distribution<double>(0, 1)(rng_); }

  void Command(uint32_t disk, OpKind kind, double ready) { hba_.push_back({disk, kind, ready}); }

  // The disk got the command at `now`: position and start reading.
  void Start(uint32_t i, OpKind kind, double now) {
    Disk &d = disks_[i];
    Op &op = d.op;
    op = Op{};
    op.kind = kind;
    op.active = true;
    const double ctrl = c_.disk.overhead_ms / 2000;
    if (kind == OpKind::kCachedRead && d.cache_start < kInf) {
      op.to_send = static_cast<double>(c_.block);
      op.data_start = d.cache_start;  // the block streams into the cache from then on
      op.first_boundary = kInf;       // served from the cache: no track disconnects while loading
      d.cache_start = kInf;
      return;
    }
    const uint64_t cyl = static_cast<uint64_t>(Uniform() * static_cast<double>(c_.disk.max_cyl));
    const uint64_t dist = cyl > d.cylinder ? cyl - d.cylinder : d.cylinder - cyl;
    d.cylinder = cyl;
    const double positioned = now + ctrl + c_.disk.SeekMs(dist) / 1000 + Uniform() * c_.disk.RevS();
    const double track = static_cast<double>(c_.disk.track_bytes);
    if (kind == OpKind::kPrefetch) {
      // One sector for the host; the drive then reads the block ahead into its cache.
      op.to_send = kSector;
      op.data_start = positioned;
      op.first_boundary = kInf;
      d.cache_start = positioned + kSector / c_.disk.head_rate;
      d.busy_until = d.cache_start + static_cast<double>(c_.block) / c_.disk.head_rate;
      return;
    }
    op.to_send = static_cast<double>(c_.block);
    op.data_start = positioned;
    op.first_boundary = Uniform() * track;
  }

  double Available(const Op &op, double t) const {
    if (t <= op.data_start) return 0;
    return std::min(op.to_send, (t - op.data_start) * c_.disk.head_rate);
  }

  // When disk i next asks for the bus (kInf: it will not).
  double WantsAt(uint32_t i) const {
    const Op &op = disks_[i].op;
    if (!op.active) return kInf;
    const double left = op.to_send - op.sent;
    const double fence_bytes =
        c_.fence == 0 ? kSector : static_cast<double>(c_.block) * c_.fence / 256;
    const double need = std::min(left, std::max(kSector, fence_bytes));
    return op.data_start + (op.sent + need) / c_.disk.head_rate;
  }

  // Disk i holds the bus from t_: cached data at bus rate, then streaming at head rate until
  // its head crosses a track boundary or the data ends.
  void Transfer(uint32_t i) {
    Op &op = disks_[i].op;
    const double backlog = Available(op, t_) - op.sent;
    const double t1 = t_ + backlog / c_.disk.bus_rate;
    const double at_t1 = Available(op, t1);
    double target;
    if (at_t1 >= op.to_send) {
      target = op.to_send;
    } else {
      const double track = static_cast<double>(c_.disk.track_bytes);
      target = op.first_boundary;
      while (target <= at_t1) target += track;
      target = std::min(target, op.to_send);
    }
    const double done_reading = op.data_start + target / c_.disk.head_rate;
    const double te = std::max({t1, done_reading, t_ + (target - op.sent) / c_.disk.bus_rate});
    op.sent = target;
    t_ = te;
    if (op.sent >= op.to_send) Complete(i);
  }

  void Complete(uint32_t i) {
    Op &op = disks_[i].op;
    op.active = false;
    const double host = c_.disk.overhead_ms / 2000;  // the host's share of the overhead
    if (op.kind == OpKind::kPrefetch) return;        // the one-sector reply is dropped
    if (t_ > c_.warmup_s && t_ <= c_.warmup_s + c_.measure_s) {
      delivered_ += static_cast<double>(c_.block);
      ++result_.requests_per_disk[i];
      completions_.push_back(i);
    }
    if (!c_.pipeline) {
      Command(i, OpKind::kRead, t_ + host);
      return;
    }
    // Pipeline: prefetch this disk's next-round block, then read the next disk's block.
    host_free_ = t_ + host;
    Command(i, OpKind::kPrefetch, host_free_);
    host_disk_ = (i + 1) % c_.disks;
    NextPipelineRead();
  }

  void NextPipelineRead() {
    host_free_ += c_.disk.overhead_ms / 2000;
    Command(host_disk_, OpKind::kCachedRead, host_free_);
  }

  const BusSimConfig &c_;
  std::mt19937_64 rng_;
  std::vector<Disk> disks_;
  std::deque<Pending> hba_;
  double t_ = 0, delivered_ = 0, host_free_ = 0;
  uint32_t host_disk_ = 0;
  std::vector<uint32_t> completions_;
  BusSimResult result_;
};

}  // namespace

double RoundFraction(const std::vector<uint32_t> &completions, uint32_t disks) {
  if (completions.empty() || disks < 2) return 1.0;
  size_t pos = 0, violations = 0;
  while (pos + disks <= completions.size()) {
    size_t j = 1;
    for (; j < disks; ++j) {
      bool repeat = false;
      for (size_t i = 0; i < j; ++i) repeat |= completions[pos + i] == completions[pos + j];
      if (repeat) break;
    }
    if (j < disks) {
      ++violations;
      pos += j;
    } else {
      pos += disks;
    }
  }
  return 1.0 - static_cast<double>(violations) / static_cast<double>(completions.size());
}

BusSimResult RunBusSim(const BusSimConfig &config) {
  return Sim(config).Run();
}

}  // namespace pfio
