// DeviceModel: what pfio knows about the device behind a backend, for scheduling decisions
// (not for moving bytes): what stage = auto means, whether staging can gain, and how many
// reads a target takes at once when the config leaves it open. The default knows nothing of
// the device: no automatic staging, staging gains when asked for, queue_depth / targets reads
// per target. The simulator's backend has a real model (Barve's bus equations, one command per
// disk).
#pragma once

#include <cstdint>
#include <string>

#include "common/modes.h"
#include "common/status.h"

namespace pfio {

class DeviceModel {
 public:
  virtual ~DeviceModel() = default;
  // What PFIO_STAGE_AUTO means here.
  virtual pfio_stage AutoStage() const { return PFIO_STAGE_NONE; }
  // Whether staging `block`-byte reads over `targets` targets can gain: OK, or PFIO_ESTATE with
  // why not (the device leaves no time to gain).
  virtual Status StageCanGain(uint64_t block, uint32_t targets) const;
  // Reads in flight per target when the config leaves it to the device.
  virtual uint32_t TargetDepth(uint32_t queue_depth, uint32_t targets) const;
};

}  // namespace pfio
