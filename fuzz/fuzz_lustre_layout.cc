// Fuzzes the decoder of Lustre's lov_user_md (what LL_IOC_LOV_GETSTRIPE returns; a file system
// or a future Lustre version may fill it differently). Properties: an accepted stripe lists at
// most LOV_MAX_STRIPE_COUNT objects and never more than the buffer holds.
#include <cstdint>

#include "fuzz_check.h"
#include "layout/lustre_layout.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pfio::LustreStripe stripe;
  pfio::Status s = pfio::ParseLovUserMd(data, size, &stripe);
  if (!s.ok()) return 0;
  FUZZ_CHECK(stripe.osts.size() <= pfio::LustreStripe::kMaxStripes, "%zu OSTs", stripe.osts.size());
  FUZZ_CHECK(stripe.osts.size() * pfio::LustreStripe::kObjectBytes <= size, "%zu OSTs in %zu bytes",
             stripe.osts.size(), size);
  std::unique_ptr<pfio::StripedLayout> layout;
  (void)pfio::LustreLayoutFromStripe(stripe, "fuzz", &layout);
  return 0;
}
