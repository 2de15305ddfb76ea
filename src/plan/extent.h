// Extent: bytes [offset, offset + length) of one open file, as the application will read them.
#pragma once

#include <cstdint>

namespace pfio {

struct Extent {
  int32_t file = 0;
  bool marked = false;
  uint64_t offset = 0;
  uint64_t length = 0;

  uint64_t end() const { return offset + length; }
  bool contains(int32_t f, uint64_t pos) const { return f == file && pos >= offset && pos < end(); }
  bool same_bytes(const Extent &o) const {
    return file == o.file && offset == o.offset && length == o.length;
  }
};

}  // namespace pfio
