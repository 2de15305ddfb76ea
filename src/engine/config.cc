#include "engine/config.h"

#include "engine/config_keys.h"

namespace pfio {

Status ValidateConfig(const Config &c) {
  Status s = CheckConfigRanges(c);
  if (!s.ok()) return s;
  if (c.target_reads > c.queue_depth) {
    return Status::Invalid(Format("target_reads = %u: expected 0 (auto) or 1 .. queue_depth (%u)",
                                  c.target_reads, c.queue_depth));
  }
  return Status::Ok();
}

}  // namespace pfio
