// PlanRecord: a job's collective plan on disk, written by one run (hint prefetch_record=PATH) and
// read back by the next (prefetch_replay=PATH), so restart and analysis jobs that repeat their
// reads have every call planned before it is made.
//
// Format (version 1). A text header of lines, then binary call records:
//   pfio-collective-plan 1
//   file <path the file was opened with>
//   size <file size in bytes when recording started>
//   ranks <number of ranks of the communicator>
//   calls
// then per collective call, for each rank in rank order: a LEB128 varint byte count followed by
// that many bytes of the rank's extents in PlanCodec's format (plan_codec.h). A record cut short
// (a job that died while writing, its temporary file renamed by hand) ends at its last complete
// call.
// Loading checks, and refuses with a message naming both values, a file written for another
// path, file size or rank count, a header that is not this format, and a corrupt call.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "collective/file_range.h"
#include "common/status.h"

namespace pfio::collective {

// Every rank's extents of one collective call.
using CallPlans = std::vector<FileRanges>;

// OK when `path` may receive a record of `file`: it does not exist, or it is an earlier pfio plan
// record (a regular file that starts as one) and not `file` itself; else PFIO_EINVAL and the
// refusal, naming it (PFIO_EIO when the system could not tell what is there).
Status CheckRecordTarget(const std::string &path, const std::string &file);

class PlanRecordWriter {
 public:
  // OK and an open writer, or why the file cannot be written: CheckRecordTarget's refusals first,
  // then PFIO_EIO. The record is written to PATH.pfio-tmp-PID and renamed to PATH by Close (or the
  // destructor).
  static Status Open(const std::string &path, const std::string &file, uint64_t size, int ranks,
                     PlanRecordWriter *out);
  PlanRecordWriter() = default;
  PlanRecordWriter(const PlanRecordWriter &) = delete;
  PlanRecordWriter &operator=(const PlanRecordWriter &) = delete;
  ~PlanRecordWriter();
  // Appends one call: every rank's encoded plan (as exchanged). OK or the write error (EIO).
  Status Append(const std::vector<std::vector<uint8_t>> &encoded);
  bool open() const { return f_ != nullptr; }
  // Closes and renames the record into place; OK or why not (EIO; the temporary file stays).
  Status Close();

 private:
  std::FILE *f_ = nullptr;
  std::string path_;
  std::string temporary_;
};

struct PlanRecordHeader {
  std::string file;
  uint64_t size = 0;
  int ranks = 0;
};

// Reads the header only; OK, PFIO_EINVAL and what is wrong with it, or PFIO_EIO when the file
// cannot be read.
Status ReadPlanRecordHeader(const std::string &path, PlanRecordHeader *header);
// OK when a record with this header may be replayed for (file, size, ranks), else PFIO_EINVAL
// and the refusal.
Status CheckPlanRecord(const std::string &path, const PlanRecordHeader &header,
                       const std::string &file, uint64_t size, int ranks);
// Read and checked as ReadPlanRecordHeader and CheckPlanRecord do, then every complete call
// appended to *calls; a corrupt call is refused (PFIO_EINVAL) naming the call and the rank.
Status LoadPlanRecord(const std::string &path, const std::string &file, uint64_t size, int ranks,
                      uint64_t max_extents, std::vector<CallPlans> *calls);

}  // namespace pfio::collective
