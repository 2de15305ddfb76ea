// The stats report: the pfio_stats counters and the AIMD history as one JSON object.
#pragma once

#include <string>
#include <vector>

#include "common/output_file.h"
#include "common/status.h"
#include "memory/aimd_controller.h"
#include "pfio/pfio.h"

namespace pfio {

std::string StatsToJson(const pfio_stats &s, const std::vector<AimdEvent> &history);

// The stats file's kind: every one begins with its signature (StatsToJson's first key).
inline constexpr OutputKind kStatsKind{"stats file", "{\n  \"pfio\": \"stats\""};

// Writes StatsToJson to `path` by the rule of every file pfio writes (common/output_file.h: a new
// file, or an earlier stats file, replaced whole; anything else refused and left as it is); the
// error names the path and why.
// `what` names where the path came from in error messages ("pfio_stats_write: path", or the
// setting and the variable that set it).
Status WriteStatsFile(const std::string &path, const pfio_stats &s,
                      const std::vector<AimdEvent> &history, const char *what);

}  // namespace pfio
