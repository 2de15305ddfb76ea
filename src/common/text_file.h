// Small readers for text files of the kernel (sysfs, procfs, cgroupfs).
#pragma once

#include <sys/types.h>

#include <string>

namespace pfio {

// The first line of `path` without its newline; "" when the file cannot be read.
std::string ReadFirstLine(const std::string &path);

// KeptFile: a small kernel text file read again and again through one descriptor.
//
// Contract. Read() returns the file's whole text as of now: the first read opens it, every read
// reads it from offset 0 with pread (procfs, sysfs and cgroupfs make their text afresh at offset
// 0; a read shorter than asked ends it), so a sample costs one system call instead of open, read
// and close, and a file rewritten in place (tests) is read anew. A file that cannot be opened
// yields false and is tried again at the next Read (it may appear later); one whose read fails
// is closed and reopened at the next Read. The descriptor is close-on-exec and kept per process:
// a forked child reopens (a path under /proc/self then names the child's own file). Not
// thread-safe; one owner.
class KeptFile {
 public:
  explicit KeptFile(std::string path) : path_(std::move(path)) {}
  ~KeptFile();
  KeptFile(const KeptFile &) = delete;
  KeptFile &operator=(const KeptFile &) = delete;

  const std::string &path() const { return path_; }
  // The whole text into *text ("" and false when the file cannot be opened or read).
  bool Read(std::string *text);

 private:
  void Close();

  std::string path_;
  int fd_ = -1;
  pid_t owner_ = 0;  // the process that opened fd_
};

}  // namespace pfio
