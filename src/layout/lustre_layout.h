// Lustre striping as the file system reports it, turned into a StripedLayout: stripe i of the
// file lives on the (i mod stripe_count)-th OST of the file's object list, at target offset
// (i div stripe_count) * stripe_size. All OSTs are put in one bus group (which OSTs share an
// OSS and its network link is not in the file's layout).
//
// The layout comes from the LL_IOC_LOV_GETSTRIPE ioctl. pfio speaks the ioctl's user ABI
// itself (struct lov_user_md v1/v3 of Lustre's lustre_user.h, host byte order), so neither the
// Lustre headers nor liblustreapi are needed to build it, and the ioctl is issued only on files
// whose file system is Lustre (fstatfs magic 0x0BD00BD0). Composite (PFL, SEL), foreign and
// released (HSM) layouts are refused with an error that names them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "layout/striped_layout.h"

namespace pfio {

// The layout setting that asks for the striping of the first file opened, read from Lustre.
constexpr char kLustreLayout[] = "lustre";

struct LustreStripe {
  static constexpr uint32_t kMagicV1 = 0x0BD10BD0;
  static constexpr uint32_t kMagicV3 = 0x0BD30BD0;         // v1 plus a pool name
  static constexpr uint32_t kMagicComposite = 0x0BD60BD0;  // PFL / SEL: several components
  static constexpr uint32_t kMagicForeign = 0x0BD70BD0;
  static constexpr uint32_t kPatternRaid0 = 0x1;
  static constexpr uint32_t kPatternOverstriping = 0x200;  // RAID0 with an OST listed twice
  static constexpr uint32_t kPatternReleased = 0x80000000;
  static constexpr size_t kHeaderV1 = 32, kHeaderV3 = 48, kObjectBytes = 24;
  static constexpr uint32_t kMaxStripes = 2000;  // LOV_MAX_STRIPE_COUNT

  uint32_t magic = 0;
  uint32_t pattern = 0;
  uint32_t stripe_size = 0;
  uint32_t stripe_count = 0;
  std::vector<uint32_t> osts;  // OST index of each stripe, in stripe order
  std::string pool;            // v3 only; empty when none
};

// Decodes a lov_user_md as LL_IOC_LOV_GETSTRIPE fills it; `len` is the buffer's size.
Status ParseLovUserMd(const void *buf, size_t len, LustreStripe *out);
// Checks the stripe (plain RAID0, a stripe size StripedLayout accepts, at least one stripe)
// and builds the layout; `where` names the file in messages and in Describe().
Status LustreLayoutFromStripe(const LustreStripe &stripe, const std::string &where,
                              std::unique_ptr<StripedLayout> *out);
// Opens `path`, checks that it is on Lustre and reads its striping.
Status ReadLustreLayout(const std::string &path, std::unique_ptr<StripedLayout> *out);

}  // namespace pfio
