// pfio-sim engine: the real engine on simulated disks (sim backend), against the application's
// own reads, in virtual time.
#include "engine_cmd.h"

#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "common/size_parse.h"
#include "engine/config_keys.h"
#include "sched/issue_policy.h"
#include "sim/engine_workload.h"

namespace {

using ull = unsigned long long;

int Fail(const std::string &msg) {
  std::fprintf(stderr, "pfio-sim engine: %s\n(run pfio-sim --help)\n", msg.c_str());
  return 2;
}

std::vector<std::string> Split(const std::string &list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
  return out;
}

}  // namespace

int EngineCommand(int argc, char **argv) {
  pfio::EngineWorkload w = pfio::DefaultEngineWorkload();
  std::string params = "cheetah", json, policies = "aggressive", stages = "none,device";
  uint64_t disks = 4, buses = 1, block = 128 * 1024, stripe = 0, reads = 2000, budget = 64 << 20;
  uint64_t seed = 1, horizon = 0, target_reads = 0, lookahead = 0;
  double compute_ms = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) return Fail(k + ": missing value");
    const std::string v = argv[++i];
    pfio::Status s;
    if (k == "--params") {
      params = v;
    } else if (k == "--json") {
      json = v;
    } else if (k == "--policy") {
      policies = v == "all" ? "aggressive,fixed-horizon,forestall" : v;
    } else if (k == "--stage") {
      stages = v;
    } else if (k == "--compute-ms") {
      char *end = nullptr;
      compute_ms = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end || compute_ms < 0 || compute_ms > 1e4)
        return Fail("--compute-ms = " + v + ": expected a number of milliseconds in 0 .. 10000");
    } else if (k == "--disks") {
      s = pfio::ParseSize(v, "--disks", &disks);
    } else if (k == "--buses") {
      s = pfio::ParseSize(v, "--buses", &buses);
    } else if (k == "--block") {
      s = pfio::ParseSize(v, "--block", &block);
    } else if (k == "--stripe") {
      s = pfio::ParseSize(v, "--stripe", &stripe);
    } else if (k == "--file-size") {
      s = pfio::ParseSize(v, "--file-size", &w.file_size);
    } else if (k == "--reads") {
      s = pfio::ParseSize(v, "--reads", &reads);
    } else if (k == "--budget") {
      s = pfio::ParseSize(v, "--budget", &budget);
    } else if (k == "--horizon") {
      s = pfio::ParseSize(v, "--horizon", &horizon);
    } else if (k == "--target-reads") {
      s = pfio::ParseSize(v, "--target-reads", &target_reads);
    } else if (k == "--lookahead") {
      s = pfio::ParseSize(v, "--lookahead", &lookahead);
    } else if (k == "--seed") {
      s = pfio::ParseSize(v, "--seed", &seed);
    } else {
      return Fail("unknown option " + k);
    }
    if (!s.ok()) return Fail(s.message());
  }
  pfio::Status s = pfio::LookupBusDisk(params, &w.sim.disk);
  if (!s.ok()) return Fail(s.message());
  if (disks < 1 || disks > 64)
    return Fail("--disks = " + std::to_string(disks) + ": expected 1 .. 64");
  if (buses < 1 || buses > disks)
    return Fail("--buses = " + std::to_string(buses) + ": expected 1 .. --disks");
  if (block < 4096 || block % 4096 || block > (16u << 20))
    return Fail("--block = " + std::to_string(block) + ": expected a multiple of 4K in 4K .. 16M");
  if (stripe == 0) stripe = block;
  if (reads < 1 || reads > 10000000)
    return Fail("--reads = " + std::to_string(reads) + ": expected 1 .. 10M");
  w.sim.disks = static_cast<uint32_t>(disks);
  w.sim.buses = static_cast<uint32_t>(buses);
  w.sim.stripe = stripe;
  w.sim.seed = seed;
  w.block = block;
  w.reads = static_cast<uint32_t>(reads);
  w.compute_s = compute_ms / 1000;
  w.config.budget = budget;
  w.config.horizon = static_cast<uint32_t>(horizon);
  w.config.target_reads = static_cast<uint32_t>(target_reads);
  w.config.lookahead_rounds = static_cast<uint32_t>(lookahead);
  w.config.queue_depth = std::max<uint32_t>(32, static_cast<uint32_t>(disks) * 2);
  if (pfio::Status bad = pfio::ValidateConfig(w.config); !bad.ok()) {
    return Fail("engine settings rejected: " + bad.message() +
                " (set by --budget, --horizon, --target-reads, --lookahead)");
  }

  std::printf(
      "engine: %s, %llu disks on %llu bus(es), stripe %llu, %llu reads of %llu bytes over "
      "%llu bytes, compute %.2f ms per read (virtual time)\n",
      params.c_str(), (ull)disks, (ull)buses, (ull)stripe, (ull)reads, (ull)block, (ull)w.file_size,
      compute_ms);
  std::printf("%-28s %10s %9s %9s %7s %7s %7s %7s\n", "method", "elapsed_s", "MB/s", "stall_s",
              "stages", "cached", "evict", "rounds");
  std::string rows;
  auto emit = [&](const std::string &method, const std::string &policy, const std::string &stage,
                  const pfio::EngineWorkloadResult &r) {
    std::printf("%-28s %10.3f %9.2f %9.3f %7llu %7llu %7llu %7.3f\n", method.c_str(), r.elapsed_s,
                r.mb_s, r.stats.stall_seconds, (ull)r.stats.stages, (ull)r.sim.from_cache,
                (ull)r.stats.evictions, r.round_fraction);
    if (r.stats.stage_note[0]) std::printf("    stage note: %s\n", r.stats.stage_note);
    rows += pfio::Format(
        "%s\n  {\"method\": \"%s\", \"policy\": \"%s\", \"stage\": \"%s\", \"disks\": %llu, "
        "\"block\": %llu, \"elapsed_s\": %.6f, \"mb_s\": %.4f, \"stall_s\": %.6f, \"stages\": "
        "%llu, \"from_cache\": %llu, \"round_fraction\": %.4f, \"bytes_verified\": %llu}",
        rows.empty() ? "" : ",", method.c_str(), policy.c_str(), stage.c_str(), (ull)disks,
        (ull)block, r.elapsed_s, r.mb_s, r.stats.stall_seconds, (ull)r.stats.stages,
        (ull)r.sim.from_cache, r.round_fraction, (ull)r.bytes_verified);
  };
  {
    pfio::EngineWorkloadResult r;
    w.prefetch = false;
    s = pfio::RunEngineWorkload(w, &r);
    if (!s.ok()) return Fail("direct: " + s.message());
    emit("direct (no pfio)", "", "", r);
    w.prefetch = true;
  }
  for (const std::string &pol : Split(policies)) {
    if (pfio::Status bad = pfio::SetConfig(&w.config, "policy", pol); !bad.ok()) {
      return Fail("--policy: " + bad.message() + ", or all");
    }
    for (const std::string &st : Split(stages)) {
      if (st != "none" && st != "device" && st != "auto") {
        return Fail("--stage = " + st + ": expected none, device or auto (a list is allowed)");
      }
      if (pfio::Status bad = pfio::SetConfig(&w.config, "stage", st); !bad.ok()) {
        return Fail("--stage: " + bad.message());
      }
      pfio::EngineWorkloadResult r;
      s = pfio::RunEngineWorkload(w, &r);
      if (!s.ok()) return Fail("pfio " + pol + " stage " + st + ": " + s.message());
      emit("pfio " + pol + " stage=" + st, pol, st, r);
    }
  }
  if (json.empty()) return 0;
  std::FILE *f = std::fopen(json.c_str(), "w");
  if (!f) return Fail("--json " + json + ": cannot write: " + std::strerror(errno));
  std::fprintf(f, "{\"params\": \"%s\", \"compute_ms\": %.3f, \"rows\": [%s\n]}\n", params.c_str(),
               compute_ms, rows.c_str());
  return std::fclose(f) == 0 ? 0 : 1;
}
