// Opening files for the backends: a buffered descriptor always, an O_DIRECT one when asked and
// the file system accepts it (checked with a real one-page read, since some file systems accept
// the flag at open and refuse at read).
#pragma once

#include <sys/stat.h>
#include <time.h>

#include <functional>
#include <span>
#include <string>

#include "common/page.h"
#include "io/backend.h"

namespace pfio {

constexpr uint64_t kDirectAlign = kPage;

// How an O_DIRECT descriptor is opened: open(2) by default; tests substitute a file system that
// refuses O_DIRECT (tmpfs accepts it since Linux 6.6, so no common file system is left to test on).
using DirectOpener = std::function<int(const std::string &path)>;
int OpenODirect(const std::string &path);

// Opens the buffered descriptor and reads the size. With want_direct, also tries O_DIRECT;
// *refused_reason is set (and out->o_direct false) when the file system refuses it. Every
// descriptor is of the source's one file (FileSource): the O_DIRECT one is opened through
// /proc/self/fd of the buffered one, and checked to be the same inode.
Status OpenFileHandle(const FileSource &source, bool want_direct, FileHandle *out,
                      std::string *refused_reason, const DirectOpener &opener = OpenODirect);
void CloseFileHandle(FileHandle *f);

// A descriptor of fd's file on an open file description of its own: reopened read-only through
// /proc/self/fd (the same inode, renamed or unlinked too), else a dup() when that fails (no
// /proc, no read permission); -1 when neither works. Advice through it does not wait for reads
// on fd's description (io/page_cache_backend.h has the measurement).
int OwnDescriptor(int fd);

// The version a stat of the file taken at `now` shows, racy within the window of its clock
// (kRacyWindow*: whole-second times, else remote or local storage). Backend::Version's rule.
FileVersion VersionOf(const struct stat &st, const timespec &now, bool remote);

// preadv until every iovec is full or end of file; returns bytes or -errno.
int64_t PreadvFully(int fd, uint64_t offset, std::span<const iovec> iov);

}  // namespace pfio
