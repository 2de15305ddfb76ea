// The stats report: the pfio_stats counters and the AIMD history as one JSON object.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "memory/aimd_controller.h"
#include "pfio/pfio.h"

namespace pfio {

std::string StatsToJson(const pfio_stats &s, const std::vector<AimdEvent> &history);

// Writes StatsToJson to `path` (replacing it); the error names the path and the errno.
// `what` names where the path came from in error messages ("pfio_stats_write: path", or the
// setting and the variable that set it).
Status WriteStatsFile(const std::string &path, const pfio_stats &s,
                      const std::vector<AimdEvent> &history, const char *what);

}  // namespace pfio
