#include "engine/config.h"

#include <cstring>

#include "layout/lustre_layout.h"
#include "layout/striped_layout.h"
#include "memory/memory_signals.h"

namespace pfio {

namespace {
// Enum fields come from C, where any int fits; read them as ints so an out-of-range value is
// reported instead of being undefined behaviour in C++.
template <class E>
int RawEnum(const E &e) {
  int v;
  static_assert(sizeof(E) == sizeof(int));
  std::memcpy(&v, &e, sizeof v);
  return v;
}
constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;
using ull = unsigned long long;
}  // namespace

void ConfigDefaults(pfio_config *c) {
  c->memory_budget = 0;
  c->backend = PFIO_BACKEND_AUTO;
  c->window_mode = PFIO_WINDOW_PIPELINED;
  c->infill_max = 32 * kKiB;
  c->max_request = 1 * kMiB;
  c->queue_depth = 32;
  c->window_percent = 100;
  c->timeout_ms = 60000;
  c->aimd = 1;
  c->stats_path = nullptr;
  c->layout = nullptr;
  c->policy = PFIO_POLICY_AGGRESSIVE;
  c->horizon = 0;
  c->forestall_factor = 0;
  c->target_reads = 0;
  c->target_stages = 1;
  c->lookahead_rounds = 0;
  c->stage = PFIO_STAGE_AUTO;
}

Status ValidateConfig(const pfio_config &c) {
  const uint64_t total = ReadMeminfoBytes("/proc/meminfo", "MemTotal");
  if (c.memory_budget != 0 && (c.memory_budget < 2 * kMiB || (total && c.memory_budget > total))) {
    return Status::Invalid(
        Format("memory_budget = %llu: expected 0 (auto) or 2097152 (2 MiB) .. "
               "%llu (MemTotal)",
               (ull)c.memory_budget, (ull)total));
  }
  if (const int b = RawEnum(c.backend); b < PFIO_BACKEND_AUTO || b > PFIO_BACKEND_URING) {
    return Status::Invalid(
        Format("backend = %d: expected 0 (auto), 1 (aio), 2 (sync) or 3 (uring)", b));
  }
  if (const int w = RawEnum(c.window_mode); w != PFIO_WINDOW_PIPELINED && w != PFIO_WINDOW_BATCH) {
    return Status::Invalid(Format("window_mode = %d: expected 0 (pipelined) or 1 (batch)", w));
  }
  if (c.infill_max > 16 * kMiB) {
    return Status::Invalid(
        Format("infill_max = %llu: expected 0 .. 16777216 (16 MiB)", (ull)c.infill_max));
  }
  if (c.max_request < 64 * kKiB || c.max_request > 64 * kMiB || c.max_request % 4096 != 0) {
    return Status::Invalid(
        Format("max_request = %llu: expected a multiple of 4096 in 65536 (64 KiB)"
               " .. 67108864 (64 MiB)",
               (ull)c.max_request));
  }
  if (c.queue_depth < 1 || c.queue_depth > 1024) {
    return Status::Invalid(Format("queue_depth = %u: expected 1 .. 1024", c.queue_depth));
  }
  if (c.window_percent < 1 || c.window_percent > 100) {
    return Status::Invalid(Format("window_percent = %u: expected 1 .. 100", c.window_percent));
  }
  if (c.timeout_ms < 1 || c.timeout_ms > 3600000) {
    return Status::Invalid(Format("timeout_ms = %u: expected 1 .. 3600000", c.timeout_ms));
  }
  if (c.aimd != 0 && c.aimd != 1) {
    return Status::Invalid(Format("aimd = %d: expected 0 (fixed budget) or 1 (adaptive)", c.aimd));
  }
  if (c.layout != nullptr && std::string(c.layout) != kLustreLayout) {
    std::unique_ptr<StripedLayout> l;
    Status s = StripedLayout::Parse(c.layout, &l);
    if (!s.ok()) return Status::Invalid("layout: " + s.message() + " (or \"lustre\")");
  }
  if (const int p = RawEnum(c.policy); p < PFIO_POLICY_AGGRESSIVE || p > PFIO_POLICY_FORESTALL) {
    return Status::Invalid(
        Format("policy = %d: expected 0 (aggressive), 1 (fixed horizon) or 2 (forestall)", p));
  }
  if (c.horizon > (1u << 30)) {
    return Status::Invalid(
        Format("horizon = %u: expected 0 (measured) or 1 .. 1073741824 plan entries", c.horizon));
  }
  if (c.forestall_factor > 64) {
    return Status::Invalid(
        Format("forestall_factor = %u: expected 0 (1 or 4 by Kimbrel's 5 ms rule) or 1 .. 64",
               c.forestall_factor));
  }
  if (c.target_reads > c.queue_depth) {
    return Status::Invalid(Format("target_reads = %u: expected 0 (auto) or 1 .. queue_depth (%u)",
                                  c.target_reads, c.queue_depth));
  }
  if (c.target_stages > 16) {
    return Status::Invalid(Format("target_stages = %u: expected 0 .. 16", c.target_stages));
  }
  if (c.lookahead_rounds > 1024) {
    return Status::Invalid(
        Format("lookahead_rounds = %u: expected 0 (auto) or 1 .. 1024", c.lookahead_rounds));
  }
  if (const int st = RawEnum(c.stage); st < PFIO_STAGE_AUTO || st > PFIO_STAGE_DEVICE) {
    return Status::Invalid(
        Format("stage = %d: expected 0 (auto), 1 (none), 2 (poke), 3 (pagecache), 4 (ladvise) "
               "or 5 (device)",
               st));
  }
  if (c.stats_path != nullptr && c.stats_path[0] == '\0') {
    return Status::Invalid("stats_path = \"\": expected NULL (use PFIO_STATS) or a file path");
  }
  return Status::Ok();
}

}  // namespace pfio
