// FileRun: a run of one file, [offset, offset + length), to be read into a list of buffers in
// order with one vectored read. ReadPath gathers the bytes it reads from the file itself (pieces
// of the page-cache kind, passthrough runs) into one while they continue each other in the file,
// as a collective read's shares of one file domain do: one preadv instead of a pread per piece.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <span>

#include "common/small_vector.h"

namespace pfio {

struct FileRun {
  int32_t file = -1;
  uint64_t offset = 0, length = 0;
  bool prefetched = false;    // advised bytes (counted when advised), not a direct read's
  bool waits = false;         // some were not advised yet when added: the read is a stall
  SmallVector<iovec, 4> iov;  // no heap memory for a run of up to 4 buffers

  bool empty() const { return length == 0; }
  std::span<const iovec> buffers() const { return {iov.data(), iov.size()}; }
  // Whether bytes of file `f` at `pos` of the same kind go on at the end of this run.
  bool Continues(int32_t f, uint64_t pos, bool pre) const {
    return !empty() && f == file && pos == offset + length && pre == prefetched;
  }
  void Start(int32_t f, uint64_t pos, bool pre) {
    Clear();
    file = f;
    offset = pos;
    prefetched = pre;
  }
  // The next n bytes go to dst (joined with the last buffer where they continue it in memory).
  void Add(char *dst, uint64_t n) {
    if (!iov.empty() && static_cast<char *>(iov.back().iov_base) + iov.back().iov_len == dst)
      iov.back().iov_len += n;
    else
      iov.push_back({dst, static_cast<size_t>(n)});
    length += n;
  }
  void Clear() {
    file = -1;
    offset = length = 0;
    prefetched = waits = false;
    iov.clear();
  }
};

}  // namespace pfio
