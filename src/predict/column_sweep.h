// ColumnSweep: prediction of a pass over a two-dimensional array column by column when the array
// is stored row by row (HDF5 reads a column strip of a chunked dataset as one chunk from every
// row of chunks, the rows a row of chunks apart), for front ends that see reads one at a time.
//
// Contract. Observe(offset, length, eof) is given every read in the order the reader makes
// them. A column is a run of at least kMinRows reads of one length at a stride of at least
// kMinStride and two read lengths, each step within kNear of the first (index nodes between
// chunks lengthen a step a little). The next column's reads are each one read length, or up to
// kNear more, past the previous column's read of the same row. While a possible sweep's first
// column is read, each read asks for its next kNearReads reads of the row, but only once a sweep
// has been confirmed by this predictor (a guess advises after it proved right: a lone column
// would waste twice its bytes; Reset keeps that proof, the pattern of the reader). The second read
// of a next column confirms the sweep: Observe returns kStart, and the caller calls Start(window):
// every row is then asked for ahead of the reader, in file order, in two passes (the next
// kNearReads reads of every row first, then each row's share of `window`, rounded down to whole
// reads, not past where the sweep's first column read the next row); once the sweep runs, each
// read asks for its row again when less than half the row's share is left ahead of it. A read
// that fits neither the column nor the sweep ends it. What to advise after each call is
// advice(), in order (ranges end at `eof`); a wrong guess costs advised bytes, never a wrong
// value. At most kMaxRows reads per column are followed; without memory for a column the
// sweep forgets itself (no prediction, reads as they were). Not thread-safe: one per file and
// reader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pfio::predict {

class ColumnSweep {
 public:
  static constexpr uint64_t kMinStride = 256ull << 10;
  static constexpr size_t kMinRows = 4;
  static constexpr size_t kMaxRows = 65536;
  static constexpr uint64_t kNear = 64ull << 10;
  static constexpr uint64_t kNearReads = 2;

  struct Range {
    uint64_t offset = 0, length = 0;
  };
  enum class Step { kNone, kStart };

  Step Observe(uint64_t offset, uint64_t length, uint64_t eof);
  // After kStart: the sweep's advice, `window` bytes ahead over all rows. The first
  // near_ranges() of advice() are the near pass.
  void Start(uint64_t window, uint64_t eof);
  const std::vector<Range> &advice() const { return advice_; }
  size_t near_ranges() const { return near_ranges_; }
  bool active() const { return active_; }
  size_t rows() const { return rows_; }
  uint64_t per_row() const { return per_row_; }
  void Reset();

 private:
  bool NextColumn(uint64_t prev, uint64_t offset) const;
  void NewColumn(uint64_t offset, uint64_t length);
  void AdviseRow(size_t r, uint64_t from, uint64_t want, uint64_t eof);
  bool Reserve(size_t n);

  std::vector<uint64_t> cur_;    // the current column's reads, in order
  std::vector<uint64_t> last_;   // the column before it, rows_ of them
  std::vector<uint64_t> first_;  // the sweep's first column (where each row's reads started)
  std::vector<uint64_t> ahead_;  // per row: where its advice ends
  size_t capacity_ = 0;          // entries every one of the four arrays has
  size_t rows_ = 0;              // reads in the previous column, 0 when there is none to follow
  size_t row_ = 0;               // reads in the current column
  uint64_t size_ = 0;            // the length of every read of the column
  uint64_t per_row_ = 0;         // bytes advised ahead in each row
  bool active_ = false;          // confirmed and advised
  bool proven_ = false;          // a sweep was confirmed before: possible first columns advise
  std::vector<Range> advice_;
  size_t near_ranges_ = 0;
};

}  // namespace pfio::predict
