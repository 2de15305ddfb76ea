// The staging calls of the real backends, and the Backend defaults that concern scheduling.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "io/backend.h"

namespace pfio {

namespace {
constexpr uint64_t kPokeBytes = 4096;
using ull = unsigned long long;
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
    case PFIO_STAGE_LADVISE:
      return Status::Invalid(
          "stage = ladvise: this build of pfio has no Lustre support (lustre/lustreapi.h was not "
          "found at build time); expected none, poke or pagecache");
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

bool Backend::StageCanGain(uint64_t block, uint32_t targets, std::string *why) const {
  (void)block;
  (void)targets;
  (void)why;
  return true;  // no model of the device: the user asked for it, so do it
}

uint32_t Backend::TargetDepth(uint32_t queue_depth, uint32_t targets) const {
  return std::max<uint32_t>(1, queue_depth / std::max<uint32_t>(1, targets));
}

double Backend::Now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace pfio
