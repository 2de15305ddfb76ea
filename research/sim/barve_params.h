// Disks on a shared bus, as Barve et al. measured them (Table 2), for the bus simulator and the
// analytic model. Published: rpm, sectors per track, surfaces, measured surface rate, buffer,
// average seek, bus rate (Table 1). Fitted here (the paper lists them in [4], not in its text):
// cylinder count (from the drive capacity), the seek-curve constants of eq. (7) (a = track-to-
// track settle; b and k such that the mean over uniform random distances is the published
// average seek and a full stroke takes 2.2 times it; continuous at e = MaxCyl / 8), and the
// per-request overhead.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace pfio {

struct BusDiskParams {
  std::string name;
  double rpm = 0;
  double head_rate = 0;  // bytes/s, measured surface-to-cache rate
  double bus_rate = 0;   // bytes/s, the shared bus
  uint64_t track_bytes = 0;
  uint32_t surfaces = 1;
  uint64_t max_cyl = 0;
  double a_ms = 0, b_ms = 0, c_ms = 0, k_ms = 0;  // eq. (7)
  uint64_t e = 0;
  double host_ms = 0;        // the host's time to issue a read (system call, driver), per request
  double drive_ms = 0;       // the drive's command processing before it seeks, off the bus
  double stage_host_ms = 0;  // the host's time to issue one LoadIntoDiskBuffer (Barve §5)
  double cmd_bus_ms = 0.05;  // a command's time on the bus
  // Barve's Overhead: everything a request pays besides positioning and transfer.
  double TotalOverheadS() const { return (host_ms + drive_ms + cmd_bus_ms) / 1000.0; }
  double avg_seek_ms = 0;

  double SeekMs(uint64_t d) const;
  double RevS() const { return 60.0 / rpm; }
  uint64_t CylinderBytes() const { return track_bytes * surfaces; }
  uint64_t CapacityBytes() const { return CylinderBytes() * max_cyl; }
};

// "cheetah", "barracuda" or "wren".
Status LookupBusDisk(const std::string &name, BusDiskParams *out);

// Overrides fields of a parameter set from "key=value[,key=value...]": host_ms, drive_ms,
// stage_host_ms, cmd_bus_ms, avg_seek_ms, a_ms (milliseconds), head_rate and
// bus_rate (MB/s, 10^6 bytes). The seek curve is refitted after avg_seek_ms or a_ms. Errors name
// the key and value and what is allowed; on an error nothing is changed.
Status OverrideBusDisk(const std::string &spec, BusDiskParams *out);

}  // namespace pfio
