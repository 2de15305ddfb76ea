// The fields of pfio_stats (pfio/pfio.h) in struct order, each named by the member it stands for,
// so that a name and its place cannot disagree: the one list the stats JSON (stats_json.cc) and
// pfio_stats_fields (a binding's mirror of the struct: python/pfio/_stats.py) are made from. A
// static_assert holds it to the struct (fields back to back from offset 0 to its end): a field
// added to the struct and not to the list, or listed out of order, stops the build.
#pragma once

#include <span>

#include "pfio/pfio.h"

namespace pfio {

std::span<const pfio_stats_field> StatsFields();

}  // namespace pfio
