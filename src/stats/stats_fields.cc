#include "stats/stats_fields.h"

#include <cstddef>

namespace pfio {
namespace {

#define PFIO_U64(member) \
  { #member, offsetof(pfio_stats, member), sizeof(pfio_stats::member), PFIO_STATS_U64 }
#define PFIO_DOUBLE(member) \
  { #member, offsetof(pfio_stats, member), sizeof(pfio_stats::member), PFIO_STATS_DOUBLE }
#define PFIO_TEXT(member) \
  { #member, offsetof(pfio_stats, member), sizeof(pfio_stats::member), PFIO_STATS_TEXT }

constexpr pfio_stats_field kFields[] = {
    PFIO_U64(reads),
    PFIO_U64(hits),
    PFIO_U64(passthrough_reads),
    PFIO_U64(misses),
    PFIO_U64(stalls),
    PFIO_DOUBLE(stall_seconds),
    PFIO_U64(bytes_served),
    PFIO_U64(bytes_read),
    PFIO_U64(bytes_wasted),
    PFIO_U64(bytes_passthrough),
    PFIO_U64(requests),
    PFIO_U64(io_errors),
    PFIO_U64(plan_resyncs),
    PFIO_U64(windows),
    PFIO_U64(budget_bytes),
    PFIO_U64(budget_cap),
    PFIO_U64(budget_cuts),
    PFIO_U64(memory_in_use),
    PFIO_U64(memory_peak),
    PFIO_TEXT(backend),
    PFIO_U64(evictions),
    PFIO_U64(bytes_evicted),
    PFIO_U64(stages),
    PFIO_U64(stages_small),
    PFIO_U64(policy_holds),
    PFIO_TEXT(policy),
    PFIO_TEXT(stage_mode),
    PFIO_TEXT(stage_note),
    PFIO_U64(files_changed),
    PFIO_U64(memory_charged),
    PFIO_U64(advised_now),
    PFIO_U64(advised_inline),
    PFIO_U64(advised_dropped),
    PFIO_U64(advised_now_bytes),
    PFIO_U64(advice_failed),
};

#undef PFIO_U64
#undef PFIO_DOUBLE
#undef PFIO_TEXT

constexpr bool BackToBack() {
  size_t at = 0;
  for (const pfio_stats_field &f : kFields) {
    if (f.offset != at) return false;
    at += f.size;
  }
  return at == sizeof(pfio_stats);
}
static_assert(BackToBack(), "kFields must list every field of pfio_stats, in order");

}  // namespace

std::span<const pfio_stats_field> StatsFields() {
  return kFields;
}

}  // namespace pfio
