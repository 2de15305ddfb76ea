// Fuzzes the collective plan codec: the bytes a rank receives from other ranks. Properties:
// decode never allocates past its extent bound and leaves the output alone when it refuses; an
// accepted plan encodes and decodes back to the same extents.
#include <cstdint>

#include "collective/plan_codec.h"
#include "fuzz_check.h"

using pfio::collective::DecodePlan;
using pfio::collective::EncodePlan;
using pfio::collective::FileRanges;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The bound is a parameter of the decoder; 4096 keeps an execution cheap (a bound of 65536
  // made the average execution allocate and check up to a megabyte) and exercises the same code.
  constexpr uint64_t kMaxExtents = 1 << 12;
  FileRanges out{{1, 1}};  // a sentinel: a refusal must leave it alone
  pfio::Status err = DecodePlan(data, size, kMaxExtents, &out);
  if (!err.ok()) {
    FUZZ_CHECK(out.size() == 1 && out[0].offset == 1, "refusal '%s' changed the output",
               err.message().c_str());
    return 0;
  }
  FUZZ_CHECK(out.size() - 1 <= kMaxExtents, "%zu extents", out.size() - 1);
  FileRanges plan(out.begin() + 1, out.end());
  std::vector<uint8_t> bytes = EncodePlan(plan);
  FileRanges back;
  err = DecodePlan(bytes.data(), bytes.size(), kMaxExtents, &back);
  FUZZ_CHECK(err.ok(), "re-encoded plan refused: %s", err.message().c_str());
  FUZZ_CHECK(back == plan, "round trip changed %zu extents into %zu", plan.size(), back.size());
  return 0;
}
