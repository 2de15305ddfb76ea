// Status: the result of an engine call. OK, or a pfio_status code plus one line that names the
// thing that went wrong, its value and what was expected. Cheap to copy when OK.
#pragma once

#include <string>
#include <utility>

#include "pfio/pfio.h"

namespace pfio {

class Status {
 public:
  Status() = default;
  Status(pfio_status code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status Invalid(std::string m) { return Status(PFIO_EINVAL, std::move(m)); }
  static Status Range(std::string m) { return Status(PFIO_ERANGE, std::move(m)); }
  static Status Io(std::string m) { return Status(PFIO_EIO, std::move(m)); }
  static Status NoMem(std::string m) { return Status(PFIO_ENOMEM, std::move(m)); }
  static Status TimedOut(std::string m) { return Status(PFIO_ETIMEDOUT, std::move(m)); }
  static Status BadFile(std::string m) { return Status(PFIO_EBADF, std::move(m)); }
  static Status State(std::string m) { return Status(PFIO_ESTATE, std::move(m)); }

  bool ok() const { return code_ == PFIO_OK; }
  pfio_status code() const { return code_; }
  const std::string &message() const { return message_; }

 private:
  pfio_status code_ = PFIO_OK;
  std::string message_;
};

// Formats like printf into a std::string.
std::string Format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// "4096 (4 KiB)"-style rendering of a byte count for messages.
std::string Bytes(unsigned long long n);

// A value the user gave, as an error message shows it: control and non-ASCII bytes escaped
// (\n, \xNN), and at most 64 characters of it followed by "... (N bytes)", so a message stays
// one readable line whatever was passed in.
std::string Shown(const std::string &text);

}  // namespace pfio
