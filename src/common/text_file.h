// Small readers for one-value text files (sysfs, procfs).
#pragma once

#include <string>

namespace pfio {

// The first line of `path` without its newline; "" when the file cannot be read.
std::string ReadFirstLine(const std::string &path);

}  // namespace pfio
