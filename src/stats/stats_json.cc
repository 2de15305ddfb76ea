#include "stats/stats_json.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace pfio {

namespace {
std::string Escape(const std::string &in) {
  std::string out;
  for (char c : in) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += Format("\\u%04x", c);
    } else {
      out += c;
    }
  }
  return out;
}
}  // namespace

std::string StatsToJson(const pfio_stats &s, const std::vector<AimdEvent> &history) {
  auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::string j = "{\n";
  j += Format("  \"backend\": \"%s\",\n", Escape(s.backend).c_str());
  j += Format("  \"reads\": %llu,\n  \"hits\": %llu,\n  \"misses\": %llu,\n", u(s.reads), u(s.hits),
              u(s.misses));
  j += Format("  \"passthrough_reads\": %llu,\n  \"bytes_passthrough\": %llu,\n",
              u(s.passthrough_reads), u(s.bytes_passthrough));
  j += Format("  \"stalls\": %llu,\n  \"stall_seconds\": %.6f,\n", u(s.stalls), s.stall_seconds);
  j += Format("  \"bytes_served\": %llu,\n  \"bytes_read\": %llu,\n  \"bytes_wasted\": %llu,\n",
              u(s.bytes_served), u(s.bytes_read), u(s.bytes_wasted));
  j += Format("  \"requests\": %llu,\n  \"io_errors\": %llu,\n  \"plan_resyncs\": %llu,\n",
              u(s.requests), u(s.io_errors), u(s.plan_resyncs));
  j += Format("  \"windows\": %llu,\n  \"budget_bytes\": %llu,\n  \"budget_cap\": %llu,\n",
              u(s.windows), u(s.budget_bytes), u(s.budget_cap));
  j += Format("  \"budget_cuts\": %llu,\n  \"memory_in_use\": %llu,\n  \"memory_peak\": %llu,\n",
              u(s.budget_cuts), u(s.memory_in_use), u(s.memory_peak));
  j += Format("  \"policy\": \"%s\",\n  \"policy_holds\": %llu,\n", Escape(s.policy).c_str(),
              u(s.policy_holds));
  j += Format("  \"evictions\": %llu,\n  \"bytes_evicted\": %llu,\n", u(s.evictions),
              u(s.bytes_evicted));
  j += Format("  \"stage_mode\": \"%s\",\n  \"stage_note\": \"%s\",\n",
              Escape(s.stage_mode).c_str(), Escape(s.stage_note).c_str());
  j += Format("  \"stages\": %llu,\n  \"stages_small\": %llu,\n", u(s.stages), u(s.stages_small));
  j += "  \"aimd_history\": [";
  for (size_t i = 0; i < history.size(); ++i) {
    j += Format("%s\n    {\"seconds\": %.6f, \"budget\": %llu, \"reason\": \"%s\"}", i ? "," : "",
                history[i].seconds, u(history[i].budget), Escape(history[i].reason).c_str());
  }
  j += history.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return j;
}

Status WriteStatsFile(const std::string &path, const pfio_stats &s,
                      const std::vector<AimdEvent> &history) {
  std::FILE *f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    return Status::Io(Format("stats_path = \"%s\": cannot open for writing: %s", path.c_str(),
                             std::strerror(errno)));
  }
  std::string j = StatsToJson(s, history);
  bool ok = std::fwrite(j.data(), 1, j.size(), f) == j.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    return Status::Io(
        Format("stats_path = \"%s\": write failed: %s", path.c_str(), std::strerror(errno)));
  }
  return Status::Ok();
}

}  // namespace pfio
