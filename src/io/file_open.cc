#include "io/file_open.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <span>

#include "common/fs_type.h"

namespace pfio {

int OpenODirect(const std::string &path) {
  return open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
}

namespace {

std::string DescriptorPath(int fd) {
  return "/proc/self/fd/" + std::to_string(fd);
}

bool SameFile(int a, int b) {
  struct stat sa {
  }, sb{};
  return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// The file's first descriptor: a reopen of the front end's (the file it opened, whatever the
// path names now), else an open of the path. O_NONBLOCK: opening a FIFO without a writer would
// otherwise block forever; the type is checked next and only regular files stay open.
Status OpenFirst(const FileSource &source, FileHandle *f, struct stat *st) {
  const std::string &path = source.path;
  if (source.fd >= 0) {
    if (fstat(source.fd, st) != 0) {
      const int e = errno;
      return Status::Invalid(
          Format("%s: descriptor %d cannot be read (fstat: %s): expected the "
                 "descriptor the file was opened with",
                 path.c_str(), source.fd, std::strerror(e)));
    }
    if (S_ISREG(st->st_mode)) f->buffered_fd = OwnDescriptor(source.fd);
    if (S_ISREG(st->st_mode) && f->buffered_fd < 0) {
      const int e = errno;
      return Status::Io(Format("%s: reopening its descriptor %d failed: %s (errno %d)",
                               path.c_str(), source.fd, std::strerror(e), e));
    }
    return Status::Ok();
  }
  f->buffered_fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (f->buffered_fd < 0) {
    int e = errno;
    return Status(
        e == ENOENT || e == EACCES ? PFIO_EINVAL : PFIO_EIO,
        Format("opening %s for reading failed: %s (errno %d)", path.c_str(), std::strerror(e), e));
  }
  if (fstat(f->buffered_fd, st) != 0) st->st_mode = 0;
  return Status::Ok();
}

}  // namespace

Status OpenFileHandle(const FileSource &source, bool want_direct, FileHandle *out,
                      std::string *refused_reason, const DirectOpener &opener) {
  const std::string &path = source.path;
  FileHandle f;
  f.path = path;
  struct stat st {};
  Status first = OpenFirst(source, &f, &st);
  if (!first.ok()) return first;
  if (!S_ISREG(st.st_mode)) {
    if (f.buffered_fd >= 0) close(f.buffered_fd);
    return Status::Invalid(
        Format("%s is %s: expected a regular file", path.c_str(), NotRegularKind(st.st_mode)));
  }
  fcntl(f.buffered_fd, F_SETFL, fcntl(f.buffered_fd, F_GETFL) & ~O_NONBLOCK);
  f.size = static_cast<uint64_t>(st.st_size);
  f.on_lustre = OnLustre(f.buffered_fd);
  f.remote = OnRemoteStorage(f.buffered_fd);
  if (want_direct) {
    // Only EINVAL means the file system refuses O_DIRECT (at open or at the first read). Any
    // other failure (EMFILE, ENOMEM, EIO, ...) is not O_DIRECT's: the open fails naming it, so a
    // readable file is neither moved to the page cache for good nor refused for the wrong reason.
    // Opened through /proc/self/fd (the same inode); the path only where /proc is missing, and
    // then checked to be the same file below.
    int fd = opener(DescriptorPath(f.buffered_fd));
    int e = errno;
    if (fd < 0 && e == ENOENT) {
      fd = opener(path);
      e = errno;
    }
    if (fd < 0 && e != EINVAL) {
      close(f.buffered_fd);
      return Status(PFIO_EIO, Format("opening %s with O_DIRECT failed: %s (errno %d)", path.c_str(),
                                     std::strerror(e), e));
    }
    if (fd >= 0 && f.size > 0) {
      void *probe = nullptr;
      if (posix_memalign(&probe, kDirectAlign, kDirectAlign) == 0) {
        ssize_t n;
        do {
          n = pread(fd, probe, kDirectAlign, 0);
        } while (n < 0 && errno == EINTR);
        e = errno;
        free(probe);
        if (n < 0) {
          close(fd);
          fd = -1;
          if (e != EINVAL) {
            close(f.buffered_fd);
            return Status::Io(Format(
                "reading the first %llu bytes of %s with O_DIRECT failed: "
                "%s (errno %d)",
                static_cast<unsigned long long>(kDirectAlign), path.c_str(), std::strerror(e), e));
          }
        }
      }
    }
    if (fd >= 0 && !SameFile(fd, f.buffered_fd)) {
      close(fd);
      close(f.buffered_fd);
      return Status::Io(
          Format("%s names another file than the one opened (replaced between two "
                 "opens): expected one file; open it again",
                 path.c_str()));
    }
    if (fd >= 0) {
      f.direct_fd = fd;
      f.o_direct = true;
    } else {
      *refused_reason = Format("%s (%s) refuses O_DIRECT: %s", path.c_str(),
                               FsTypeName(f.buffered_fd).c_str(), std::strerror(e));
    }
  }
  if (f.direct_fd < 0) f.direct_fd = f.buffered_fd;
  *out = f;
  return Status::Ok();
}

int OwnDescriptor(int fd) {
  if (fd < 0) return -1;
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  const int reopened = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  return reopened >= 0 ? reopened : fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

void CloseFileHandle(FileHandle *f) {
  if (f->direct_fd >= 0 && f->direct_fd != f->buffered_fd) close(f->direct_fd);
  if (f->buffered_fd >= 0) close(f->buffered_fd);
  f->direct_fd = f->buffered_fd = -1;
}

int64_t PreadvFully(int fd, uint64_t offset, std::span<const iovec> iov) {
  // One call reads the whole list in the common case: no copy of it (a malloc per read), and a
  // single buffer is a pread (the kernel imports no vector).
  uint64_t want = 0;
  for (const iovec &v : iov) want += v.iov_len;
  ssize_t n;
  do {
    n = iov.size() == 1
            ? pread(fd, iov[0].iov_base, iov[0].iov_len, static_cast<off_t>(offset))
            : preadv(fd, iov.data(), static_cast<int>(std::min<size_t>(iov.size(), IOV_MAX)),
                     static_cast<off_t>(offset));
  } while (n < 0 && errno == EINTR);
  if (n < 0) return -errno;
  if (n == 0 || static_cast<uint64_t>(n) == want) return n;
  // Short (a signal, more than IOV_MAX buffers, or the end of the file): the rest, buffer by
  // buffer from where it stopped, on a copy of the list.
  std::vector<iovec> rest(iov.begin(), iov.end());
  size_t first = 0;
  int64_t total = 0;
  for (;;) {
    total += n;
    size_t left = static_cast<size_t>(n);
    while (first < rest.size() && left >= rest[first].iov_len) {
      left -= rest[first].iov_len;
      ++first;
    }
    if (left > 0) {
      rest[first].iov_base = static_cast<char *>(rest[first].iov_base) + left;
      rest[first].iov_len -= left;
    }
    if (first >= rest.size()) break;
    do {
      const int cnt = static_cast<int>(std::min<size_t>(rest.size() - first, IOV_MAX));
      n = preadv(fd, rest.data() + first, cnt, static_cast<off_t>(offset + total));
    } while (n < 0 && errno == EINTR);
    if (n < 0) return -errno;
    if (n == 0) break;
  }
  return total;
}

Status Backend::ReadDirectV(const FileHandle &file, std::span<const iovec> iov, uint64_t offset,
                            uint64_t *nread) {
  const int64_t n = PreadvFully(file.buffered_fd, offset, iov);
  if (n < 0) {
    uint64_t length = 0;
    for (const iovec &v : iov) length += v.iov_len;
    return Status::Io(
        Format("reading %s at offset %llu (%llu bytes in %zu buffers) failed: %s "
               "(errno %d)",
               file.path.c_str(), static_cast<unsigned long long>(offset),
               static_cast<unsigned long long>(length), iov.size(),
               std::strerror(static_cast<int>(-n)), static_cast<int>(-n)));
  }
  *nread = static_cast<uint64_t>(n);
  return Status::Ok();
}

Status Backend::CurrentSize(const FileHandle &file, uint64_t *size) {
  struct stat st;
  if (fstat(file.buffered_fd, &st) != 0) {
    return Status::Io(Format("fstat of %s (fd %d) failed: %s", file.path.c_str(), file.buffered_fd,
                             std::strerror(errno)));
  }
  *size = static_cast<uint64_t>(st.st_size);
  return Status::Ok();
}

Status Backend::Version(const FileHandle &file, FileVersion *out) {
  struct stat st;
  if (fstat(file.buffered_fd, &st) != 0) {
    return Status::Io(Format("fstat of %s (fd %d) failed: %s", file.path.c_str(), file.buffered_fd,
                             std::strerror(errno)));
  }
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  *out = VersionOf(st, now, file.remote);
  return Status::Ok();
}

FileVersion VersionOf(const struct stat &st, const timespec &now, bool remote) {
  FileVersion v;
  v.size = static_cast<uint64_t>(st.st_size);
  v.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  v.ctime_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  const int64_t now_ns = static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
  // The kernel stamps ctime itself (no call sets it), so one on a whole second is a file system
  // that keeps whole seconds (ext3, ext4 with 128-byte inodes, FAT's 2 s, many network ones):
  // the chance of a fine clock landing there is about 1 in 10^9.
  const int64_t window = st.st_ctim.tv_nsec == 0 ? kRacyWindowCoarseNs
                         : remote                ? kRacyWindowRemoteNs
                                                 : kRacyWindowLocalNs;
  v.racy = std::max(v.mtime_ns, v.ctime_ns) >= now_ns - window;
  return v;
}

}  // namespace pfio
