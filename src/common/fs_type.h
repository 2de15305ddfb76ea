// The file system a descriptor lives on, from fstatfs(2)'s f_type: a name for messages ("ext4",
// "lustre", "file system type 0x..."), and the test for Lustre, whose striping and advice
// ioctls pfio issues only on Lustre files.
#pragma once

#include <cstdint>
#include <string>

namespace pfio {

constexpr uint64_t kLustreSuperMagic = 0x0BD00BD0;

std::string FsTypeName(int fd);
bool OnLustre(int fd);

}  // namespace pfio
