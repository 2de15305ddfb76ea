// JudgeMemory: a file's PathJudge outlives the file, so that a program that opens many files and
// reads each alike (small files, a file per variable or per step) is judged on the calls of all
// of them, not again on each file's first calls, which a short file never gets past
// (docs/romio-driver.md, "Stepping aside").
//
// Contract. Take(key) gives the judge that the last file with this key left with Keep, carried on
// (PathJudge::NewFile: its counts at zero, a stretch under way shortened), or a fresh judge when
// none was kept; Keep(key, judge, note) stores a copy, replacing the one kept, with a number the
// front end keeps beside it (Take's *note; 0 when none was kept). A key names what must
// choose alike: a collective judge's names the communicator's ranks, so that every rank of it
// takes the same judge (every rank opens, reads and closes its files in the same order, and the
// judge's inputs are the same on every rank). Process-wide and thread-safe; at most kKeys keys
// are kept (the oldest forgotten first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "predict/path_judge.h"

namespace pfio::predict {

class JudgeMemory {
 public:
  static constexpr size_t kKeys = 64;
  static PathJudge Take(const std::string &key, uint64_t *note = nullptr);
  static void Keep(const std::string &key, const PathJudge &judge, uint64_t note = 0);
};

}  // namespace pfio::predict
