// Parsing of human sizes ("4K", "1G", "512", "1.5M") in powers of 1024. Used by the tools and by
// anything that reads sizes from strings (hints, environment).
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace pfio {

// Parses `text` into *bytes. `what` names the option in the error, e.g. "--file-size".
Status ParseSize(const std::string &text, const char *what, uint64_t *bytes);

// The shortest exact form ParseSize reads back: "0", "4096", "64K", "1G".
std::string FormatSize(uint64_t bytes);

}  // namespace pfio
