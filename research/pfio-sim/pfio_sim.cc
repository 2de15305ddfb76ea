// pfio-sim: the paper experiments behind pfio's scheduler, one subcommand each: Kimbrel's
// policies in the unit-time model, libprefetch's reorder experiment on one simulated disk, and
// Barve's disks on a shared bus (rounds, the analytic model, the LoadIntoDiskBuffer pipeline).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/size_parse.h"
#include "engine_cmd.h"
#include "sim/barve_model.h"
#include "sim/bus_sim.h"
#include "sim/reorder_experiment.h"
#include "sim/unit_model.h"

namespace {

const char kUsage[] = R"(usage: pfio-sim SUBCOMMAND [options]

subcommands:
  kimbrel --workload W --disks N --policy POL [--fetch F] [--reverse-fetch R]
          [--compute poisson|fixed] [--json FILE]
      Kimbrel et al.'s theoretical model of parallel prefetching and caching, in unit time:
      W: figure1  the 6-reference example of Kimbrel Fig. 1 (K=4, F=2, 2 disks; N ignored);
                  a reference takes 1 unit, a fetch 2
         synth    50 passes over a loop of 2000 blocks striped over N disks, K=1280 (§4.2);
                  units of 0.5 ms: a reference 2 (1 ms compute) on average, a fetch F,
                  issuing one 1 (the paper's 0.5 ms driver overhead); compute times are
                  Poisson arrivals with a 1 ms mean as in the paper (§4.1; seeded), or with
                  --compute fixed exactly 1 ms each
      POL: demand, fixed-horizon, aggressive, forestall, reverse-aggressive (offline
           yardstick), optimal (figure1 only), or all
      F: fetch time in units for synth (default 8: 4 ms, the upper end of the 3-4 ms average
         response Kimbrel reports for synth, §4.2; 30 = 15 ms is the paper's estimate for the
         horizon H, "usually an overestimate", not the synth response)
      R: the F reverse aggressive's reverse pass assumes; default tuned: per run, the best of
         F/2 .. 32F (the paper tuned it per trace and disk count, §4.4); the table says which
      prints a table; --json FILE writes {"elapsed_s", "stall_s", "fetches", "utilisation"}
      (one object, or {"runs": [...]} with --policy all)
  reorder --file-size S --block B --buffer LIST [--params P] [--seed N] [--json FILE]
      libprefetch §3.2 on one simulated 7200 rpm disk (P, default barracuda7200): uniformly
      random block reads (as many as the file has blocks), one reorder buffer of K unique
      blocks at a time, sorted and read in C-LOOK order at queue depth 1. For each buffer size
      in LIST: runtime and mean seek distance, next to 2N(K-1)/(K(K+1)) blocks. --json writes
      {"rows": [{"buffer", "runtime_s", "mean_seek_bytes", "formula_seek_bytes"}]}
  rounds --params P --disks D --block B [--fence F] [--seed N] [--set K=V,...] [--json FILE]
      D disks of parameter set P (cheetah, barracuda, wren: Barve Table 2) on one bus, one
      process per disk reading random blocks; prints Barve §4.2's round-formation metric and
      the requests each disk served. JSON: {"round_fraction", "requests_per_disk", "mb_s"}
      --set K=V,... (rounds, barve-model, barve-pipeline) overrides the set's constants:
      host_ms, drive_ms, stage_host_ms, cmd_bus_ms, avg_seek_ms, a_ms (ms),
      head_rate, bus_rate (MB/s). The defaults are Barve's Table 2 plus constants fitted to
      his Tables 4-6 by research/scripts/fit_barve.py (research/simulations.md says which)
  barve-model --params P [--json FILE]
      simulated (40 s of virtual time after 1 s of warm-up) vs analytic (eqs. 3/4, eq. 11)
      throughput for D = 1..7, blocks 8..128 KiB, fence 0 and 255. JSON: {"rows": [{"disks", "block", "fence", "simulated_mb_s",
      "model_mb_s"}]}
  barve-pipeline --params P [--json FILE]
      naive (one process per disk) vs the LoadIntoDiskBuffer pipeline (Barve §5) for D = 2, 3,
      4, 7 and blocks 8..128 KiB. JSON: {"rows": [{"disks", "block", "naive_mb_s",
      "pipelined_mb_s"}]}
  engine --params P --disks D [--buses B] --block B [--stripe S] [--file-size S]
         [--reads N] [--compute-ms X] [--budget M] [--policy LIST|all] [--stage LIST]
         [--horizon H] [--target-reads N] [--lookahead N] [--seed N] [--json FILE]
      the real pfio engine (scheduler, rounds, staging, reorder buffer) on the sim backend:
      D disks of set P on B buses (disk i on bus i mod B), a virtual file (default 1G)
      striped over them (stripe default = block), N (default 2000) random block reads with X
      ms of compute after each, every byte verified. Runs the application's own reads
      ("direct", one at a time) and then pfio for each policy (aggressive, fixed-horizon,
      forestall) and stage (none, device, auto; default none,device). Budget default 64M.
      Prints virtual elapsed time, MB/s, stall, stages, reads served from a drive cache, and
      the round metric. JSON: {"rows": [{"method", "policy", "stage", "disks", "block",
      "elapsed_s", "mb_s", "stall_s", "stages", "from_cache", "round_fraction",
      "bytes_verified"}]}
)";

int Usage(const std::string &msg) {
  std::fprintf(stderr, "pfio-sim: %s\n(run pfio-sim --help)\n", msg.c_str());
  return 2;
}

struct Row {
  std::string policy;
  uint64_t elapsed = 0, stall = 0, fetches = 0;
  uint32_t reverse_fetch = 0;  // reverse-aggressive: the F its reverse pass assumed
  double utilisation = 0;
};

int Kimbrel(int argc, char **argv) {
  std::string workload, policy, json, compute = "poisson";
  uint64_t disks = 1, fetch = 8, reverse_fetch = 0;
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
    else if (a == "--compute")
      compute = v;
    else if (a == "--reverse-fetch" && v != "tuned") {
      s = pfio::ParseSize(v, "--reverse-fetch", &reverse_fetch);
      if (s.ok() && reverse_fetch == 0)
        return Usage("--reverse-fetch = 0: expected 1 .. 100000 or tuned");
    } else
      return Usage("kimbrel: unknown option " + a);
    if (!s.ok()) return Usage(s.message());
  }
  if (workload != "figure1" && workload != "synth") {
    return Usage("--workload = \"" + workload + "\": expected figure1 or synth");
  }
  if (compute != "poisson" && compute != "fixed")
    return Usage("--compute = \"" + compute + "\": expected poisson or fixed");
  if (disks < 1 || disks > 1024)
    return Usage("--disks = " + std::to_string(disks) + ": expected 1 .. 1024");
  if (fetch < 1 || fetch > 100000)
    return Usage("--fetch = " + std::to_string(fetch) + ": expected 1 .. 100000");
  if (reverse_fetch > 100000) {
    return Usage("--reverse-fetch = " + std::to_string(reverse_fetch) +
                 ": expected 1 .. 100000 or tuned");
  }
  pfio::UnitInstance in =
      workload == "figure1"
          ? pfio::Figure1Instance()
          : pfio::SynthInstance(static_cast<uint32_t>(disks), 50, 2000, 1280,
                                static_cast<uint32_t>(fetch), compute == "poisson" ? 1 : 0);
  std::vector<std::string> policies;
  if (policy == "all") {
    policies = {"demand", "fixed-horizon", "aggressive", "forestall", "reverse-aggressive"};
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
      pfio::UnitResult u;
      if (p == pfio::UnitPolicy::kReverseAggressive && reverse_fetch == 0) {
        u = pfio::SimulateReverseAggressiveTuned(in, &r.reverse_fetch);
      } else {
        pfio::UnitInstance fixed = in;
        fixed.reverse_fetch_time = static_cast<uint32_t>(reverse_fetch);
        u = pfio::SimulateUnit(fixed, p);
        if (p == pfio::UnitPolicy::kReverseAggressive)
          r.reverse_fetch = static_cast<uint32_t>(reverse_fetch);
      }
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
  std::printf("%-18s %10s %10s %9s %11s\n", "policy", "elapsed", "stall", "fetches", "utilisation");
  for (const auto &r : rows) {
    std::printf("%-18s %10llu %10llu %9llu %10.1f%%", r.policy.c_str(),
                (unsigned long long)r.elapsed, (unsigned long long)r.stall,
                (unsigned long long)r.fetches, 100 * r.utilisation);
    if (r.reverse_fetch) std::printf("   (reverse pass F = %u)", r.reverse_fetch);
    std::printf("\n");
  }
  if (!json.empty()) {
    std::FILE *f = std::fopen(json.c_str(), "w");
    if (!f) return Usage("--json " + json + ": cannot write: " + std::strerror(errno));
    auto obj = [&](const Row &r) {
      std::fprintf(f,
                   "{\"workload\": \"%s\", \"disks\": %u, \"policy\": \"%s\", "
                   "\"elapsed_units\": %llu, \"elapsed_s\": %.3f, \"stall_s\": %.3f, "
                   "\"fetches\": %llu, \"utilisation\": %.4f, \"reverse_fetch\": %u}",
                   workload.c_str(), in.disks, r.policy.c_str(), (unsigned long long)r.elapsed,
                   r.elapsed * unit_s, r.stall * unit_s, (unsigned long long)r.fetches,
                   r.utilisation, r.reverse_fetch);
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

struct BusArgs {
  std::string params = "cheetah", json, overrides;
  uint64_t disks = 4, block = 64 * 1024, fence = 0, seed = 1;
};

int ParseBusArgs(int argc, char **argv, BusArgs *a, pfio::BusDiskParams *disk) {
  for (int i = 2; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc) return Usage(k + ": missing value");
    std::string v = argv[++i];
    pfio::Status s;
    if (k == "--params")
      a->params = v;
    else if (k == "--json")
      a->json = v;
    else if (k == "--disks")
      s = pfio::ParseSize(v, "--disks", &a->disks);
    else if (k == "--block")
      s = pfio::ParseSize(v, "--block", &a->block);
    else if (k == "--fence")
      s = pfio::ParseSize(v, "--fence", &a->fence);
    else if (k == "--seed")
      s = pfio::ParseSize(v, "--seed", &a->seed);
    else if (k == "--set")
      a->overrides += (a->overrides.empty() ? "" : ",") + v;
    else
      return Usage(std::string(argv[1]) + ": unknown option " + k);
    if (!s.ok()) return Usage(s.message());
  }
  if (a->disks < 1 || a->disks > 16)
    return Usage("--disks = " + std::to_string(a->disks) + ": expected 1 .. 16");
  if (a->block < 4096 || a->block > (4u << 20) || a->block % 512) {
    return Usage("--block = " + std::to_string(a->block) +
                 ": expected a multiple of 512 in 4K .. 4M");
  }
  if (a->fence > 255) return Usage("--fence = " + std::to_string(a->fence) + ": expected 0 .. 255");
  pfio::Status s = pfio::LookupBusDisk(a->params, disk);
  if (s.ok() && !a->overrides.empty()) s = pfio::OverrideBusDisk(a->overrides, disk);
  if (!s.ok()) return Usage(s.message());
  return -1;
}

std::FILE *OpenJson(const std::string &path) {
  std::FILE *f = std::fopen(path.c_str(), "w");
  if (!f)
    std::fprintf(stderr, "pfio-sim: --json %s: cannot write: %s\n", path.c_str(),
                 std::strerror(errno));
  return f;
}

// Writes {"params": P, "rows": [ROWS]} to `path` (nothing when path is empty); the exit code.
int WriteRows(const std::string &path, const std::string &params, const std::string &rows) {
  if (path.empty()) return 0;
  std::FILE *f = OpenJson(path);
  if (!f) return 1;
  std::fprintf(f, "{\"params\": \"%s\", \"rows\": [%s]}\n", params.c_str(), rows.c_str());
  return std::fclose(f) == 0 ? 0 : 1;
}

int Rounds(int argc, char **argv) {
  BusArgs a;
  pfio::BusDiskParams disk;
  if (int rc = ParseBusArgs(argc, argv, &a, &disk); rc >= 0) return rc;
  pfio::BusSimConfig c;
  c.disk = disk;
  c.disks = static_cast<uint32_t>(a.disks);
  c.block = a.block;
  c.fence = static_cast<uint32_t>(a.fence);
  c.seed = a.seed;
  const pfio::BusSimResult r = pfio::RunBusSim(c);
  std::printf(
      "rounds: %s, %u disks, %llu-byte blocks, fence %u: round_fraction %.3f (each disk on a "
      "bus of its own: %.3f), round_excess %.3f, %.2f MB/s\n",
      disk.name.c_str(), c.disks, (unsigned long long)c.block, c.fence, r.round_fraction,
      r.round_fraction_independent, r.round_excess, r.mb_s);
  std::string per;
  for (size_t i = 0; i < r.requests_per_disk.size(); ++i) {
    std::printf("  disk %zu: %llu requests\n", i, (unsigned long long)r.requests_per_disk[i]);
    per += (i ? ", " : "") + std::to_string(r.requests_per_disk[i]);
  }
  if (!a.json.empty()) {
    std::FILE *f = OpenJson(a.json);
    if (!f) return 1;
    std::fprintf(f,
                 "{\"params\": \"%s\", \"disks\": %u, \"block\": %llu, \"fence\": %u, "
                 "\"round_fraction\": %.4f, \"round_fraction_independent\": %.4f, "
                 "\"round_excess\": %.4f, \"requests_per_disk\": [%s], \"mb_s\": %.3f}\n",
                 disk.name.c_str(), c.disks, (unsigned long long)c.block, c.fence, r.round_fraction,
                 r.round_fraction_independent, r.round_excess, per.c_str(), r.mb_s);
    std::fclose(f);
  }
  return 0;
}

const uint64_t kBlocksKiB[] = {8, 16, 32, 64, 96, 128};

int BarveModel(int argc, char **argv) {
  BusArgs a;
  pfio::BusDiskParams disk;
  if (int rc = ParseBusArgs(argc, argv, &a, &disk); rc >= 0) return rc;
  std::printf("barve-model: %s (simulated vs eqs. 3/4 with eq. 11)\n", disk.name.c_str());
  std::printf("%5s %6s %5s %12s %10s %7s\n", "disks", "block", "fence", "simulated", "model",
              "error");
  std::string rows;
  for (uint32_t fence : {0u, 255u}) {
    for (uint32_t d = 1; d <= 7; ++d) {
      for (uint64_t kib : kBlocksKiB) {
        pfio::BusSimConfig c;
        c.disk = disk;
        c.disks = d;
        c.block = kib * 1024;
        c.fence = fence;
        c.seed = a.seed;
        c.measure_s = 40;  // one 10 s run varies by about +-1.5 % between seeds
        const double sim = pfio::RunBusSim(c).mb_s;
        const double model = pfio::ModelMbPerS(disk, d, c.block, fence);
        std::printf("%5u %5lluK %5u %9.2f MB/s %7.2f %+6.1f%%\n", d, (unsigned long long)kib, fence,
                    sim, model, (sim / model - 1) * 100);
        rows += pfio::Format(
            "%s{\"disks\": %u, \"block\": %llu, \"fence\": %u, "
            "\"simulated_mb_s\": %.4f, \"model_mb_s\": %.4f}",
            rows.empty() ? "" : ", ", d, (unsigned long long)c.block, fence, sim, model);
      }
    }
  }
  return WriteRows(a.json, disk.name, rows);
}

int BarvePipeline(int argc, char **argv) {
  BusArgs a;
  pfio::BusDiskParams disk;
  if (int rc = ParseBusArgs(argc, argv, &a, &disk); rc >= 0) return rc;
  std::printf(
      "barve-pipeline: %s, fence 0 (naive: one process per disk; pipelined: "
      "LoadIntoDiskBuffer)\n",
      disk.name.c_str());
  std::printf("%5s %6s %10s %10s %7s\n", "disks", "block", "naive", "pipelined", "gain");
  std::string rows;
  for (uint32_t d : {2u, 3u, 4u, 7u}) {
    for (uint64_t kib : kBlocksKiB) {
      pfio::BusSimConfig c;
      c.disk = disk;
      c.disks = d;
      c.block = kib * 1024;
      c.seed = a.seed;
      const double naive = pfio::RunBusSim(c).mb_s;
      c.pipeline = true;
      const double piped = pfio::RunBusSim(c).mb_s;
      std::printf("%5u %5lluK %10.2f %10.2f %+6.1f%%\n", d, (unsigned long long)kib, naive, piped,
                  (piped / naive - 1) * 100);
      rows += pfio::Format(
          "%s{\"disks\": %u, \"block\": %llu, \"naive_mb_s\": %.4f, "
          "\"pipelined_mb_s\": %.4f}",
          rows.empty() ? "" : ", ", d, (unsigned long long)c.block, naive, piped);
    }
  }
  return WriteRows(a.json, disk.name, rows);
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
  if (cmd == "rounds") return Rounds(argc, argv);
  if (cmd == "barve-model") return BarveModel(argc, argv);
  if (cmd == "barve-pipeline") return BarvePipeline(argc, argv);
  if (cmd == "engine") return EngineCommand(argc, argv);
  return Usage("unknown subcommand \"" + cmd +
               "\"; expected kimbrel, rounds, barve-model, "
               "barve-pipeline, engine or reorder");
}
