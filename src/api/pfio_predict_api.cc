// The predictors' C API (predict/pfio_predict.h): conversions over src/predict/, no logic.
#include <algorithm>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "api/api_errors.h"
#include "predict/column_sweep.h"
#include "predict/judge_memory.h"
#include "predict/path_judge.h"
#include "predict/pfio_predict.h"
#include "predict/request_shape.h"
#include "predict/shifted_calls.h"
#include "predict/stride_run.h"

struct pfio_stride {
  explicit pfio_stride(const pfio::predict::StrideOptions &o) : run(o) {}
  pfio::predict::StrideRun run;
};

namespace {
struct Span {
  uint64_t offset = 0, length = 0;
};
}  // namespace

struct pfio_calls {
  explicit pfio_calls(uint32_t confirmations) : calls(confirmations) {}
  pfio::predict::ShiftedCalls<Span> calls;
  std::vector<std::vector<Span>> request{1};  // the request being observed (capacity reused)
};

struct pfio_sweep {
  pfio::predict::ColumnSweep sweep;
  std::vector<pfio_extent> advice;  // sweep.advice() as extents (capacity reused)
  // Copies the sweep's advice; without memory for it, none (advice is a hint).
  void Publish() {
    advice.clear();
    try {
      for (const auto &r : sweep.advice()) advice.push_back({0, 0, r.offset, r.length});
    } catch (const std::bad_alloc &) {
      advice.clear();
    }
  }
};

struct pfio_judge {
  pfio::predict::PathJudge judge;
  std::string shape = "empty";  // RequestShape of the first read it was taken for
};

extern "C" {

pfio_status pfio_stride_create(const pfio_stride_options *options, pfio_stride **out) {
  using pfio::api::NullArgument;
  if (out == nullptr) return NullArgument("pfio_stride_create", "out");
  *out = nullptr;
  return pfio::api::Guarded("pfio_stride_create", [&] {
    pfio::predict::StrideOptions o;
    if (options != nullptr) {
      if (options->lookahead_bytes) o.lookahead_bytes = options->lookahead_bytes;
      if (options->min_extents) o.min_extents = options->min_extents;
      if (options->max_extents) o.max_extents = options->max_extents;
      o.misses_off = options->misses_off;
      if (options->off_first) o.off_first = options->off_first;
      if (options->off_longest) o.off_longest = options->off_longest;
      if (options->near_shift < 0) {
        pfio::api::LastError() = pfio::Format(
            "pfio_stride_create: near_shift = %lld: expected 0 (none) or a number of bytes",
            static_cast<long long>(options->near_shift));
        return PFIO_EINVAL;
      }
      o.near_shift = options->near_shift;
    }
    if (o.min_extents > o.max_extents) {
      pfio::api::LastError() = pfio::Format(
          "pfio_stride_create: min_extents = %llu: expected at most max_extents (%llu)",
          static_cast<unsigned long long>(o.min_extents),
          static_cast<unsigned long long>(o.max_extents));
      return PFIO_EINVAL;
    }
    *out = new pfio_stride(o);
    return PFIO_OK;
  });
}

void pfio_stride_observe(pfio_stride *run, uint64_t offset, uint64_t length, int allow_near_shift,
                         pfio_stride_event *event) {
  const pfio::predict::StrideEvent e = run->run.Observe(offset, length, allow_near_shift != 0);
  if (event == nullptr) return;
  event->hit = e.hit;
  event->dropped = e.dropped;
  event->switched_off = e.switched_off;
  event->off = e.off;
  event->running = e.running;
  event->shifted = e.shifted;
  event->phase_shift = e.phase_shift;
}

uint64_t pfio_stride_want(const pfio_stride *run, uint64_t length, uint32_t ramp, uint64_t cap) {
  return run->run.Want(length, ramp, cap);
}

int64_t pfio_stride_next(const pfio_stride *run, uint64_t offset) {
  return run->run.Next(offset);
}

int64_t pfio_stride_step(const pfio_stride *run) {
  return run->run.stride();
}

void pfio_stride_planned(pfio_stride *run, uint64_t count, int64_t next) {
  run->run.Planned(count, next);
}

int pfio_stride_planning(const pfio_stride *run) {
  return run->run.planning();
}

uint64_t pfio_stride_ahead(const pfio_stride *run) {
  return run->run.planned_ahead();
}

int pfio_stride_off(const pfio_stride *run) {
  return run->run.off();
}

int64_t pfio_stride_expected(const pfio_stride *run) {
  return run->run.Expected();
}

void pfio_stride_bytes(const pfio_stride *run, uint64_t *planned, uint64_t *hit,
                       uint64_t *dropped) {
  const pfio::predict::StrideRun::Bytes b = run->run.bytes();
  *planned = b.planned;
  *hit = b.hit;
  *dropped = b.dropped;
}

void pfio_stride_reset(pfio_stride *run) {
  run->run.Reset();
}

void pfio_stride_destroy(pfio_stride *run) {
  delete run;
}

pfio_status pfio_calls_create(uint32_t confirmations, pfio_calls **out) {
  if (out == nullptr) return pfio::api::NullArgument("pfio_calls_create", "out");
  *out = nullptr;
  if (confirmations == 0) {
    pfio::api::LastError() = "pfio_calls_create: confirmations = 0: expected 1 or more copies";
    return PFIO_EINVAL;
  }
  return pfio::api::Guarded("pfio_calls_create", [&] {
    *out = new pfio_calls(confirmations);
    return PFIO_OK;
  });
}

int pfio_calls_observe(pfio_calls *calls, const pfio_extent *extents, size_t count) {
  try {
    std::vector<Span> &spans = calls->request[0];
    spans.clear();
    for (size_t i = 0; i < count; ++i) spans.push_back({extents[i].offset, extents[i].length});
    return calls->calls.Observe(calls->request) ? 1 : 0;
  } catch (const std::bad_alloc &) {
    calls->calls.Reset();  // no copy of this request: the prediction ends
    return 0;
  }
}

int64_t pfio_calls_shift(const pfio_calls *calls) {
  return calls->calls.shift();
}

int pfio_calls_seen(const pfio_calls *calls) {
  return calls->calls.seen();
}

void pfio_calls_reset(pfio_calls *calls) {
  calls->calls.Reset();
}

void pfio_calls_destroy(pfio_calls *calls) {
  delete calls;
}

pfio_status pfio_sweep_create(pfio_sweep **out) {
  if (out == nullptr) return pfio::api::NullArgument("pfio_sweep_create", "out");
  *out = nullptr;
  return pfio::api::Guarded("pfio_sweep_create", [&] {
    *out = new pfio_sweep;
    return PFIO_OK;
  });
}

int pfio_sweep_observe(pfio_sweep *sweep, uint64_t offset, uint64_t length, uint64_t eof) {
  const bool start =
      sweep->sweep.Observe(offset, length, eof) == pfio::predict::ColumnSweep::Step::kStart;
  sweep->Publish();
  return start ? 1 : 0;
}

void pfio_sweep_start(pfio_sweep *sweep, uint64_t window, uint64_t eof) {
  sweep->sweep.Start(window, eof);
  sweep->Publish();
}

size_t pfio_sweep_advice(const pfio_sweep *sweep, const pfio_extent **ranges, size_t *near) {
  if (ranges != nullptr) *ranges = sweep->advice.data();
  if (near != nullptr) *near = std::min(sweep->sweep.near_ranges(), sweep->advice.size());
  return sweep->advice.size();
}

int pfio_sweep_active(const pfio_sweep *sweep) {
  return sweep->sweep.active() ? 1 : 0;
}

void pfio_sweep_reset(pfio_sweep *sweep) {
  sweep->sweep.Reset();
  sweep->advice.clear();
}

void pfio_sweep_destroy(pfio_sweep *sweep) {
  delete sweep;
}

pfio_status pfio_judge_create(pfio_judge **out) {
  if (out == nullptr) return pfio::api::NullArgument("pfio_judge_create", "out");
  *out = nullptr;
  return pfio::api::Guarded("pfio_judge_create", [&] {
    *out = new pfio_judge();
    return PFIO_OK;
  });
}

pfio_status pfio_judge_take(const char *key, const pfio_extent *first_read, size_t count,
                            pfio_judge **out) {
  if (out == nullptr) return pfio::api::NullArgument("pfio_judge_take", "out");
  if (key == nullptr) return pfio::api::NullArgument("pfio_judge_take", "key");
  if (first_read == nullptr && count > 0)
    return pfio::api::NullArgument("pfio_judge_take", "first_read");
  *out = nullptr;
  return pfio::api::Guarded("pfio_judge_take", [&] {
    std::string shape =
        pfio::predict::RequestShape(std::span<const pfio_extent>(first_read, count));
    *out = new pfio_judge{pfio::predict::JudgeMemory::Take(std::string(key) + "/" + shape), shape};
    return PFIO_OK;
  });
}

void pfio_judge_keep(const pfio_judge *judge, const char *key) {
  if (judge == nullptr || key == nullptr) return;
  try {
    pfio::predict::JudgeMemory::Keep(std::string(key) + "/" + judge->shape, judge->judge);
  } catch (const std::bad_alloc &) {
    // not kept: the next file is judged from its first calls
  }
}

int pfio_judge_next(pfio_judge *judge) {
  pfio::predict::PathJudge &j = judge->judge;
  if (j.ExchangeDue()) j.Judge(j.tally());  // one reader: its own measures decide
  return j.Next() == pfio::predict::PathJudge::Path::kStock ? 1 : 0;
}

void pfio_judge_record(pfio_judge *judge, int stock, uint64_t bytes, uint64_t ns) {
  judge->judge.Record(
      stock ? pfio::predict::PathJudge::Path::kStock : pfio::predict::PathJudge::Path::kPfio, bytes,
      ns);
}

void pfio_judge_counts(const pfio_judge *judge, uint64_t *stock_calls, uint64_t *decisions,
                       uint64_t *stock_chosen) {
  const pfio::predict::PathJudge::Counts &c = judge->judge.counts();
  if (stock_calls != nullptr) *stock_calls = c.stock_calls;
  if (decisions != nullptr) *decisions = c.decisions;
  if (stock_chosen != nullptr) *stock_chosen = c.stock_chosen;
}

void pfio_judge_reset(pfio_judge *judge) {
  judge->judge.Reset();
}

void pfio_judge_destroy(pfio_judge *judge) {
  delete judge;
}

}  // extern "C"
