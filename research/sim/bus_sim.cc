#include "sim/bus_sim.h"

#include <random>

#include "sim/disk_array.h"

namespace pfio {

namespace {

// The host side of Barve's experiments on a DiskArray with one bus.
class Workload {
 public:
  explicit Workload(const BusSimConfig &c)
      : c_(c),
        rng_(c.seed ^ 0x5DEECE66Dull),
        array_(c.disk, c.disks, c.independent ? c.disks : 1, c.fence, c.seed) {
    result_.requests_per_disk.assign(c.disks, 0);
    next_position_.assign(c.disks, 0);
  }

  BusSimResult Run() {
    const double end = c_.warmup_s + c_.measure_s;
    const double host = c_.disk.host_ms / 1000;
    if (c_.pipeline) {
      for (uint32_t i = 0; i < c_.disks; ++i) Stage(i, 0);
      NextPipelineRead(0);
    } else {
      for (uint32_t i = 0; i < c_.disks; ++i) Read(i, RandomPosition(), host);
    }
    DiskCompletion done;
    while (array_.Run(end, &done)) {
      if (done.stage) continue;  // the one-sector reply is dropped
      if (done.time > c_.warmup_s) {
        delivered_ += static_cast<double>(c_.block);
        ++result_.requests_per_disk[done.disk];
        completions_.push_back(done.disk);
      }
      if (!c_.pipeline) {
        Read(done.disk, RandomPosition(), done.time + host);
        continue;
      }
      // Pipeline: stage this disk's next-round block, then read the next disk's block.
      host_free_ = done.time + c_.disk.stage_host_ms / 1000;
      Stage(done.disk, host_free_);
      NextPipelineRead((done.disk + 1) % c_.disks);
    }
    result_.mb_s = delivered_ / c_.measure_s / 1e6;
    result_.round_fraction = RoundFraction(completions_, c_.disks);
    return result_;
  }

 private:
  uint64_t RandomPosition() {
    const uint64_t cyl = static_cast<uint64_t>(std::uniform_real_distribution<double>(0, 1)(rng_) *
                                               static_cast<double>(c_.disk.max_cyl));
    return cyl * c_.disk.CylinderBytes();
  }
  void Read(uint32_t disk, uint64_t position, double ready) {
    array_.Submit({DiskCommand::Kind::kRead, disk, position, c_.block, ready, 0});
  }
  void Stage(uint32_t disk, double ready) {
    next_position_[disk] = RandomPosition();
    array_.Submit({DiskCommand::Kind::kStage, disk, next_position_[disk], c_.block, ready, 0});
  }
  void NextPipelineRead(uint32_t disk) {
    host_free_ += c_.disk.host_ms / 1000;
    Read(disk, next_position_[disk], host_free_);
  }

  const BusSimConfig &c_;
  std::mt19937_64 rng_;
  DiskArray array_;
  std::vector<uint64_t> next_position_;  // pipeline: each disk's staged block
  double delivered_ = 0, host_free_ = 0;
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
  BusSimResult r = Workload(config).Run();
  r.round_fraction_independent = r.round_fraction;
  if (!config.independent && config.disks > 1) {
    BusSimConfig alone = config;
    alone.independent = true;
    r.round_fraction_independent = Workload(alone).Run().round_fraction;
  }
  const double room = 1.0 - r.round_fraction_independent;
  r.round_excess = room > 1e-9 ? (r.round_fraction - r.round_fraction_independent) / room : 0.0;
  return r;
}

}  // namespace pfio
