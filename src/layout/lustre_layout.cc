#include "layout/lustre_layout.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/fs_type.h"

namespace pfio {

namespace {

// LL_IOC_LOV_GETSTRIPE is _IOW('f', 155, long) in lustre_user.h.
const unsigned long kGetStripe = _IOW('f', 155, long);

template <typename T>
T Load(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

Status ParseLovUserMd(const void *buf, size_t len, LustreStripe *out) {
  const auto *p = static_cast<const uint8_t *>(buf);
  if (len < LustreStripe::kHeaderV1) {
    return Status::Invalid(
        Format("Lustre layout of %zu bytes: expected at least %zu (a lov_user_md header)", len,
               LustreStripe::kHeaderV1));
  }
  LustreStripe s;
  s.magic = Load<uint32_t>(p);
  if (s.magic == LustreStripe::kMagicComposite) {
    return Status::Invalid(
        "Lustre layout magic 0x0bd60bd0 (composite: PFL or self-extending): pfio reads plain "
        "striped layouts only; expected a file made with lfs setstripe -S SIZE -c COUNT, or give "
        "layout=stripe=SIZE,targets=COUNT");
  }
  if (s.magic == LustreStripe::kMagicForeign) {
    return Status::Invalid(
        "Lustre layout magic 0x0bd70bd0 (foreign: the data is outside Lustre's OSTs): expected a "
        "plain striped layout (v1 0x0bd10bd0 or v3 0x0bd30bd0)");
  }
  if (s.magic != LustreStripe::kMagicV1 && s.magic != LustreStripe::kMagicV3) {
    return Status::Invalid(
        Format("Lustre layout magic 0x%08x: expected a plain striped layout (v1 0x0bd10bd0 or v3 "
               "0x0bd30bd0)",
               s.magic));
  }
  const size_t header =
      s.magic == LustreStripe::kMagicV3 ? LustreStripe::kHeaderV3 : LustreStripe::kHeaderV1;
  if (len < header) {
    return Status::Invalid(
        Format("Lustre v3 layout of %zu bytes: expected at least %zu", len, header));
  }
  s.pattern = Load<uint32_t>(p + 4);
  s.stripe_size = Load<uint32_t>(p + 24);
  s.stripe_count = Load<uint16_t>(p + 28);
  if (s.magic == LustreStripe::kMagicV3) {
    const char *pool = reinterpret_cast<const char *>(p + 32);
    s.pool.assign(pool, strnlen(pool, 16));
  }
  if (s.stripe_count > LustreStripe::kMaxStripes) {
    return Status::Invalid(Format("Lustre stripe_count = %u: expected 1 .. %u", s.stripe_count,
                                  LustreStripe::kMaxStripes));
  }
  const size_t need = header + size_t{s.stripe_count} * LustreStripe::kObjectBytes;
  if (len < need) {
    return Status::Invalid(Format(
        "Lustre layout of %zu bytes with stripe_count = %u: expected %zu bytes (the header and "
        "%zu per stripe)",
        len, s.stripe_count, need, LustreStripe::kObjectBytes));
  }
  for (uint32_t i = 0; i < s.stripe_count; ++i)
    s.osts.push_back(Load<uint32_t>(p + header + i * LustreStripe::kObjectBytes + 20));
  *out = std::move(s);
  return Status::Ok();
}

Status LustreLayoutFromStripe(const LustreStripe &stripe, const std::string &where,
                              std::unique_ptr<StripedLayout> *out) {
  if (stripe.pattern & LustreStripe::kPatternReleased) {
    return Status::Invalid(
        Format("%s: Lustre pattern 0x%x: the file is released (HSM), its data is on no OST; "
               "restore it first (lfs hsm_restore)",
               where.c_str(), stripe.pattern));
  }
  const uint32_t kind = stripe.pattern & ~LustreStripe::kPatternOverstriping;
  if (kind != LustreStripe::kPatternRaid0) {
    return Status::Invalid(
        Format("%s: Lustre pattern 0x%x: expected RAID0 striping (0x1, optionally with "
               "overstriping 0x200)",
               where.c_str(), stripe.pattern));
  }
  if (stripe.stripe_count == 0 || stripe.osts.size() != stripe.stripe_count) {
    return Status::Invalid(
        Format("%s: Lustre stripe_count = %u with %zu objects: expected at least one stripe "
               "with an object each (a file created with O_LOV_DELAY_CREATE has none yet)",
               where.c_str(), stripe.stripe_count, stripe.osts.size()));
  }
  std::string osts;
  for (size_t i = 0; i < stripe.osts.size() && i < 16; ++i)
    osts += (i ? "," : "") + std::to_string(stripe.osts[i]);
  if (stripe.osts.size() > 16) osts += ",...";
  std::string source =
      Format("Lustre LL_IOC_LOV_GETSTRIPE on %s: OSTs %s%s%s", where.c_str(), osts.c_str(),
             stripe.pool.empty() ? "" : ", pool ", stripe.pool.c_str());
  Status s = StripedLayout::Make(stripe.stripe_size, stripe.stripe_count, 1, source, out);
  if (!s.ok()) return Status::Invalid(Format("%s: Lustre %s", where.c_str(), s.message().c_str()));
  return s;
}

Status ReadLustreLayout(const std::string &path, std::unique_ptr<StripedLayout> *out) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    return Status::Invalid(Format("opening %s: %s", path.c_str(), std::strerror(e)));
  }
  if (!OnLustre(fd)) {
    const std::string fs = FsTypeName(fd);
    close(fd);
    return Status::Invalid(
        Format("%s is on %s: expected a Lustre file system for its striping; "
               "give layout=stripe=SIZE,targets=COUNT instead",
               path.c_str(), fs.c_str()));
  }
  std::vector<uint8_t> buf(LustreStripe::kHeaderV3 +
                           size_t{LustreStripe::kMaxStripes} * LustreStripe::kObjectBytes);
  const uint32_t magic = LustreStripe::kMagicV1;
  const uint16_t room = LustreStripe::kMaxStripes;
  std::memcpy(buf.data(), &magic, sizeof magic);  // the kernel reads magic and stripe_count
  std::memcpy(buf.data() + 28, &room, sizeof room);
  if (ioctl(fd, kGetStripe, buf.data()) != 0) {
    const int e = errno;
    close(fd);
    if (e == ENODATA) {
      return Status::Invalid(Format(
          "%s: Lustre reports no striping (ENODATA): the file has no OST objects", path.c_str()));
    }
    return Status::Io(
        Format("%s: ioctl(LL_IOC_LOV_GETSTRIPE): %s", path.c_str(), std::strerror(e)));
  }
  close(fd);
  LustreStripe stripe;
  Status s = ParseLovUserMd(buf.data(), buf.size(), &stripe);
  if (!s.ok()) return Status::Invalid(path + ": " + s.message());
  return LustreLayoutFromStripe(stripe, path, out);
}

}  // namespace pfio
