// Fuzzes the layout strings ("stripe=1M,targets=8,buses=2": the `layout` key and the striping
// hints). Properties: an accepted layout maps any range to pieces that tile it exactly, in
// order, each on a target and bus that exist and no longer than a stripe.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "layout/striped_layout.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The first 16 bytes (when there are more) pick the range to map; the rest is the spec.
  uint64_t offset = 0, length = 1 << 20;
  if (size > 16) {
    std::memcpy(&offset, data, 8);
    std::memcpy(&length, data + 8, 8);
    offset %= 1ull << 50;
    length = length % (64ull << 20) + 1;
    data += 16, size -= 16;
  }
  const std::string spec(reinterpret_cast<const char *>(data), size);
  std::unique_ptr<pfio::StripedLayout> layout;
  pfio::Status s = pfio::StripedLayout::Parse(spec, &layout);
  if (!s.ok()) {
    FUZZ_CHECK(!s.message().empty() && layout == nullptr, "refusal of '%s'", spec.c_str());
    return 0;
  }
  if (length / layout->stripe() > 4096) length = 4096 * layout->stripe();  // bound the work
  std::vector<pfio::Placement> pieces;
  layout->Map(offset, length, &pieces);
  uint64_t pos = offset;
  for (const pfio::Placement &p : pieces) {
    FUZZ_CHECK(p.file_offset == pos && p.length > 0 && p.length <= layout->stripe(),
               "piece at %llu of %llu", static_cast<unsigned long long>(p.file_offset),
               static_cast<unsigned long long>(p.length));
    FUZZ_CHECK(p.target < layout->targets() && p.bus < layout->buses(), "target %u bus %u",
               p.target, p.bus);
    pos += p.length;
  }
  FUZZ_CHECK(pos == offset + length, "pieces end at %llu, not %llu",
             static_cast<unsigned long long>(pos),
             static_cast<unsigned long long>(offset + length));
  (void)layout->Describe();
  return 0;
}
