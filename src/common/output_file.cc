#include "common/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/fs_type.h"

namespace pfio {

namespace {

std::string Quoted(const std::string &path) {
  return "\"" + path + "\"";
}

bool BeginsWith(const std::string &path, std::string_view signature) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  std::string head(signature.size(), '\0');
  size_t got = 0;
  while (got < head.size()) {
    const ssize_t n = read(fd, head.data() + got, head.size() - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  close(fd);
  return got == head.size() && head == signature;
}

}  // namespace

Status CheckOutputTarget(const std::string &path, const OutputKind &kind,
                         const std::string &data_path, const char *what) {
  const std::string named = std::string(what) + " = " + Quoted(path);
  if (path.empty()) return Status::Invalid(std::string(what) + " is empty: expected a file path");
  struct stat target {};
  if (lstat(path.c_str(), &target) != 0) {
    if (errno == ENOENT) return Status::Ok();  // a new file
    return Status::Io(named + ": " + std::strerror(errno) + "; nothing is written");
  }
  if (!S_ISREG(target.st_mode)) {
    return Status::Invalid(named + " is " + NotRegularKind(target.st_mode) +
                           "; refused, nothing is written (expected a new path or a pfio " +
                           kind.name + ")");
  }
  struct stat data {};
  if (!data_path.empty() && stat(data_path.c_str(), &data) == 0 && target.st_dev == data.st_dev &&
      target.st_ino == data.st_ino) {
    return Status::Invalid(named +
                           " names the file being read; refused, the file is left as it is "
                           "(name a new path)");
  }
  if (!BeginsWith(path, kind.signature)) {
    return Status::Invalid(named + " exists and is not a pfio " + kind.name +
                           "; refused, the file is left as it is (remove it or name a new path)");
  }
  return Status::Ok();
}

Status CreateOutputTemporary(const std::string &path, const char *what, std::string *temporary,
                             int *fd) {
  static std::atomic<unsigned> sequence{0};
  *temporary = path + ".pfio-tmp-" + std::to_string(getpid()) + "-" +
               std::to_string(sequence.fetch_add(1, std::memory_order_relaxed));
  *fd = open(temporary->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (*fd < 0) {
    return Status::Io(std::string(what) + " = " + Quoted(path) + ": its temporary file " +
                      Quoted(*temporary) + " cannot be created: " + std::strerror(errno) +
                      "; nothing is written");
  }
  return Status::Ok();
}

Status WriteOutputFile(const std::string &path, const OutputKind &kind, std::string_view content,
                       const std::string &data_path, const char *what) {
  if (content.substr(0, kind.signature.size()) != kind.signature) {
    return Status::Invalid(std::string(what) + " = " + Quoted(path) + ": the " + kind.name +
                           " to write does not begin with its signature; nothing is written");
  }
  const Status target = CheckOutputTarget(path, kind, data_path, what);
  if (!target.ok()) return target;
  std::string temporary;
  int fd = -1;
  const Status created = CreateOutputTemporary(path, what, &temporary, &fd);
  if (!created.ok()) return created;
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const int write_errno = done == content.size() ? 0 : (errno != 0 ? errno : EIO);
  const bool closed = close(fd) == 0;
  if (write_errno != 0 || !closed) {
    const Status failed =
        Status::Io(std::string(what) + " = " + Quoted(path) + ": writing " + Quoted(temporary) +
                   " failed: " + std::strerror(write_errno != 0 ? write_errno : errno) +
                   "; nothing is written");
    unlink(temporary.c_str());
    return failed;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const Status failed =
        Status::Io(std::string(what) + " = " + Quoted(path) + ": renaming " + Quoted(temporary) +
                   " to it failed: " + std::strerror(errno) + "; nothing is written");
    unlink(temporary.c_str());
    return failed;
  }
  return Status::Ok();
}

}  // namespace pfio
