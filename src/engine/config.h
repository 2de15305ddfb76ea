// Config defaults and validation for pfio_config. Every rejected field is named with its value and
// the allowed range, so a user sees exactly which setting to change.
#pragma once

#include "common/status.h"
#include "pfio/pfio.h"

namespace pfio {

void ConfigDefaults(pfio_config *c);
Status ValidateConfig(const pfio_config &c);

}  // namespace pfio
