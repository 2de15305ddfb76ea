// DiskModel: one disk in virtual time, for the simulator (Barve et al. §4, Kimbrel §3).
// A request pays the command overhead, the seek (Barve eq. 7: a + b*sqrt(d) up to e cylinders,
// c + k*d beyond), the rotation until its first byte passes under the head (the platter keeps
// turning during overhead and seek), and the transfer at the head rate. After a read the disk
// keeps reading ahead into its cache: a later request that starts at most readahead_bytes past
// the last one is served from that stream, without seek or rotation (what makes sorted nearby
// reads cheap on a real drive). Track and cylinder switches inside a transfer are ignored. Not
// modelled yet: the fence and the shared bus.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace pfio {

struct DiskParams {
  std::string name;
  double rpm = 7200;
  uint64_t bytes_per_track = 0;
  uint32_t surfaces = 1;  // tracks per cylinder
  uint64_t cylinders = 0;
  double seek_a_ms = 0, seek_b_ms = 0, seek_c_ms = 0, seek_k_ms = 0;  // eq. 7 constants
  uint64_t seek_e = 0;                                                // knee, in cylinders
  double overhead_ms = 0;                                             // per command
  uint64_t readahead_bytes = 0;  // how far past the last read the disk reads ahead

  uint64_t bytes_per_cylinder() const { return bytes_per_track * surfaces; }
  double seek_ms(uint64_t distance) const;
  double head_rate() const { return bytes_per_track * rpm / 60.0; }  // bytes per second
};

// Parameter sets by name: "barracuda7200" (libprefetch §5.1's 7200 rpm, 500 GB, 8.5 ms drive).
Status LookupDiskParams(const std::string &name, DiskParams *out);

class DiskModel {
 public:
  explicit DiskModel(DiskParams p) : p_(std::move(p)) {}
  // Serves [offset, offset + length) starting no earlier than `now` (seconds); returns the
  // completion time.
  double Serve(uint64_t offset, uint64_t length, double now);
  const DiskParams &params() const { return p_; }

 private:
  DiskParams p_;
  uint64_t head_cylinder_ = 0;
  bool streaming_ = false;      // a readahead stream is running:
  uint64_t stream_offset_ = 0;  // byte `stream_offset_` passed under the head at `stream_time_`
  double stream_time_ = 0;
  uint64_t served_end_ = 0;  // end of the last request served
};

}  // namespace pfio
