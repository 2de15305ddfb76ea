// The staging calls of the real backends, and the Backend defaults that concern scheduling.
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "common/fs_type.h"
#include "common/page.h"
#include "io/backend.h"

namespace pfio {

namespace {
constexpr uint64_t kPokeBytes = kPage;
using ull = unsigned long long;

// Lustre's ladvise user ABI (lustre_user.h: struct llapi_ladvise_hdr followed by struct
// llapi_lu_ladvise entries; LL_IOC_LADVISE is _IOR('f', 250, struct llapi_lu_ladvise)). Spoken
// here directly, so that no Lustre headers or liblustreapi are needed to build pfio.
struct LustreAdvice {
  uint16_t advice;  // 1: WILLREAD (the OSS reads the extent into its cache)
  uint16_t value1;
  uint32_t value2;
  uint64_t start;  // first byte
  uint64_t end;    // last byte
  uint32_t value3;
  uint32_t value4;
};
struct LustreAdviceRequest {
  uint32_t magic;  // 0x1ADF1CE0
  uint32_t count;
  uint64_t flags;  // 1: LF_ASYNC, do not wait for the servers
  uint32_t value1;
  uint32_t value2;
  uint64_t value3;
  LustreAdvice advice[1];
};
static_assert(sizeof(LustreAdvice) == 32 && sizeof(LustreAdviceRequest) == 64,
              "the layout of Lustre's ladvise ABI");
constexpr uint32_t kLadviseMagic = 0x1ADF1CE0;
constexpr uint16_t kWillRead = 1;
constexpr uint64_t kAsync = 1;
const unsigned long kLadviseIoctl = _IOR('f', 250, LustreAdvice);
}  // namespace

const char *StageName(pfio_stage kind) {
  switch (kind) {
    case PFIO_STAGE_AUTO:
      return "auto";
    case PFIO_STAGE_NONE:
      return "none";
    case PFIO_STAGE_POKE:
      return "poke";
    case PFIO_STAGE_PAGECACHE:
      return "pagecache";
    case PFIO_STAGE_LADVISE:
      return "ladvise";
    case PFIO_STAGE_DEVICE:
      return "device";
  }
  return "?";
}

Status Backend::Stage(const FileHandle &file, uint64_t offset, uint64_t length, pfio_stage kind) {
  switch (kind) {
    case PFIO_STAGE_NONE:
      return Status::Ok();
    case PFIO_STAGE_POKE: {
      // The page just before the block (or its first page at offset 0): the drive positions
      // there and its read-ahead carries on into the block.
      const uint64_t at = offset >= kPokeBytes ? (offset / kPokeBytes - 1) * kPokeBytes : 0;
      const int fd = file.o_direct ? file.direct_fd : file.buffered_fd;
      void *buf = nullptr;
      if (posix_memalign(&buf, kPokeBytes, kPokeBytes) != 0) {
        return Status::NoMem("stage poke: could not allocate a 4 KiB aligned buffer");
      }
      const ssize_t n = pread(fd, buf, kPokeBytes, static_cast<off_t>(at));
      const int err = errno;
      free(buf);
      if (n < 0) {
        return Status::Io(
            Format("stage poke of %s at %llu: %s", file.path.c_str(), (ull)at, std::strerror(err)));
      }
      return Status::Ok();
    }
    case PFIO_STAGE_PAGECACHE:
      // One call per extent; the kernel caps each at its read-ahead window.
      if (readahead(file.buffered_fd, static_cast<off64_t>(offset), length) != 0) {
        return Status::Io(Format("stage pagecache: readahead(%s, %llu, %llu): %s",
                                 file.path.c_str(), (ull)offset, (ull)length,
                                 std::strerror(errno)));
      }
      return Status::Ok();
    case PFIO_STAGE_LADVISE: {
      if (!file.on_lustre) {
        return Status::Invalid(Format(
            "stage = ladvise: %s is on %s, not Lustre; expected none, poke or pagecache there",
            file.path.c_str(), FsTypeName(file.buffered_fd).c_str()));
      }
      if (length == 0) return Status::Ok();
      LustreAdviceRequest req{};
      req.magic = kLadviseMagic;
      req.count = 1;
      req.flags = kAsync;
      req.advice[0].advice = kWillRead;
      req.advice[0].start = offset;
      req.advice[0].end = offset + length - 1;
      if (ioctl(file.buffered_fd, kLadviseIoctl, &req) != 0) {
        return Status::Io(Format(
            "stage ladvise: ioctl(LL_IOC_LADVISE, WILLREAD %llu .. %llu) on "
            "%s: %s",
            (ull)offset, (ull)(offset + length - 1), file.path.c_str(), std::strerror(errno)));
      }
      return Status::Ok();
    }
    case PFIO_STAGE_DEVICE:
      return Status::Invalid(
          Format("stage = device: backend %s has no simulated drive cache; expected none, poke or "
                 "pagecache (device is the sim backend's)",
                 name()));
    case PFIO_STAGE_AUTO:
      break;
  }
  return Status::Invalid(Format("stage = %d: not a stage kind", static_cast<int>(kind)));
}

Status DeviceModel::StageCanGain(uint64_t block, uint32_t targets) const {
  (void)block;
  (void)targets;
  return Status::Ok();  // no model of the device: the user asked for it, so do it
}

uint32_t DeviceModel::TargetDepth(uint32_t queue_depth, uint32_t targets) const {
  return std::max<uint32_t>(1, queue_depth / std::max<uint32_t>(1, targets));
}

const DeviceModel &Backend::device() const {
  static const DeviceModel unknown;
  return unknown;
}

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace pfio
