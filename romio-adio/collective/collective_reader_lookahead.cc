// CollectiveReader::PlanAhead: what an aggregator reads of this call and of the calls after
// it (declared, replayed or predicted), given to its pfio engine as its plan (in the file's
// buffer kind: the page cache, or the reorder buffer). The reading itself is
// collective_reader_rounds.cc.
#include <algorithm>

#include "collective/call_schedule.h"
#include "collective/collective_reader.h"

namespace pfio::collective {
namespace {

// Aggregator a's reads of a call as its pfio plan: round after round (the order it reads
// them), each round's shares in file order with adjacent ones joined, cut at the file's end.
// Thousands of small shares of one stripe unit become one extent, which keeps the engine's
// planning cheap, and the engine sees each round's reads in ascending order.
std::vector<pfio_extent> ReadOrderExtents(const CallSchedule &schedule, size_t a, int32_t file,
                                          uint64_t file_size) {
  std::vector<pfio_extent> out;
  std::vector<uint64_t> counts;
  for (size_t k = 0; k < schedule.rounds(); ++k) {
    std::vector<Share> shares = schedule.RoundShares(a, k, &counts);
    auto by_offset = [](const Share &x, const Share &y) { return x.range.offset < y.range.offset; };
    SortIfUnsorted(shares.begin(), shares.end(), by_offset);
    for (const Share &s : shares) {
      if (s.range.offset >= file_size) continue;
      const uint64_t length = std::min(s.range.length, file_size - s.range.offset);
      if (!out.empty() && out.back().offset + out.back().length == s.range.offset)
        out.back().length += length;
      else
        out.push_back({file, 0, s.range.offset, length});
    }
  }
  return out;
}

// How far the kernel's readahead runs ahead of a reader by itself: the readahead window of the
// devices measured here (read_ahead_kb 8192, the disk and the test bed alike).
constexpr uint64_t kReadaheadReach = 8 << 20;

// What of the job's dense runs the page-cache kind leaves to the kernel's readahead: this call's
// (`now`), and the first kReadaheadReach bytes of a run of a call ahead that continues a run of
// the calls before it (within kDenseGap of its end), which readahead enters while the run before
// it is read. Sorted and merged. Measured, 1 rank, 1 GiB, disk: ior-hard's 4.7 MB calls one
// after the other ran 0.94 s with every run ahead advised against 0.73 left to readahead; btio's
// 64 MiB calls gained from advice past the first window (0.60 -> 0.34 s in the read calls with
// computation between them).
FileRanges LeftToReadahead(const FileRanges &now, const std::vector<FileRanges> &ahead) {
  FileRanges left = now;
  std::vector<uint64_t> ends;
  for (const FileRange &r : now) ends.push_back(r.end());
  for (const FileRanges &call : ahead) {
    std::sort(ends.begin(), ends.end());
    std::vector<uint64_t> call_ends;
    for (const FileRange &r : call) {
      // The last end at or before the run's start, if the run begins within kDenseGap of it.
      auto it = std::upper_bound(ends.begin(), ends.end(), r.offset);
      if (it != ends.begin() && r.offset - *(it - 1) <= kDenseGap)
        left.push_back({r.offset, std::min(r.length, kReadaheadReach)});
      call_ends.push_back(r.end());
    }
    ends.insert(ends.end(), call_ends.begin(), call_ends.end());
  }
  return JoinedRanges(std::move(left), UINT64_MAX, 0);
}

// Aggregator `me`'s part of `runs` to advise: each run cut into `aggregators` contiguous parts
// (at page boundaries), the me-th of each, within the file. The pages are the job's, whoever
// advises them: whole ranges keep the device's requests large, where each aggregator's own
// shares (ior-hard's 47 KB blocks, 4 ranks) went as small requests that took the device from
// the reads (docs/measurements.md, "The collective layer's look-ahead").
std::vector<pfio_extent> ShareOfRuns(const FileRanges &runs, size_t me, size_t aggregators,
                                     int32_t file, uint64_t file_size) {
  std::vector<pfio_extent> out;
  for (const FileRange &r : runs) {
    const uint64_t part = (r.length / aggregators + 4095) / 4096 * 4096;
    const uint64_t begin = r.offset + std::min<uint64_t>(r.length, part * me);
    const uint64_t end = std::min({r.end(), begin + part, file_size});
    if (begin < end) out.push_back({file, 0, begin, end - begin});
  }
  return out;
}

}  // namespace

void CollectiveReader::PlanAhead(const CallSchedule &now, const std::vector<FileRanges> &plans,
                                 size_t me, uint64_t file_size) {
  const std::vector<pfio_extent> current = ReadOrderExtents(now, me, file_, file_size);
  std::vector<pfio_extent> plan = current;
  // The job's dense runs of this call and the planned ones (all ranks): left to the kernel's
  // readahead in either buffer kind (the engine reads them directly, without advice or
  // prefetch: pfio_plan_readahead).
  const FileRanges dense_now = DenseRuns(MergedByOffset(plans));
  FileRanges dense = dense_now;
  std::vector<FileRanges> dense_ahead;  // each planned call's dense runs, in call order
  uint64_t ahead = 0;
  const bool declared = !declared_.empty();
  // A predicted call is this one moved. Where every byte this aggregator reads now lies in the
  // job's dense runs, left to the kernel's readahead, the calls ahead would be too: planning
  // them advises nothing and costs CPU (docs/measurements.md, "The collective layer's
  // look-ahead").
  auto all_dense = [&] {
    return std::all_of(current.begin(), current.end(), [&](const pfio_extent &e) {
      return InsideRanges(dense_now, e.offset, e.length);
    });
  };
  // Far enough to keep the device busy across a call boundary, near enough that a prediction
  // that breaks (the end of a variable, a time step that changes) wastes little and that later
  // calls' reads do not queue before this call's at the device: by default the whole job plans
  // two rounds ahead, split over the aggregators (at least 4 MiB each). The page-cache kind
  // plans at least kCacheLookahead per aggregator: its advice goes out as spans in file order,
  // so pieces of later calls next to this call's join them into one request (a blocked
  // solver's row of tiles: 8 KiB per call and row, side by side across calls), and that needs
  // several calls (kCacheLookahead: docs/measurements.md, "The collective layer's look-ahead").
  const uint64_t limit = options_.lookahead_bytes
                             ? options_.lookahead_bytes
                             : std::max<uint64_t>(page_cache_ ? kCacheLookahead : 4ull << 20,
                                                  2 * round_ / aggregation_.aggregators().size());
  if (options_.lookahead_calls > 0 && (declared || (predictor_.predicting() && !all_dense()))) {
    for (uint64_t j = 1; j <= options_.lookahead_calls && ahead < limit; ++j) {
      if (declared && j > declared_.size()) break;
      std::vector<pfio_extent> more;
      const int64_t shift = predictor_.shift() * static_cast<int64_t>(j);
      const uint64_t period = aggregation_.unit() * aggregation_.targets();
      if (!declared && predictor_.shift() % static_cast<int64_t>(period) == 0) {
        // Moved by whole periods of the striping, the call's shares move with it: no new
        // schedule needed (btio's time steps, ior-hard's segments of a round size).
        for (const pfio_extent &e : current) {
          const int64_t moved = static_cast<int64_t>(e.offset) + shift;
          if (moved < 0 || static_cast<uint64_t>(moved) >= file_size) continue;
          more.push_back({file_, 0, static_cast<uint64_t>(moved),
                          std::min(e.length, file_size - static_cast<uint64_t>(moved))});
        }
        dense_ahead.emplace_back();
        for (const FileRange &r : dense_now) {
          const int64_t moved = static_cast<int64_t>(r.offset) + shift;
          if (moved >= 0) dense_ahead.back().push_back({static_cast<uint64_t>(moved), r.length});
        }
        dense.insert(dense.end(), dense_ahead.back().begin(), dense_ahead.back().end());
      } else {
        std::vector<FileRanges> next = declared ? declared_[j - 1] : predictor_.Predicted(j);
        if (next.empty()) break;
        CallSchedule schedule(next, aggregation_, round_, options_.own_units, options_.own_extent);
        more = ReadOrderExtents(schedule, me, file_, file_size);
        dense_ahead.push_back(DenseRuns(MergedByOffset(next)));
        dense.insert(dense.end(), dense_ahead.back().begin(), dense_ahead.back().end());
      }
      if (more.empty()) break;  // the prediction left the file
      ++stats_.calls_planned_ahead;
      for (const pfio_extent &e : more) ahead += e.length;
      plan.insert(plan.end(), more.begin(), more.end());
    }
  }
  // The job's dense runs are left to the kernel's readahead: it meets its marks while a call
  // reads them. But readahead does not start a run before the reader reaches it, so with
  // computation between calls a dense call waited for its first requests at every call (btio
  // on the test bed, 1 rank, declared: 1.33 s in the read calls with and without a computation
  // as long as the reads). So, where the page cache holds the file, the next
  // call's dense extents past what readahead reaches by itself are advised too, once this
  // call's bytes are read (Read): advised now, with the calls ahead, they took the device from
  // this call's reads (docs/measurements.md, "The collective layer's look-ahead").
  advise_after_.clear();
  if (page_cache_ && !dense_ahead.empty())
    advise_after_ = ShareOfRuns(
        RangesWithout(dense_ahead.front(), LeftToReadahead(dense_now, {dense_ahead.front()})), me,
        aggregation_.aggregators().size(), file_, file_size);
  std::vector<pfio_extent> readahead;
  for (const FileRange &r : DenseRuns(std::move(dense)))
    if (r.offset < file_size)
      readahead.push_back({file_, 0, r.offset, std::min(r.length, file_size - r.offset)});
  if (pfio_plan_readahead(ctx_, readahead.data(), readahead.size()) != PFIO_OK ||
      pfio_plan_replace(ctx_, plan.data(), plan.size()) != PFIO_OK)
    ++stats_.plan_errors;
}

}  // namespace pfio::collective
