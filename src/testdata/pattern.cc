#include "testdata/pattern.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace pfio {

void FillPattern(void *buf, uint64_t offset, uint64_t length, uint64_t seed) {
  auto *out = static_cast<unsigned char *>(buf);
  uint64_t pos = offset;
  const uint64_t end = offset + length;
  while (pos < end) {
    const uint64_t word_start = pos & ~7ull;
    const uint64_t w = PatternWord(word_start, seed);
    if (pos == word_start && end - pos >= 8) {
      std::memcpy(out + (pos - offset), &w, 8);
      pos += 8;
      continue;
    }
    const unsigned char *bytes = reinterpret_cast<const unsigned char *>(&w);
    out[pos - offset] = bytes[pos - word_start];
    ++pos;
  }
}

uint64_t FirstMismatch(const void *buf, uint64_t offset, uint64_t length, uint64_t seed) {
  const auto *in = static_cast<const unsigned char *>(buf);
  uint64_t pos = offset;
  const uint64_t end = offset + length;
  while (pos < end) {
    const uint64_t word_start = pos & ~7ull;
    const uint64_t w = PatternWord(word_start, seed);
    if (pos == word_start && end - pos >= 8) {
      uint64_t got;
      std::memcpy(&got, in + (pos - offset), 8);
      if (got != w) break;
      pos += 8;
      continue;
    }
    if (in[pos - offset] != reinterpret_cast<const unsigned char *>(&w)[pos - word_start]) {
      return pos;
    }
    ++pos;
  }
  if (pos >= end) return UINT64_MAX;
  // Narrow the mismatching word down to its first bad byte.
  for (uint64_t b = pos; b < pos + 8; ++b) {
    uint64_t w = PatternWord(pos, seed);
    if (in[b - offset] != reinterpret_cast<const unsigned char *>(&w)[b - pos]) return b;
  }
  return pos;
}

Status MakePatternFile(const std::string &path, uint64_t size, uint64_t seed, bool progress,
                       bool *reused) {
  *reused = false;
  int fd = open(path.c_str(), O_RDONLY);
  if (fd >= 0) {
    off_t have = lseek(fd, 0, SEEK_END);
    bool same = have == static_cast<off_t>(size);
    uint64_t w = 0;
    if (same && size >= 8) same = pread(fd, &w, 8, 0) == 8 && w == PatternWord(0, seed);
    if (same && size >= 16) {
      uint64_t last = (size - 8) & ~7ull;
      same = pread(fd, &w, 8, static_cast<off_t>(last)) == 8 && w == PatternWord(last, seed);
    }
    close(fd);
    if (same) {
      *reused = true;
      return Status::Ok();
    }
  }
  std::string tmp = path + ".tmp";
  fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    return Status::Io(Format("creating %s failed: %s", tmp.c_str(), std::strerror(errno)));
  }
  const uint64_t chunk = 8 << 20;
  std::vector<char> buf(chunk);
  for (uint64_t pos = 0; pos < size; pos += chunk) {
    const uint64_t n = std::min(chunk, size - pos);
    FillPattern(buf.data(), pos, n, seed);
    if (write(fd, buf.data(), n) != static_cast<ssize_t>(n)) {
      int e = errno;
      close(fd);
      unlink(tmp.c_str());
      return Status::Io(Format("writing %s at %llu failed: %s (disk full?)", tmp.c_str(),
                               (unsigned long long)pos, std::strerror(e)));
    }
    if (progress && (pos / chunk) % 16 == 0) {
      std::fprintf(stderr, "\rmaking %s: %3.0f %%", path.c_str(), 100.0 * (pos + n) / size);
    }
  }
  if (progress) std::fprintf(stderr, "\rmaking %s: 100 %%\n", path.c_str());
  fsync(fd);
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    return Status::Io(
        Format("renaming %s to %s failed: %s", tmp.c_str(), path.c_str(), std::strerror(errno)));
  }
  return Status::Ok();
}

Status EvictFromPageCache(const std::string &path) {
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0)
    return Status::Io(Format("opening %s failed: %s", path.c_str(), std::strerror(errno)));
  fdatasync(fd);
  int r = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  close(fd);
  if (r != 0) {
    return Status::Io(
        Format("posix_fadvise(DONTNEED) on %s failed: %s", path.c_str(), std::strerror(r)));
  }
  return Status::Ok();
}

}  // namespace pfio
