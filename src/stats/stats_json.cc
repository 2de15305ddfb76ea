#include "stats/stats_json.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "stats/stats_fields.h"

namespace pfio {

std::string StatsToJson(const pfio_stats &s, const std::vector<AimdEvent> &history) {
  nlohmann::ordered_json j;
  j["pfio"] = "stats";  // first: the signature by which an earlier stats file is replaced
  const char *at = reinterpret_cast<const char *>(&s);
  for (const pfio_stats_field &f : StatsFields()) {
    if (f.kind == PFIO_STATS_TEXT) {
      j[f.name] = std::string(at + f.offset, strnlen(at + f.offset, f.size));
    } else if (f.kind == PFIO_STATS_DOUBLE) {
      double v;
      std::memcpy(&v, at + f.offset, sizeof v);
      j[f.name] = v;
    } else {
      uint64_t v;
      std::memcpy(&v, at + f.offset, sizeof v);
      j[f.name] = v;
    }
  }
  j["aimd_history"] = nlohmann::ordered_json::array();
  for (const AimdEvent &e : history) {
    j["aimd_history"].push_back(
        {{"seconds", e.seconds}, {"budget", e.budget}, {"reason", e.reason}});
  }
  // Replace, not throw, on invalid UTF-8 (a path or message from the system).
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

Status WriteStatsFile(const std::string &path, const pfio_stats &s,
                      const std::vector<AimdEvent> &history, const char *what) {
  // Every failure is PFIO_EIO, a refused path too, as pfio_stats_write answers (config_test.cc).
  const Status written = WriteOutputFile(path, kStatsKind, StatsToJson(s, history), "", what);
  return written.ok() ? written : Status::Io(written.message());
}

}  // namespace pfio
