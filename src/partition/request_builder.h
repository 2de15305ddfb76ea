// Request building: the new pieces of one window -> reads in C-LOOK order (ascending offset per
// file), with pieces closer than infill_max merged into one vectored read whose gap bytes land in
// a shared discard buffer (libprefetch §3.3: reading a small gap beats seeking over it), and no
// read longer than max_request or with more than kMaxIov vectors. Reads are planned before their
// pieces have memory; FillIov builds the vectors once the pages are allocated.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "buffer/reorder_buffer.h"
#include "io/backend.h"

namespace pfio {

struct PendingRead {
  IoRequest req;                // offset and length set when built; iov by FillIov
  std::vector<Piece *> pieces;  // ascending, inside [req.offset, req.offset + req.length)
  uint64_t gap_bytes = 0;       // infill read into the discard buffer (0 for the cache kind)
  uint64_t piece_bytes = 0;     // memory the read needs (cache kind: its pieces' charge)
  int32_t file = 0;
  uint32_t target = 0, bus = 0;                  // of its pieces (a read never spans targets)
  uint64_t target_offset = 0;                    // of its first byte
  bool urgent = false;                           // the application is waiting for it
  bool staged = false;                           // its block was staged (Backend::Stage)
  bool stage_checked = false;                    // considered for staging once
  uint64_t round = 0;                            // its round (partition/rounds)
  uint64_t first_use = UINT64_MAX;               // plan index that first needs its pieces
  double issued_at = 0;                          // Backend::Now() at submission
  std::list<PendingRead *>::iterator queue_pos;  // valid while queued
};

struct RequestShape {
  uint64_t infill_max = 32 * 1024;     // gaps joined on local file systems
  uint64_t infill_remote = 32 * 1024;  // ... and on storage behind FUSE or a network
  uint64_t max_request = 1024 * 1024;
  // Page-cache kind: the longest request with its gaps (at least max_request; the context keeps
  // it within a small share of the budget, since gaps are charged too).
  uint64_t cache_max_request = 1024 * 1024;
  char *discard = nullptr;  // at least both infills' bytes, page aligned (unused when both are 0)
  // Page-cache kind with cache_release: pages the plan read leave the page cache, and a gap's
  // pages, which nobody reads, would stay: no gap is joined then (AdviceSpans).
  bool cache_release = false;
};

constexpr size_t kMaxIov = 1024;

// Reads of files of the page-cache kind are advice: no vectors. A gap
// costs such a file device bandwidth only (no copy, no discard buffer), and a request costs a
// round of the device's work, so a window's new ranges of such a file are first joined into
// spans (AdviceSpans) over gaps up to max(infill_max, kCacheJoinGapLocal),
// max(infill_max, kCacheJoinGapRemote) on storage reached over a network or through FUSE
// (FileHandle::remote), of up to cache_max_request each; each span is one piece, gaps included
// (their pages land in the page cache and count against the budget, and a later entry that
// lies in one finds the piece and needs no advice of its own), and BuildRequests joins such
// pieces only where they touch. The engine kind joins gaps up to infill_max only. The gaps are
// what a request costs in data on each kind of storage (docs/measurements.md, "Advice spans of
// the page-cache kind").
constexpr uint64_t kCacheJoinGapLocal = 64 << 10;
constexpr uint64_t kCacheJoinGapRemote = 128 << 10;
constexpr uint64_t kCacheMaxRequest = 4 << 20;

// The spans of one page-cache file's new ranges (sorted, merged, page aligned, as
// Window::NewRanges gives them): ranges joined over the gaps the rule above allows (none with
// cache_release, whose pages nobody would release) where `held(begin, end)` says no existing
// piece lies in the gap, each span at most cache_max_request unless one range alone is longer.
// *gap_bytes grows by the gaps joined.
// The gap the reorder buffer's reads of `file` join: infill_remote on remote storage
// (FileHandle::remote), else infill_max.
uint64_t InfillFor(const RequestShape &shape, const FileHandle &file);

std::vector<std::pair<uint64_t, uint64_t>> AdviceSpans(
    const std::vector<std::pair<uint64_t, uint64_t>> &ranges, const RequestShape &shape,
    const FileHandle &file, const std::function<bool(uint64_t, uint64_t)> &held,
    uint64_t *gap_bytes);

// How the pieces of one file join into reads: over gaps up to `gap`, into reads up to `span`
// long. `advice`: the reads are advice (the page-cache kind), so a read has no vectors (kMaxIov
// does not bound it) and the gaps it joins count in its memory with its pieces; else the gaps
// are read into the discard buffer, uncharged.
struct RequestJoin {
  uint64_t gap = 0;
  uint64_t span = 0;
  bool advice = false;
};
// The reorder buffer's: gaps up to InfillFor, reads up to max_request.
RequestJoin ReadJoin(const RequestShape &shape, const FileHandle &file);
// The page-cache kind's: pieces joined only where they touch (AdviceSpans joined the gaps
// already), up to max(max_request, cache_max_request).
RequestJoin AdviceJoin(const RequestShape &shape);
// The join of a file's pieces, by file id (the buffer kind of each file chooses).
using JoinFor = std::function<RequestJoin(int32_t file)>;

// Sorts `pieces` and groups them into reads, which the caller owns, each file's by `join`.
// `handles` maps file id -> handle.
std::vector<std::unique_ptr<PendingRead>> BuildRequests(
    std::vector<Piece *> pieces, const std::unordered_map<int32_t, const FileHandle *> &handles,
    const JoinFor &join);

// Builds r->req.iov from the pieces' pages (which must be allocated) and the gaps between them.
void FillIov(PendingRead *r, const RequestShape &shape);

}  // namespace pfio
