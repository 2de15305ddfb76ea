// The C API's error convention, shared by its files: every call returns a pfio_status and leaves
// one line in the calling thread's last error (pfio_last_error), and no C++ exception crosses the
// C boundary (Guarded).
#pragma once

#include <new>
#include <stdexcept>
#include <string>

#include "common/status.h"
#include "pfio/pfio.h"

namespace pfio::api {

// The calling thread's last error message (pfio_last_error returns it).
std::string &LastError();

inline pfio_status Report(const Status &s) {
  if (!s.ok()) LastError() = s.message();
  return s.code();
}

inline pfio_status NullArgument(const char *call, const char *what) {
  LastError() = Format("%s: %s = NULL: expected a pointer", call, what);
  return PFIO_EINVAL;
}

// Runs `body` and turns any exception into a status: no C++ exception crosses the C boundary.
template <class Body>
pfio_status Guarded(const char *call, Body &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    LastError() = std::string(call) + ": out of memory for pfio's own bookkeeping";
    return PFIO_ENOMEM;
  } catch (const std::length_error &) {
    LastError() = std::string(call) + ": a count too large to hold in memory";
    return PFIO_ENOMEM;
  } catch (const std::exception &x) {
    LastError() = std::string(call) + ": internal error: " + x.what();
    return PFIO_EIO;
  }
}

}  // namespace pfio::api
