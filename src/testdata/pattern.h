// Self-verifying data: the 8-byte word at file offset o (o a multiple of 8) holds
// PatternWord(o, seed), so any byte read from anywhere can be checked without a reference copy.
// Used by every test and benchmark.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace pfio {

inline uint64_t PatternWord(uint64_t offset, uint64_t seed) {
  uint64_t z = offset ^ (seed * 0x9E3779B97F4A7C15ull);  // splitmix64 finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Fills buf with the pattern bytes of [offset, offset + length).
void FillPattern(void *buf, uint64_t offset, uint64_t length, uint64_t seed);

// Offset of the first byte of buf (holding file bytes [offset, offset+length)) that does not
// match the pattern, or UINT64_MAX when all match.
uint64_t FirstMismatch(const void *buf, uint64_t offset, uint64_t length, uint64_t seed);

// Creates (or reuses, when it already has this size and its first and last words match the seed)
// a pattern file. An existing file is replaced only when it is a pattern file of this seed (its
// first two words match) of another size; any other file, or a path that is not a regular
// file, is refused with PFIO's Invalid status naming it, and left as it was. The new file is
// written under a unique temporary name and renamed over the path when complete. `progress`
// prints a progress line on stderr while writing.
Status MakePatternFile(const std::string &path, uint64_t size, uint64_t seed, bool progress,
                       bool *reused);

// Drops the file's pages from the page cache (fsync then POSIX_FADV_DONTNEED).
Status EvictFromPageCache(const std::string &path);

}  // namespace pfio
