#include "engine/buffer_rule.h"

namespace pfio {

BufferChoice ChooseBufferKind(const BufferFacts &facts) {
  if (!facts.page_cache) return {PFIO_BUFFER_ENGINE, "the backend simulates disks: no page cache"};
  if (!facts.direct) return {PFIO_BUFFER_CACHE, "the file system refuses O_DIRECT"};
  if (facts.remote) {
    return {PFIO_BUFFER_ENGINE,
            "remote storage: random reads measured faster in the reorder buffer"};
  }
  return {PFIO_BUFFER_CACHE, "a local file system: the page cache measured level or faster"};
}

}  // namespace pfio
