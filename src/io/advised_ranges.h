// AdvisedRanges: the byte ranges of one file advised into the page cache lately, so that a
// request lying inside one is not advised again.
//
// Contract. Add(offset, length) records [offset, offset + length), merged with the recorded
// ranges it overlaps or touches; Covers(offset, length) is true when one recorded range holds all
// of it (length 0: false). Forget(offset, length) drops what overlaps the range (pages released
// from the page cache), trimming ranges that reach past it. Bounded: ranges are recorded in
// generations of at most kGeneration; when the current one is full it becomes the previous one
// and the one before is forgotten, so at most 2 * kGeneration ranges are held, and a range is
// remembered for at least kGeneration Adds after it. What is forgotten is only advised again;
// what is remembered may have been reclaimed by the kernel since, which costs the reader its own
// read: either way the bytes come from the file. Not thread-safe.
//
// Why: a page-cache request advises its pieces and the gaps between them (request_builder.h);
// the pieces a later call adds often lie in such a gap (a column of tiles read call by call,
// side by side: 42,000 advice calls a run where 5,700 were new, 4 ranks, and the reads waited
// longer for the device behind them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

namespace pfio {

class AdvisedRanges {
 public:
  static constexpr size_t kGeneration = 4096;

  bool Covers(uint64_t offset, uint64_t length) const;
  void Add(uint64_t offset, uint64_t length);
  void Forget(uint64_t offset, uint64_t length);
  // Ranges held (both generations).
  size_t size() const { return current_.size() + previous_.size(); }

 private:
  using Ranges = std::map<uint64_t, uint64_t>;  // begin -> end; disjoint, not touching
  static bool CoversIn(const Ranges &ranges, uint64_t begin, uint64_t end);
  static void ForgetIn(Ranges *ranges, uint64_t begin, uint64_t end);
  Ranges current_, previous_;
};

}  // namespace pfio
