// pfio-sim: the paper experiments behind pfio's scheduler, one subcommand each. This build has
// the Kimbrel experiment (unit-time model); the disk/bus simulator experiments of the issue
// (rounds, barve-model, barve-pipeline, reorder) are not built yet and say so.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/size_parse.h"
#include "sched/unit_model.h"
#include "sim/reorder_experiment.h"

namespace {

const char kUsage[] = R"(usage: pfio-sim SUBCOMMAND [options]

subcommands:
  kimbrel --workload W --disks N --policy POL [--fetch F] [--json FILE]
      Kimbrel et al.'s theoretical model of parallel prefetching and caching, in unit time:
      W: figure1  the 6-reference example of Kimbrel Fig. 1 (K=4, F=2, 2 disks; N ignored);
                  a reference takes 1 unit, a fetch 2
         synth    50 passes over a loop of 2000 blocks striped over N disks, K=1280 (§4.2);
                  units of 0.5 ms: a reference 2 (1 ms compute), a fetch F, issuing one 1
                  (the paper's 0.5 ms driver overhead)
      POL: demand, fixed-horizon, aggressive, forestall, optimal (figure1 only), or all
      F: fetch time in units for synth (default 30: 15 ms)
      prints a table; --json FILE writes {"elapsed_s", "stall_s", "fetches", "utilisation"}
      (one object, or {"runs": [...]} with --policy all)
  reorder --file-size S --block B --buffer LIST [--params P] [--seed N] [--json FILE]
      libprefetch §3.2 on one simulated 7200 rpm disk (P, default barracuda7200): uniformly
      random block reads (as many as the file has blocks), one reorder buffer of K unique
      blocks at a time, sorted and read in C-LOOK order at queue depth 1. For each buffer size
      in LIST: runtime and mean seek distance, next to 2N(K-1)/(K(K+1)) blocks. --json writes
      {"rows": [{"buffer", "runtime_s", "mean_seek_bytes", "formula_seek_bytes"}]}
  rounds, barve-model, barve-pipeline
      the disk/bus simulator experiments with several disks: not built yet (exit 2)
)";

int Usage(const std::string &msg) {
  std::fprintf(stderr, "pfio-sim: %s\n(run pfio-sim --help)\n", msg.c_str());
  return 2;
}

struct Row {
  std::string policy;
  uint64_t elapsed = 0, stall = 0, fetches = 0;
  double utilisation = 0;
};

int Kimbrel(int argc, char **argv) {
  std::string workload, policy, json;
  uint64_t disks = 1, fetch = 30;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return Usage(a + ": missing value");
    std::string v = argv[++i];
    pfio::Status s;
    if (a == "--workload")
      workload = v;
    else if (a == "--policy")
      policy = v;
    else if (a == "--json")
      json = v;
    else if (a == "--disks")
      s = pfio::ParseSize(v, "--disks", &disks);
    else if (a == "--fetch")
      s = pfio::ParseSize(v, "--fetch", &fetch);
    else
      return Usage("kimbrel: unknown option " + a);
    if (!s.ok()) return Usage(s.message());
  }
  if (workload != "figure1" && workload != "synth") {
    return Usage("--workload = \"" + workload + "\": expected figure1 or synth");
  }
  if (disks < 1 || disks > 1024)
    return Usage("--disks = " + std::to_string(disks) + ": expected 1 .. 1024");
  if (fetch < 1 || fetch > 100000)
    return Usage("--fetch = " + std::to_string(fetch) + ": expected 1 .. 100000");
  pfio::UnitInstance in = workload == "figure1"
                              ? pfio::Figure1Instance()
                              : pfio::SynthInstance(static_cast<uint32_t>(disks), 50, 2000, 1280,
                                                    static_cast<uint32_t>(fetch));
  std::vector<std::string> policies;
  if (policy == "all") {
    policies = {"demand", "fixed-horizon", "aggressive", "forestall"};
    if (workload == "figure1") policies.push_back("optimal");
  } else {
    policies = {policy};
  }
  std::vector<Row> rows;
  for (const auto &name : policies) {
    Row r;
    r.policy = name;
    if (name == "optimal") {
      if (workload != "figure1") return Usage("--policy optimal: only for --workload figure1");
      r.elapsed = pfio::OptimalElapsed(in, &r.fetches);
      r.stall = r.elapsed - in.refs.size();
    } else {
      pfio::UnitPolicy p;
      pfio::Status s = pfio::ParseUnitPolicy(name, &p);
      if (!s.ok()) return Usage(s.message() + ", optimal or all");
      const pfio::UnitResult u = pfio::SimulateUnit(in, p);
      r.elapsed = u.elapsed;
      r.stall = u.stall;
      r.fetches = u.fetches;
      r.utilisation = u.utilisation;
    }
    rows.push_back(r);
  }
  const double unit_s = workload == "synth" ? 0.0005 : 0.001;
  std::printf("kimbrel %s: K=%u, F=%u, %u disk%s, %zu references (1 unit = %.1f ms)\n",
              workload.c_str(), in.cache, in.fetch_time, in.disks, in.disks == 1 ? "" : "s",
              in.refs.size(), unit_s * 1000);
  std::printf("%-14s %10s %10s %9s %11s\n", "policy", "elapsed", "stall", "fetches", "utilisation");
  for (const auto &r : rows) {
    std::printf("%-14s %10llu %10llu %9llu %10.1f%%\n", r.policy.c_str(),
                (unsigned long long)r.elapsed, (unsigned long long)r.stall,
                (unsigned long long)r.fetches, 100 * r.utilisation);
  }
  if (!json.empty()) {
    std::FILE *f = std::fopen(json.c_str(), "w");
    if (!f) return Usage("--json " + json + ": cannot write: " + std::strerror(errno));
    auto obj = [&](const Row &r) {
      std::fprintf(f,
                   "{\"workload\": \"%s\", \"disks\": %u, \"policy\": \"%s\", "
                   "\"elapsed_units\": %llu, \"elapsed_s\": %.3f, \"stall_s\": %.3f, "
                   "\"fetches\": %llu, \"utilisation\": %.4f}",
                   workload.c_str(), in.disks, r.policy.c_str(), (unsigned long long)r.elapsed,
                   r.elapsed * unit_s, r.stall * unit_s, (unsigned long long)r.fetches,
                   r.utilisation);
    };
    if (rows.size() == 1) {
      obj(rows[0]);
    } else {
      std::fprintf(f, "{\"runs\": [");
      for (size_t i = 0; i < rows.size(); ++i) {
        if (i) std::fprintf(f, ", ");
        obj(rows[i]);
      }
      std::fprintf(f, "]}");
    }
    std::fprintf(f, "\n");
    std::fclose(f);
  }
  return 0;
}

int Reorder(int argc, char **argv) {
  uint64_t file_size = 256ull << 20, block = 4096, seed = 1;
  std::vector<uint64_t> buffers;
  std::string params = "barracuda7200", json;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return Usage(a + ": missing value");
    std::string v = argv[++i];
    pfio::Status s;
    if (a == "--file-size")
      s = pfio::ParseSize(v, "--file-size", &file_size);
    else if (a == "--block")
      s = pfio::ParseSize(v, "--block", &block);
    else if (a == "--seed")
      s = pfio::ParseSize(v, "--seed", &seed);
    else if (a == "--params")
      params = v;
    else if (a == "--json")
      json = v;
    else if (a == "--buffer") {
      size_t start = 0;
      while (start <= v.size() && s.ok()) {
        size_t comma = v.find(',', start);
        if (comma == std::string::npos) comma = v.size();
        uint64_t b = 0;
        s = pfio::ParseSize(v.substr(start, comma - start), "--buffer", &b);
        if (s.ok()) buffers.push_back(b);
        start = comma + 1;
      }
    } else {
      return Usage("reorder: unknown option " + a);
    }
    if (!s.ok()) return Usage(s.message());
  }
  if (block < 512 || block % 512 != 0)
    return Usage("--block = " + std::to_string(block) + ": expected a multiple of 512");
  if (file_size < 2 * block) return Usage("--file-size must be at least two blocks");
  if (buffers.empty()) return Usage("reorder: --buffer LIST is required, e.g. 384K,18M,256M");
  for (uint64_t b : buffers) {
    if (b < block)
      return Usage("--buffer = " + std::to_string(b) + ": expected at least one block");
  }
  pfio::DiskParams disk;
  pfio::Status s = pfio::LookupDiskParams(params, &disk);
  if (!s.ok()) return Usage(s.message());
  std::printf("reorder: %llu MiB file, %llu-byte blocks, disk %s (%.0f rpm)\n",
              (unsigned long long)(file_size >> 20), (unsigned long long)block, disk.name.c_str(),
              disk.rpm);
  std::printf("%12s %12s %16s %16s\n", "buffer", "runtime_s", "mean_seek_bytes", "2N(K-1)/K(K+1)");
  std::string rows;
  for (uint64_t b : buffers) {
    const pfio::ReorderResult r = pfio::RunReorder(disk, file_size, block, b, seed);
    std::printf("%12llu %12.2f %16.0f %16.0f\n", (unsigned long long)b, r.runtime_s,
                r.mean_seek_bytes, r.formula_seek_bytes);
    rows += pfio::Format(
        "%s{\"buffer\": %llu, \"runtime_s\": %.4f, \"mean_seek_bytes\": %.1f, "
        "\"formula_seek_bytes\": %.1f, \"windows\": %llu}",
        rows.empty() ? "" : ", ", (unsigned long long)b, r.runtime_s, r.mean_seek_bytes,
        r.formula_seek_bytes, (unsigned long long)r.windows);
  }
  if (!json.empty()) {
    std::FILE *f = std::fopen(json.c_str(), "w");
    if (!f) return Usage("--json " + json + ": cannot write: " + std::strerror(errno));
    std::fprintf(f, "{\"file_size\": %llu, \"block\": %llu, \"params\": \"%s\", \"rows\": [%s]}\n",
                 (unsigned long long)file_size, (unsigned long long)block, params.c_str(),
                 rows.c_str());
    std::fclose(f);
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) return Usage("missing subcommand");
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (cmd == "kimbrel") return Kimbrel(argc, argv);
  if (cmd == "reorder") return Reorder(argc, argv);
  if (cmd == "rounds" || cmd == "barve-model" || cmd == "barve-pipeline") {
    return Usage(cmd + ": the disk/bus simulator is not built yet (issue 3 is in progress)");
  }
  return Usage("unknown subcommand \"" + cmd +
               "\"; expected kimbrel, rounds, barve-model, "
               "barve-pipeline or reorder");
}
