#include "collective/plan_codec.h"

namespace pfio::collective {
namespace {

uint64_t Zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ (v < 0 ? ~uint64_t{0} : 0);
}
int64_t Unzigzag(uint64_t v) {
  return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
}

}  // namespace

void PutVarint(std::vector<uint8_t> *out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));
}

// Reads one varint at *pos; false when the bytes end or it has more than 64 bits.
bool GetVarint(const uint8_t *data, size_t size, size_t *pos, uint64_t *v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= size) return false;
    const uint8_t byte = data[(*pos)++];
    if (shift == 63 && byte > 1) return false;
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *v = result;
      return true;
    }
  }
  return false;
}

std::vector<uint8_t> EncodePlan(const FileRanges &ranges) {
  std::vector<uint8_t> body;
  uint64_t records = 0;
  uint64_t previous_start = 0;
  for (size_t i = 0; i < ranges.size();) {
    // The longest run from i: equal lengths, constant offset difference.
    size_t n = 1;
    int64_t stride = 0;
    if (i + 1 < ranges.size() && ranges[i + 1].length == ranges[i].length) {
      stride = static_cast<int64_t>(ranges[i + 1].offset - ranges[i].offset);
      n = 2;
      while (i + n < ranges.size() && ranges[i + n].length == ranges[i].length &&
             static_cast<int64_t>(ranges[i + n].offset - ranges[i + n - 1].offset) == stride)
        ++n;
    }
    PutVarint(&body, n);
    PutVarint(&body, Zigzag(static_cast<int64_t>(ranges[i].offset - previous_start)));
    PutVarint(&body, ranges[i].length);
    if (n > 1) PutVarint(&body, Zigzag(stride));
    previous_start = ranges[i].offset;
    ++records;
    i += n;
  }
  std::vector<uint8_t> out;
  out.reserve(body.size() + 10);
  PutVarint(&out, records);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

Status DecodePlan(const uint8_t *data, size_t size, uint64_t max_extents, FileRanges *out) {
  size_t pos = 0;
  uint64_t records = 0;
  if (!GetVarint(data, size, &pos, &records))
    return Status::Io("plan message truncated in its record count");
  FileRanges decoded;
  uint64_t start = 0;
  for (uint64_t r = 0; r < records; ++r) {
    uint64_t count = 0, delta = 0, length = 0, stride = 0;
    if (!GetVarint(data, size, &pos, &count) || !GetVarint(data, size, &pos, &delta) ||
        !GetVarint(data, size, &pos, &length) ||
        (count > 1 && !GetVarint(data, size, &pos, &stride)))
      return Status::Io("plan message truncated in record " + std::to_string(r) + " of " +
                        std::to_string(records));
    if (count == 0)
      return Status::Io("plan record " + std::to_string(r) + " has count 0 (expected >= 1)");
    if (count > max_extents - decoded.size())
      return Status::Io("plan message holds more than " + std::to_string(max_extents) + " extents");
    start += static_cast<uint64_t>(Unzigzag(delta));
    const int64_t step = Unzigzag(stride);
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t offset = start + static_cast<uint64_t>(step) * i;
      if (offset + length < offset)
        return Status::Io("plan record " + std::to_string(r) + " reaches past 2^64 (offset " +
                          std::to_string(offset) + ", length " + std::to_string(length) + ")");
      decoded.push_back({offset, length});
    }
  }
  if (pos != size)
    return Status::Io("plan message has " + std::to_string(size - pos) +
                      " bytes after its last record");
  out->insert(out->end(), decoded.begin(), decoded.end());
  return Status::Ok();
}

}  // namespace pfio::collective
