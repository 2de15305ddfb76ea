#include "common/text_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

namespace pfio {

std::string ReadFirstLine(const std::string &path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

KeptFile::~KeptFile() {
  Close();
}

void KeptFile::Close() {
  if (fd_ >= 0 && owner_ == getpid()) close(fd_);
  fd_ = -1;
}

bool KeptFile::Read(std::string *text) {
  text->clear();
  if (fd_ >= 0 && owner_ != getpid()) fd_ = -1;  // the parent's: leave it to the parent
  if (fd_ < 0) {
    fd_ = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return false;
    owner_ = getpid();
  }
  char buf[8192];
  for (;;) {
    const ssize_t n = pread(fd_, buf, sizeof buf, static_cast<off_t>(text->size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Close();
      text->clear();
      return false;
    }
    text->append(buf, static_cast<size_t>(n));
    // A short read is the end: the kernel's text files give all they have in one read that
    // has room for it (one system call per sample), a regular file ends there too.
    if (static_cast<size_t>(n) < sizeof buf) return true;
  }
}

}  // namespace pfio
