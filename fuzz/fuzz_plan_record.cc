// Fuzzes the plan record files (hint prefetch_replay=PATH): a file a user may hand over from
// another run, another file or a broken disk. The input is written to an in-memory file and
// loaded for (file "data", size 1 GiB, 4 ranks). Properties: a refusal is a message; an
// accepted record's calls hold one plan per rank.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "collective/plan_record.h"
#include "fuzz_check.h"

using namespace pfio::collective;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int fd = memfd_create("plan-record", 0);
  FUZZ_CHECK(fd >= 0, "memfd_create");
  FUZZ_CHECK(ftruncate(fd, 0) == 0 && pwrite(fd, data, size, 0) == static_cast<ssize_t>(size),
             "writing %zu bytes", size);
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  PlanRecordHeader header;
  if (!ReadPlanRecordHeader(path, &header).ok()) return 0;
  std::vector<CallPlans> calls;
  if (!LoadPlanRecord(path, "data", 1ull << 30, 4, 1 << 12, &calls).ok()) return 0;  // cheap runs
  for (const CallPlans &call : calls) {
    FUZZ_CHECK(call.size() == 4, "a call with %zu plans for 4 ranks", call.size());
  }
  return 0;
}
