// CacheReader: an aggregator's reads through the kernel's page cache, with the plan advised
// ahead (the collective layer's "cache" path).
//
// Contract. The reader does not own the descriptor (a buffered one, opened without O_DIRECT;
// the ROMIO driver passes ROMIO's own). Advise(extents) asks the kernel to start reading the
// extents (posix_fadvise WILLNEED, from a pfio_advisor's thread: the kernel allocates the pages
// and submits their reads in the thread that advises) in file order: sorted by offset,
// extents with gaps of at most join_gap() between them go as one range of at most kJoinSpan (so
// the pieces of several calls that lie side by side, as a blocked solver's row of tiles, are one
// request), and the parts of ranges the previous call advised are not advised again, so a plan
// that moves one call ahead per call advises each byte about once. Extents inside `dense` ranges
// are not advised: where the job reads runs of kDenseRun bytes or more, the kernel's own readahead
// reads them in large requests ahead of the reader, and advice there only breaks them up
// (measured: ior-hard 1,099 MiB/s advised against 1,824 left to readahead, 2 ranks). Advice is a
// hint: a range the kernel drops is read when it is asked for. Read(pieces) reads every piece with
// pread/preadv (pieces adjacent in the file go in one preadv), retrying on EINTR and partial reads;
// "" when every byte was read, else a message naming the descriptor's offset and errno, or the
// short read (the file ended before the piece: it shrank since open). Bytes are never served from
// anywhere but the file, so a wrong advice costs time, never bytes.
// Memory: advised bytes go to the page cache (the kernel's, reclaimable), not to the pfio
// budget; the caller bounds how far ahead it advises.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collective/file_range.h"
#include "pfio/pfio.h"

namespace pfio::collective {

class CacheReader {
 public:
  static constexpr uint64_t kJoinGap = 64 << 10;
  // On storage reached over a network or through FUSE (OnRemoteStorage), where each request
  // pays a round trip: measured on the 2 ms test bed (4 ranks, 1 GiB), tiles 0.90-0.98x stock
  // ROMIO with 64 KiB, 1.29-1.37x with 128 KiB, 1.08-1.37x with 256 KiB. fio there: 4 KiB
  // random at QD32 10,000-13,000 IOPS, 1 MiB at QD16 0.9-2 GB/s, so a request costs what
  // 70-200 KiB of data does; on this machine's disk 135,000 IOPS and 0.7-3.3 GB/s, 5-25 KiB.
  static constexpr uint64_t kRemoteJoinGap = 128 << 10;
  static constexpr uint64_t kJoinSpan = 4 << 20;
  static constexpr uint64_t kDenseRun = 1 << 20;
  static constexpr uint64_t kDenseGap = 4 << 10;

  // The runs of at least kDenseRun bytes in the union of `ranges` (any order), sorted, where
  // ranges at most kDenseGap apart count as one run: the job reads (nearly) every page of such a
  // run, so the kernel's readahead marks are met and it reads ahead by itself. Farther apart
  // (a column of tiles: 32 KiB of every 88 KiB row), no read meets the marks, the kernel reads
  // only the pages asked for, one small request each: measured on the 2 ms test bed, tiles at
  // 0.06-0.3x stock ROMIO with such a column left to readahead at a 64 KiB gap.
  static FileRanges DenseRuns(FileRanges ranges);

  explicit CacheReader(int fd);

  // The gap Advise joins over: kRemoteJoinGap on remote storage, else kJoinGap.
  uint64_t join_gap() const { return join_gap_; }

  // `ranges` (any order) sorted by offset, those at most `gap` apart joined while the joined
  // range stays within max_span; empty ones dropped.
  static FileRanges Joined(FileRanges ranges, uint64_t max_span, uint64_t gap);
  // The parts of `ranges` outside `minus` (both sorted by offset and disjoint), in order.
  static FileRanges Without(const FileRanges &ranges, const FileRanges &minus);
  // Whether [offset, offset + length) lies inside one of `sorted`'s ranges (sorted by offset).
  static bool Inside(const FileRanges &sorted, uint64_t offset, uint64_t length);

  // Extents in the order they will be read; `dense` sorted by offset (DenseRuns). Returns the
  // bytes newly advised (joined gaps included).
  uint64_t Advise(const std::vector<pfio_extent> &extents, const FileRanges &dense);
  // Advises `extents` (any order; adjacent ones joined as Advise joins them) now, whatever the
  // calls before advised, and leaves Advise's memory of them alone. Returns the bytes advised.
  uint64_t AdviseNow(const std::vector<pfio_extent> &extents);
  // Pieces in any order; their buffers are filled from the file.
  std::string Read(std::vector<pfio_read_piece> pieces);

  uint64_t advise_calls() const { return advise_calls_; }

 private:
  int fd_;
  uint64_t join_gap_;
  // NULL when it could not be created (the file could be neither reopened nor duplicated): then
  // Advise advises.
  std::unique_ptr<pfio_advisor, void (*)(pfio_advisor *)> advisor_{nullptr, pfio_advisor_destroy};
  FileRanges advised_;  // the previous Advise's ranges, sorted by offset
  void WillneedRange(uint64_t offset, uint64_t length);  // by the advisor, else here
  uint64_t advise_calls_ = 0;
};

}  // namespace pfio::collective
