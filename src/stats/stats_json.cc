#include "stats/stats_json.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

namespace pfio {

std::string StatsToJson(const pfio_stats &s, const std::vector<AimdEvent> &history) {
  nlohmann::ordered_json j;
  j["pfio"] = "stats";  // first: the signature by which an earlier stats file is replaced
  j["backend"] = s.backend;
  j["reads"] = s.reads;
  j["hits"] = s.hits;
  j["misses"] = s.misses;
  j["passthrough_reads"] = s.passthrough_reads;
  j["bytes_passthrough"] = s.bytes_passthrough;
  j["stalls"] = s.stalls;
  j["stall_seconds"] = s.stall_seconds;
  j["bytes_served"] = s.bytes_served;
  j["bytes_read"] = s.bytes_read;
  j["bytes_wasted"] = s.bytes_wasted;
  j["requests"] = s.requests;
  j["io_errors"] = s.io_errors;
  j["plan_resyncs"] = s.plan_resyncs;
  j["windows"] = s.windows;
  j["budget_bytes"] = s.budget_bytes;
  j["budget_cap"] = s.budget_cap;
  j["budget_cuts"] = s.budget_cuts;
  j["memory_in_use"] = s.memory_in_use;
  j["memory_peak"] = s.memory_peak;
  j["policy"] = s.policy;
  j["policy_holds"] = s.policy_holds;
  j["files_changed"] = s.files_changed;
  j["memory_charged"] = s.memory_charged;
  j["advised_now"] = s.advised_now;
  j["advised_inline"] = s.advised_inline;
  j["advised_dropped"] = s.advised_dropped;
  j["advised_now_bytes"] = s.advised_now_bytes;
  j["advice_failed"] = s.advice_failed;
  j["evictions"] = s.evictions;
  j["bytes_evicted"] = s.bytes_evicted;
  j["stage_mode"] = s.stage_mode;
  j["stage_note"] = s.stage_note;
  j["stages"] = s.stages;
  j["stages_small"] = s.stages_small;
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
  const std::string why = WriteOutputFile(path, kStatsKind, StatsToJson(s, history), "", what);
  if (!why.empty()) return Status::Io(why);
  return Status::Ok();
}

}  // namespace pfio
