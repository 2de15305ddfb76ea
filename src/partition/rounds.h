// Rounds: the order in which a window's reads go out when the file is spread over several
// targets (Barve et al. §5). Per target the reads are in C-LOOK order (ascending target
// offset); then round r takes the r-th read of every target, bus group by bus group and target
// by target in a fixed order, so all targets stay busy and targets sharing a bus take turns.
// Each read gets its round number (first_round + r); with one target every read is a round.
#pragma once

#include <cstdint>
#include <vector>

#include "partition/request_builder.h"

namespace pfio {

std::vector<PendingRead *> OrderInRounds(std::vector<PendingRead *> reads,
                                         uint64_t first_round = 0);

}  // namespace pfio
