// DiskArray: disks on one or more shared buses, in virtual time (Barve et al. §4). The device
// side of the simulator, used by the bus experiments (sim/bus_sim) and by the `sim` backend that
// drives the real engine (sim/sim_backend).
//
// Each disk takes one command at a time. For a read it positions (controller overhead, seek by
// eq. (7) from its current cylinder, rotational latency), reads at the head rate into its cache,
// and asks for its bus once `fence` allows (fence 0: one sector cached; else B * fence / 256
// bytes). A disk holding the bus sends what is cached at the bus rate, then streams at the head
// rate until its head crosses a track boundary or the data ends, and lets go. Each bus has a
// host adapter that sends the next command only when no disk on that bus is asking for it: this
// is what makes rounds emerge instead of being imposed.
//
// A stage command (Barve's LoadIntoDiskBuffer) positions, sends one sector, and leaves the drive
// reading the block into its cache; a later read of that block (same position, no more bytes)
// streams from the cache as the block arrives. Any other read drops the cached block.
//
// Deterministic: rotational positions and track phases come from a generator seeded by `seed`.
#pragma once

#include <cstdint>
#include <deque>
#include <random>
#include <vector>

#include "sim/barve_params.h"

namespace pfio {

struct DiskCommand {
  enum class Kind { kRead, kStage };
  Kind kind = Kind::kRead;
  uint32_t disk = 0;
  uint64_t position = 0;  // byte offset on the disk where the data starts
  uint64_t bytes = 0;
  double ready = 0;  // virtual time at which the host has issued it
  uint64_t tag = 0;  // returned with the completion
};

struct DiskCompletion {
  uint64_t tag = 0;
  uint32_t disk = 0;
  double time = 0;
  bool stage = false;
  bool from_cache = false;  // a read served from a staged block
};

class DiskArray {
 public:
  // `disks` >= 1; disk i is on bus i % buses (buses >= 1, <= disks).
  DiskArray(const BusDiskParams &params, uint32_t disks, uint32_t buses, uint32_t fence,
            uint64_t seed);

  void Submit(const DiskCommand &command);

  // Runs the devices forward. Returns true with the next completion (in time order) if one
  // happens at or before `until`; otherwise advances the clock to `until` (when finite) and
  // returns false.
  bool Run(double until, DiskCompletion *done);

  double now() const { return now_; }
  bool idle() const;  // no command queued or in progress
  uint32_t disks() const { return static_cast<uint32_t>(disks_.size()); }
  uint32_t bus_of(uint32_t disk) const { return disk % buses_; }
  const BusDiskParams &params() const { return p_; }

 private:
  struct Op {
    bool stage = false, from_cache = false, active = false;
    uint64_t tag = 0;
    double to_send = 0;  // bytes for the host
    double sent = 0;
    double data_start = 0;      // when the first byte of the host data comes under the head
    double first_boundary = 0;  // bytes of the data before the head crosses a track boundary
  };
  struct Disk {
    Op op;
    uint64_t cylinder = 0;
    double cache_start = 0;  // staged block: when its first byte comes under the head
    uint64_t cache_position = 0, cache_bytes = 0;
    bool cache_valid = false;
  };
  struct Bus {
    double t = 0;  // the bus is accounted up to here
    std::deque<DiskCommand> queue;
  };

  double Uniform() { return std::uniform_real_distribution<double>(0, 1)(rng_); }
  void Start(uint32_t disk, const DiskCommand &c, double now);
  double Available(const Op &op, double t) const;
  double WantsAt(uint32_t disk) const;
  // The time bus b next acts (kInf: never) and what it does then.
  double NextAction(uint32_t b, int *transfer_disk, size_t *command) const;
  void Transfer(uint32_t b, uint32_t disk);

  BusDiskParams p_;
  uint32_t buses_;
  uint32_t fence_;
  std::mt19937_64 rng_;
  std::vector<Disk> disks_;
  std::vector<Bus> bus_;
  std::deque<DiskCompletion> finished_;  // in time order
  double now_ = 0;
};

}  // namespace pfio
