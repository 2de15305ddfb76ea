// Request building: the new pieces of one window -> reads in C-LOOK order (ascending offset per
// file), with pieces closer than infill_max merged into one vectored read whose gap bytes land in
// a shared discard buffer (libprefetch §3.3: reading a small gap beats seeking over it), and no
// read longer than max_request or with more than kMaxIov vectors. Reads are planned before their
// pieces have memory; FillIov builds the vectors once the pages are allocated.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <unordered_map>
#include <vector>

#include "buffer/reorder_buffer.h"
#include "io/backend.h"

namespace pfio {

struct PendingRead {
  IoRequest req;                // offset and length set when built; iov by FillIov
  std::vector<Piece *> pieces;  // ascending, inside [req.offset, req.offset + req.length)
  uint64_t gap_bytes = 0;       // infill read into the discard buffer
  uint64_t piece_bytes = 0;     // memory the read needs
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
  uint64_t infill_max = 32 * 1024;
  uint64_t max_request = 1024 * 1024;
  char *discard = nullptr;  // at least infill_max bytes, page aligned (unused when infill_max is 0)
};

constexpr size_t kMaxIov = 1024;

// Sorts `pieces` and groups them into reads, which the caller owns. `handles` maps file id ->
// handle.
std::vector<std::unique_ptr<PendingRead>> BuildRequests(
    std::vector<Piece *> pieces, const RequestShape &shape,
    const std::unordered_map<int32_t, const FileHandle *> &handles);

// Builds r->req.iov from the pieces' pages (which must be allocated) and the gaps between them.
void FillIov(PendingRead *r, const RequestShape &shape);

}  // namespace pfio
