// The buffer kind a file gets when the setting is buffer = auto (the default of pfio's API), from
// what is known of it at open. The two kinds hold the same plan under the same budget: engine
// (pfio's reorder buffer, filled by O_DIRECT reads, requests joined over gaps up to infill_max:
// by default 8 KiB locally and 128 KiB on remote storage, config.h)
// or cache (the kernel's page cache, advised ahead with POSIX_FADV_WILLNEED, gaps joined up to
// 64 KiB locally and 128 KiB on remote storage). The rule is what docs/engine-benchmarks.md measured
// ("The buffer kind's rule" and "Buffer kinds"), in this order:
//   1. a backend without a page cache (the simulator) -> engine;
//   2. a file whose file system refuses O_DIRECT -> cache (the reorder buffer would be filled
//      from the page cache anyway, one copy more);
//   3. a file on storage behind FUSE or a network (fs_type.h's OnRemoteStorage) -> engine:
//      there the page cache's joined advice outruns what the storage takes in flight;
//   4. any other file (a local file system) -> cache.
// (docs/measurements.md, "The buffer kind's rule".)
// The front ends set their own kind (pfio_config_set_default(buffer, cache): their workloads
// measured level or ahead with the page cache on the test bed too); a setting always overrides.
#pragma once

#include "common/modes.h"

namespace pfio {

struct BufferFacts {
  bool page_cache = true;  // the backend reads through the kernel (not a simulated disk)
  bool remote = false;     // on storage behind FUSE or a network
  bool direct = true;      // the file system accepts O_DIRECT for this file
};

struct BufferChoice {
  pfio_buffer_kind kind;
  const char *reason;  // which line of the rule chose it, for messages and stats
};

BufferChoice ChooseBufferKind(const BufferFacts &facts);

}  // namespace pfio
