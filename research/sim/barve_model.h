// Barve et al.'s analytic throughput model (§4.3-4.5), next to the simulator for comparison:
// eq. (1)/(2) for one disk, eq. (3)/(4) for D disks in rounds, MPT(D) by eq. (5) with the
// expected minimum seek of eq. (11) (closed form) or eq. (10) (numeric integral).
#pragma once

#include <cstdint>

#include "sim/barve_params.h"

namespace pfio {

double ExpectedMinSeekMsClosedForm(const BusDiskParams &p, uint32_t disks);  // eq. (11)
double ExpectedMinSeekMsIntegral(const BusDiskParams &p, uint32_t disks);    // eq. (10)
double ModelReadDurationS(const BusDiskParams &p, uint32_t disks, uint64_t block, uint32_t fence);
double ModelMbPerS(const BusDiskParams &p, uint32_t disks, uint64_t block, uint32_t fence);

}  // namespace pfio
