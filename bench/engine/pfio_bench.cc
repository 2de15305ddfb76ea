// pfio-bench: out-of-core read benchmark. Makes a self-verifying file, then reads the same blocks
// in the same order with every method, evicting the file from the page cache before each run,
// verifying every byte, and reporting time, throughput, speedup over naive and peak RSS.
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/size_parse.h"
#include "machine_info.h"
#include "methods.h"
#include "testdata/pattern.h"
#include "workloads.h"

namespace pfio::bench {
namespace {

const char kUsage[] = R"(usage: pfio-bench [options]

Reads a generated self-verifying file with several methods in one invocation and compares them.
Before every run the file is evicted from the page cache (fdatasync + POSIX_FADV_DONTNEED); every
byte read is verified against the pattern (each 8-byte word encodes its offset and the seed).

options (sizes take K, M, G suffixes in powers of 1024; lists are comma-separated):
  --workload W      gather | dense | strided | seq                         (default gather)
                      gather : uniform random blocks, total read = file size, repeats allowed
                      dense  : every block once, random order
                      strided: row pass then column pass over a row-major 2D array of blocks
                      seq    : every block in order (the no-harm check)
  --file PATH       data file; made if missing or not matching   (default ./pfio-bench.data)
  --file-size S     size of the data file                                   (default 1G)
  --block S         read size; a multiple of 4K for the O_DIRECT methods     (default 4K)
  --budget LIST     memory for prefetching (pfio) and the fadvise window; with several
                    budgets the budget-dependent methods run once per budget and the
                    others once; "auto" leaves pfio's budget to pfio (MemAvailable above
                    the reserve, shared by the pfio processes of the node)
                                                               (default file size / 4)
  --methods LIST    any of naive,naive-direct,fadvise,raw-qd32,pfio-batch,pfio-pipelined,
                    pfio-uring,pfio-cache                                   (default all)
  --queue-depth N   reads in flight for raw-qd32 and pfio                   (default 32)
  --infill S        pfio infill_max (gaps merged), a size or auto (8K locally, 128K on
                    storage behind FUSE or a network)                     (default auto)
  --max-request S   pfio max_request (largest single read)                   (default 1M)
  --window P        pfio window_percent (pipelined window, % of budget)      (default 100)
  --layout SPEC     pfio layout, e.g. stripe=1MiB,targets=4 (emulated striping: reads split at
                    stripes, issued in rounds across targets)           (default: one target)
  --seed N          pattern and workload seed                               (default 1)
  --repeat N        run the whole list of methods N times, interleaved and rotated (each
                    repeat starts one method later), to expose the run-to-run noise of
                    shared machines; docs/ reports medians                  (default 1)
  --json FILE       also write the results as JSON
  --keep-file       keep a data file this run created (an existing one is always kept)
  --quiet           no progress lines
  --help            this text

methods:
  naive           buffered pread, one block at a time in access order
  naive-direct    O_DIRECT pread in access order
  fadvise         POSIX_FADV_WILLNEED on the next budget-sized window, then buffered pread
  raw-qd32        libaio O_DIRECT reads of the same blocks at queue depth 32, no plan: the
                  device limit for this pattern
  pfio-batch      pfio, window mode batch (fetch a sorted window, then serve it)
  pfio-pipelined  pfio, window mode pipelined (keep the budget full as reads free memory)
  pfio-uring      pfio-pipelined on the io_uring backend instead of libaio
  pfio-cache      pfio-pipelined in the page-cache buffer kind (buffer = cache): the plan is
                  advised ahead (POSIX_FADV_WILLNEED) within the budget and pfio_read copies
                  the bytes out of the page cache; the other pfio methods use pfio's reorder
                  buffer (buffer = engine), whatever PFIO_BUFFER says

output: a table on stdout (seconds from the method's start to its last byte checked, MiB/s,
speedup over naive, peak RSS, CPU per read of the method's whole process, verified); with
--json: {"workload", "file_size", "block", "budget", "reads", "machine", "verify_us_per_read",
"runs": [{"method", "seconds", "teardown_seconds" (close, io_destroy, context destroy after the
last byte, timed apart as fio leaves them out), "bytes", "mib_per_s",
"verified", "peak_rss_bytes", "cpu_user_s", "cpu_sys_s", "cpu_us_per_read", "user_us_per_read",
"own_cpu_us_per_read", "stats"}]}. Exit status 1 if any run failed or any byte did not verify.
)";

struct Options {
  std::string workload = "gather", file = "pfio-bench.data", json, layout;
  uint64_t file_size = 1ull << 30, block = 4096, seed = 1;
  std::string infill = "auto";
  std::vector<uint64_t> budgets;
  uint64_t max_request = 1 << 20;
  uint32_t queue_depth = 32, refill = 100, repeat = 1;
  std::vector<std::string> methods = AllMethods();
  bool keep = false, quiet = false;
};

int Usage(const std::string &err) {
  std::fprintf(stderr, "pfio-bench: %s\n(run pfio-bench --help for the options)\n", err.c_str());
  return 2;
}

std::vector<std::string> SplitList(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// Returns -1 to go on, else an exit code.
int ParseArgs(int argc, char **argv, Options *o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (a == "--keep-file") {
      o->keep = true;
      continue;
    }
    if (a == "--quiet") {
      o->quiet = true;
      continue;
    }
    static const char *const kValueOptions[] = {
        "--workload", "--file",        "--file-size",   "--block",  "--budget",
        "--infill",   "--queue-depth", "--max-request", "--window", "--repeat",
        "--seed",     "--layout",      "--json",        "--methods"};
    if (std::find(std::begin(kValueOptions), std::end(kValueOptions), a) ==
        std::end(kValueOptions)) {
      return Usage("unknown option " + a);
    }
    if (i + 1 >= argc) return Usage(a + ": missing value");
    std::string v = argv[++i];
    Status s;
    uint64_t n = 0;
    if (a == "--workload") {
      if (!IsWorkload(v))
        return Usage("--workload = \"" + v + "\": expected gather, dense, strided or seq");
      o->workload = v;
    } else if (a == "--file") {
      o->file = v;
    } else if (a == "--file-size") {
      s = ParseSize(v, "--file-size", &o->file_size);
    } else if (a == "--block") {
      s = ParseSize(v, "--block", &o->block);
    } else if (a == "--budget") {
      o->budgets.clear();
      for (const auto &item : SplitList(v)) {
        uint64_t b = 0;
        if (item == "auto") {  // pfio's own auto budget (the node's share); fadvise: 1/4 file
          o->budgets.push_back(0);
          continue;
        }
        s = ParseSize(item, "--budget", &b);
        if (!s.ok()) break;
        if (b < (2 << 20)) {
          return Usage("--budget = " + item + ": expected auto or at least 2M (pfio's smallest)");
        }
        o->budgets.push_back(b);
      }
    } else if (a == "--infill") {
      uint64_t bytes = 0;
      if (v != "auto") s = ParseSize(v, "--infill", &bytes);
      o->infill = v;
    } else if (a == "--queue-depth") {
      s = ParseSize(v, "--queue-depth", &n);
      if (s.ok() && (n < 1 || n > 1024))
        return Usage("--queue-depth = " + v + ": expected 1 .. 1024");
      o->queue_depth = static_cast<uint32_t>(n);
    } else if (a == "--max-request") {
      s = ParseSize(v, "--max-request", &o->max_request);
    } else if (a == "--window") {
      s = ParseSize(v, "--window", &n);
      if (s.ok() && (n < 1 || n > 100)) return Usage("--window = " + v + ": expected 1 .. 100");
      o->refill = static_cast<uint32_t>(n);
    } else if (a == "--repeat") {
      s = ParseSize(v, "--repeat", &n);
      if (s.ok() && (n < 1 || n > 100)) return Usage("--repeat = " + v + ": expected 1 .. 100");
      o->repeat = static_cast<uint32_t>(n);
    } else if (a == "--seed") {
      char *end = nullptr;
      errno = 0;
      o->seed = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || errno != 0 || v[0] == '-')
        return Usage("--seed = \"" + v + "\": expected a whole number");
    } else if (a == "--layout") {
      o->layout = v;
    } else if (a == "--json") {
      o->json = v;
    } else if (a == "--methods") {
      o->methods = SplitList(v);
      for (const auto &m : o->methods) {
        if (!IsMethod(m)) {
          return Usage("--methods: \"" + m +
                       "\" is not a method; expected naive, naive-direct, "
                       "fadvise, raw-qd32, pfio-batch, pfio-pipelined, pfio-uring or pfio-cache");
        }
      }
      if (o->methods.empty())
        return Usage("--methods = \"" + v + "\": expected at least one method");
    } else {
      return Usage("unknown option " + a);
    }
    if (!s.ok()) return Usage(s.message());
  }
  if (o->block == 0) return Usage("--block = 0: expected at least 1 byte");
  if (o->file_size < o->block) return Usage("--file-size must be at least --block");
  if (o->file_size / o->block > 0xFFFFFFFFull)
    return Usage("--file-size / --block: at most 2^32 blocks");
  if (o->budgets.empty()) o->budgets.push_back(std::max<uint64_t>(o->file_size / 4, 1 << 20));
  for (const auto &m : o->methods) {
    if (MethodNeedsDirectAlignment(m) && o->block % 4096 != 0) {
      return Usage("--block = " + std::to_string(o->block) + ": method " + m +
                   " uses O_DIRECT and needs a multiple of 4096");
    }
  }
  return -1;
}

struct Row {
  std::string method;
  uint64_t budget = 0;  // 0: the method does not use one
  RunResult r;
  long peak_rss_kib = 0;
  double cpu_user_s = 0, cpu_sys_s = 0;  // the method's process, all its threads
};

double Seconds(const timeval &t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
}

// CPU seconds per read that checking the bytes costs (every method pays it the same): measured
// here on `block`-byte buffers holding the pattern, so it can be taken off the methods' CPU.
double VerifySecondsPerRead(uint64_t block, uint64_t seed) {
  std::vector<char> buf(block);
  FillPattern(buf.data(), 0, block, seed);
  const int n =
      static_cast<int>(std::max<uint64_t>(1000, (256ull << 20) / std::max<uint64_t>(block, 1)));
  timespec t0{}, t1{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  uint64_t sink = 0;
  for (int i = 0; i < n; ++i) sink += FirstMismatch(buf.data(), 0, block, seed);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  if (sink == 42) std::printf(" ");  // keep the loop
  return ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9) / n;
}

// Runs one method in a child so peak RSS and page-cache effects are its own.
bool RunInChild(const RunSpec &spec, Row *row) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    close(fds[0]);
    RunResult r = RunMethod(spec);
    ssize_t w = write(fds[1], &r, sizeof r);
    _exit(w == sizeof r ? 0 : 1);
  }
  close(fds[1]);
  ssize_t got = read(fds[0], &row->r, sizeof row->r);
  close(fds[0]);
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  row->peak_rss_kib = ru.ru_maxrss;
  row->cpu_user_s = Seconds(ru.ru_utime);
  row->cpu_sys_s = Seconds(ru.ru_stime);
  if (got != sizeof row->r || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    row->r = RunResult{};
    row->r.failed = 1;
    std::snprintf(row->r.error, sizeof row->r.error, "child exited abnormally (status %d)", status);
  }
  return true;
}

std::string Mib(uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0fM", b / 1048576.0);
  return buf;
}

bool UsesBudget(const std::string &method) {
  return method == "fadvise" || method.rfind("pfio-", 0) == 0;
}

bool WriteJson(const Options &o, const MachineInfo &m, const std::vector<Row> &rows, uint64_t reads,
               double verify_s_per_read) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["workload"] = o.workload;
  j["file_size"] = o.file_size;
  j["block"] = o.block;
  j["budget"] = o.budgets.front();
  j["reads"] = reads;
  j["file"] = o.file;
  j["cache"] =
      "file evicted with fdatasync + POSIX_FADV_DONTNEED before every run; naive and fadvise "
      "read through the page cache, the others use O_DIRECT";
  j["machine"] = {{"cpu", m.cpu},
                  {"cores", m.cores},
                  {"mem_total", m.mem_total},
                  {"kernel", m.kernel},
                  {"device", m.device},
                  {"rotational", m.device_rotational},
                  {"scheduler", m.scheduler},
                  {"filesystem", m.filesystem}};
  j["cpu_note"] =
      "cpu_*: the method's whole process (user + system, all threads), from wait4; "
      "verify_us_per_read: what checking one block's bytes costs, measured apart; "
      "own_cpu_us_per_read = cpu_us_per_read - verify_us_per_read";
  j["verify_us_per_read"] = verify_s_per_read * 1e6;
  j["runs"] = Json::array();
  for (const Row &row : rows) {
    const RunResult &r = row.r;
    const double per_read = reads ? (row.cpu_user_s + row.cpu_sys_s) / reads * 1e6 : 0;
    Json run = {{"method", row.method},
                {"seconds", r.seconds},
                {"teardown_seconds", r.teardown_seconds},
                {"bytes", r.bytes},
                {"mib_per_s", r.seconds > 0 ? r.bytes / r.seconds / (1 << 20) : 0.0},
                {"verified", !r.failed && r.bad_bytes == 0},
                {"peak_rss_bytes", static_cast<uint64_t>(row.peak_rss_kib) * 1024},
                {"budget", row.budget},
                {"cpu_user_s", row.cpu_user_s},
                {"cpu_sys_s", row.cpu_sys_s},
                {"cpu_us_per_read", per_read},
                {"user_us_per_read", reads ? row.cpu_user_s / reads * 1e6 : 0},
                {"own_cpu_us_per_read", per_read - verify_s_per_read * 1e6}};
    if (r.failed) run["error"] = r.error;
    if (r.has_stats) {
      const pfio_stats &s = r.stats;
      run["stats"] = {{"hits", s.hits},
                      {"misses", s.misses},
                      {"stalls", s.stalls},
                      {"stall_seconds", s.stall_seconds},
                      {"bytes_read", s.bytes_read},
                      {"bytes_wasted", s.bytes_wasted},
                      {"requests", s.requests},
                      {"windows", s.windows},
                      {"budget_cap", s.budget_cap},
                      {"budget_cuts", s.budget_cuts},
                      {"memory_peak", s.memory_peak},
                      {"backend", s.backend}};
    }
    j["runs"].push_back(std::move(run));
  }
  std::FILE *f = std::fopen(o.json.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "pfio-bench: --json %s: cannot write: %s\n", o.json.c_str(),
                 std::strerror(errno));
    return false;
  }
  const std::string text = j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok) std::fprintf(stderr, "pfio-bench: --json %s: write failed\n", o.json.c_str());
  return ok;
}

int Main(int argc, char **argv) {
  Options o;
  if (int rc = ParseArgs(argc, argv, &o); rc >= 0) return rc;
  const bool tty = isatty(2) && !o.quiet;

  bool reused = false;
  Status s = MakePatternFile(o.file, o.file_size, o.seed, !o.quiet, &reused);
  if (!s.ok()) {
    std::fprintf(stderr, "pfio-bench: %s\n", s.message().c_str());
    return 1;
  }
  const std::vector<uint32_t> blocks = MakeWorkload(o.workload, o.file_size / o.block, o.seed);
  const MachineInfo m = DescribeMachine(o.file);
  std::string budget_list;
  for (uint64_t b : o.budgets) budget_list += (budget_list.empty() ? "" : ",") + Mib(b);
  std::printf(
      "pfio-bench: workload %s, file %s (%.2f GiB, %s), block %llu, budget %s, "
      "%zu reads\n",
      o.workload.c_str(), o.file.c_str(), o.file_size / 1073741824.0,
      reused ? "reused" : "made now", (unsigned long long)o.block, budget_list.c_str(),
      blocks.size());
  std::printf("machine: %s, %u cores, %.1f GiB RAM, %s, device %s (rotational=%s, %s), %s\n",
              m.cpu.c_str(), m.cores, m.mem_total / 1073741824.0, m.kernel.c_str(),
              m.device.c_str(), m.device_rotational.c_str(), m.scheduler.c_str(),
              m.filesystem.c_str());
  const double verify_s = VerifySecondsPerRead(o.block, o.seed);
  std::printf(
      "page cache evicted before every run; every byte verified (%.2f us of CPU per read,"
      " counted in cpu/read)\n\n",
      verify_s * 1e6);
  std::printf("%-15s %7s %9s %10s %8s %10s %9s %9s\n", "method", "budget", "seconds", "MiB/s",
              "speedup", "peakRSS", "cpu/read", "verified");

  std::vector<Row> rows;
  double naive_seconds = 0;
  bool all_ok = true;
  std::vector<std::pair<std::string, uint64_t>> runs;
  for (uint32_t rep = 0; rep < o.repeat; ++rep) {
    // Each repeat starts one method later, so no method always runs right after the same other
    // (on a VM, the state the previous run left in memory shows in the next run's time).
    std::vector<std::string> order(o.methods.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = o.methods[(i + rep) % order.size()];
    for (const auto &method : order) {
      if (!UsesBudget(method)) {
        runs.emplace_back(method, 0);
        continue;
      }
      for (uint64_t b : o.budgets) runs.emplace_back(method, b);
    }
  }
  for (const auto &[method, budget] : runs) {
    s = EvictFromPageCache(o.file);
    if (!s.ok()) {
      std::fprintf(stderr, "pfio-bench: %s\n", s.message().c_str());
      return 1;
    }
    RunSpec spec;
    spec.method = method;
    spec.path = o.file;
    spec.file_size = o.file_size;
    spec.block = o.block;
    spec.budget = budget ? budget : o.budgets.front();
    spec.queue_depth = o.queue_depth;
    spec.infill = o.infill;
    spec.max_request = o.max_request;
    spec.window_percent = o.refill;
    spec.layout = o.layout;
    spec.seed = o.seed;
    spec.progress = tty;
    spec.blocks = &blocks;
    Row row;
    row.method = method;
    row.budget = budget;
    if (!RunInChild(spec, &row)) {
      std::fprintf(stderr, "pfio-bench: fork failed: %s\n", std::strerror(errno));
      return 1;
    }
    const RunResult &r = row.r;
    const bool ok = !r.failed && r.bad_bytes == 0 && r.bytes == blocks.size() * o.block;
    all_ok = all_ok && ok;
    if (method == "naive" && ok) naive_seconds = r.seconds;
    char speed[32] = "-";
    if (ok && naive_seconds > 0 && r.seconds > 0) {  // a failed run has no speed
      std::snprintf(speed, sizeof speed, "%.2fx", naive_seconds / r.seconds);
    }
    std::printf("%-15s %7s %9.2f %10.1f %8s %8.0f M %6.2f us %9s\n", method.c_str(),
                budget ? Mib(budget).c_str() : "-", r.seconds,
                r.seconds > 0 ? r.bytes / r.seconds / 1048576.0 : 0.0, speed,
                row.peak_rss_kib / 1024.0,
                (row.cpu_user_s + row.cpu_sys_s) / std::max<size_t>(1, blocks.size()) * 1e6,
                ok ? "yes" : "NO");
    if (r.failed) std::printf("  error: %s\n", r.error);
    if (r.bad_bytes) std::printf("  %llu bytes did not verify\n", (unsigned long long)r.bad_bytes);
    std::fflush(stdout);
    rows.push_back(row);
  }
  if (!o.json.empty() && !WriteJson(o, m, rows, blocks.size(), verify_s)) all_ok = false;
  if (!reused && !o.keep) unlink(o.file.c_str());
  return all_ok ? 0 : 1;
}

}  // namespace
}  // namespace pfio::bench

int main(int argc, char **argv) {
  return pfio::bench::Main(argc, argv);
}
