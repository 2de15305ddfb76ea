// StrideRun: prediction of a reader's next single-extent reads from a run of reads of one length
// at a constant stride (sequential is stride = length), for front ends that see reads one at a
// time: the ROMIO driver's independent reads and the HDF5 driver's raw reads.
//
// Contract. Observe(offset, length) is given every read in the order the reader makes them. A
// read of the previous length at the previous stride (not 0) continues the run; two such reads
// in a row make it `running`, and the caller then plans up to Want() extents from Next() on, at
// `stride()`, and reports them with Planned(). A read that breaks the run drops the prediction
// (event `dropped`: the caller removes what it planned), and scores it by the hit rate in bytes:
// the bytes predicted and read (hits) against those dropped unread, each halved at every drop so
// that recent runs weigh most; a drop after which the dropped bytes pass the read ones is a miss.
// `misses_off` misses in a row switch prediction off for off_first reads, then twice as many each
// time up to off_longest (DiskSeen's mis-prefetch control: a random reader pays for a few wrong
// guesses, not one per read), and it is on again early when the pattern returns: a run that goes
// on, while off, for as many reads as a first plan holds (min_extents past its start) would have
// been read whole, so prediction resumes with the doubling forgotten. Bytes() gives the totals
// the front ends report. With allow_near_shift, a read off the stride by at most near_shift in the
// run's direction continues the run at a new phase (HDF5 places index nodes between chunks), and
// what was planned moves with it (event `phase_shift`). Predictions cost reading time when
// wrong, never bytes: callers use them only to plan reads, never to answer one.
// Not thread-safe: one StrideRun per file and reader.
#pragma once

#include <cstdint>

#include "predict/pfio_predict.h"

namespace pfio::predict {

struct StrideOptions {
  uint64_t lookahead_bytes = PFIO_LOOKAHEAD_BYTES;  // at most this many bytes planned ahead
  uint64_t min_extents = 8;                         // Want() is at least this (a run's first plan)
  uint64_t max_extents = PFIO_LOOKAHEAD_EXTENTS;    // and at most this
  uint32_t misses_off = 0;            // misses in a row that switch prediction off; 0: never
  uint64_t off_first = 64;            // reads of the first switch-off
  uint64_t off_longest = 1ull << 20;  // the longest switch-off
  int64_t near_shift = 0;             // a new phase within this many bytes; 0: never
};

struct StrideEvent {
  bool hit = false;           // this read was predicted and planned
  bool dropped = false;       // the prediction ended: what was planned is not needed
  bool switched_off = false;  // ... and prediction is now off for a while
  bool off = false;           // prediction is off for this read
  bool running = false;       // a run is on and prediction is on: plan with Want/Next/Planned
  bool shifted = false;       // this read continued the run at a new phase (near_shift)
  int64_t phase_shift = 0;    // ... and what was planned moves by this many bytes
};

class StrideRun {
 public:
  explicit StrideRun(const StrideOptions &options = {}) : options_(options) {}

  StrideEvent Observe(uint64_t offset, uint64_t length, bool allow_near_shift = false);

  // How many extents of `length` bytes to plan now: the look-ahead is ramp x the run's repeats
  // (ramp 0: the whole look-ahead at once), within [min_extents, min(cap, max_extents,
  // lookahead_bytes / length)]; 0 while more than half of it is still planned ahead.
  uint64_t Want(uint64_t length, uint32_t ramp, uint64_t cap) const;
  // Where the next extent to plan starts (after the last planned one, or a stride past `offset`,
  // the read just observed); negative for a backward run past the file's start, or when it
  // would not fit 63 bits.
  int64_t Next(uint64_t offset) const;
  // `count` extents were planned, the next one would start at `next`.
  void Planned(uint64_t count, int64_t next);
  // Where the run expects the next read: a stride past the last one, while a run is on (two
  // repeats) and prediction is not off; -1 otherwise, or when it would not fit 63 bits.
  int64_t Expected() const;
  // Forgets the run (the next read starts a new one); a switch-off's doubling is kept.
  void Reset();

  int64_t stride() const { return stride_; }
  uint32_t repeats() const { return repeats_; }
  // Extents planned and not read yet; whether any are (a prediction is in place).
  uint64_t planned_ahead() const { return planned_ahead_; }
  bool planning() const { return planning_; }
  // Prediction is switched off (misses_off) for the next reads.
  bool off() const { return off_reads_ > 0; }

  // Bytes of the extents planned, of those read by the reader (hits), and of those dropped
  // unread; the rest (planned - hit - dropped) is still planned ahead.
  struct Bytes {
    uint64_t planned = 0, hit = 0, dropped = 0;
  };
  Bytes bytes() const { return bytes_; }

 private:
  void Drop(StrideEvent *event);

  StrideOptions options_;
  bool have_last_ = false;
  uint64_t last_offset_ = 0, last_length_ = 0;
  int64_t stride_ = 0;
  uint32_t repeats_ = 0;
  bool planning_ = false;
  int64_t next_planned_ = 0;
  uint64_t planned_ahead_ = 0;
  uint64_t run_hit_bytes_ = 0;                    // hits of the run being followed
  uint64_t recent_hit_ = 0, recent_dropped_ = 0;  // the hit rate, halved at every drop
  Bytes bytes_;
  uint32_t misses_ = 0;
  uint64_t off_reads_ = 0, off_length_ = 0;
};

}  // namespace pfio::predict
