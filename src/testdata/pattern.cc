#include "testdata/pattern.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
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

namespace {

// WordsMatch below, eight words at a time in AVX-512 registers (64-bit multiplies), on CPUs that
// have them: the check of every byte a benchmark reads then costs the methods less CPU. The lanes
// compute PatternWord's splitmix64 written out again (a vector cannot be passed to PatternWord
// outside AVX-512 code: clang refuses, GCC warns). Were the two to differ, every block would
// fall through to the word-by-word check below: slower (pfio-bench's verify_us_per_read shows
// it; docs/measurements.md, "Others"), never a wrong verdict.
#if defined(__x86_64__) && defined(__GNUC__)
#define PFIO_PATTERN_WIDE 1
using Lanes = uint64_t __attribute__((vector_size(64)));

__attribute__((target("avx512f,avx512dq"))) bool WideWordsMatch(const unsigned char *in,
                                                                uint64_t offset, uint64_t words,
                                                                uint64_t seed, uint64_t *done) {
  const Lanes step = {0, 8, 16, 24, 32, 40, 48, 56};
  const uint64_t key = seed * 0x9E3779B97F4A7C15ull;
  uint64_t i = 0;
  for (; i + 8 <= words; i += 8) {
    Lanes z = (offset + 8 * i + step) ^ key;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    Lanes got;
    std::memcpy(&got, in + 8 * i, sizeof got);
    const Lanes diff = got ^ z;
    uint64_t any = 0;
    for (int k = 0; k < 8; ++k) any |= diff[k];
    if (any != 0) return false;
  }
  *done = i;
  return true;
}

bool HasWideLanes() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  return has;
}
#endif

// Whether the whole words [offset, offset + 8 * words) all match, checked a group of words at a
// time with no branch per word, so that the words' independent hash computations overlap.
bool WordsMatch(const unsigned char *in, uint64_t offset, uint64_t words, uint64_t seed) {
  constexpr uint64_t kGroup = 8;
  uint64_t i = 0;
#ifdef PFIO_PATTERN_WIDE
  if (HasWideLanes() && !WideWordsMatch(in, offset, words, seed, &i)) return false;
#endif
  for (; i + kGroup <= words; i += kGroup) {
    uint64_t diff = 0;
    for (uint64_t k = 0; k < kGroup; ++k) {
      uint64_t got;
      std::memcpy(&got, in + 8 * (i + k), 8);
      diff |= got ^ PatternWord(offset + 8 * (i + k), seed);
    }
    if (diff != 0) return false;
  }
  for (; i < words; ++i) {
    uint64_t got;
    std::memcpy(&got, in + 8 * i, 8);
    if (got != PatternWord(offset + 8 * i, seed)) return false;
  }
  return true;
}

}  // namespace

uint64_t FirstMismatch(const void *buf, uint64_t offset, uint64_t length, uint64_t seed) {
  const auto *in = static_cast<const unsigned char *>(buf);
  // The common case (whole words, all matching) on the fast path; anything else, and the search
  // for where a mismatch starts, byte by byte below.
  if ((offset & 7) == 0 && (length & 7) == 0 && WordsMatch(in, offset, length / 8, seed)) {
    return UINT64_MAX;
  }
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
  struct stat sb;
  if (stat(path.c_str(), &sb) == 0) {
    if (!S_ISREG(sb.st_mode))
      return Status::Invalid(
          Format("%s exists and is not a regular file: not overwriting it "
                 "with a pattern file; give another path",
                 path.c_str()));
    int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0)
      return Status::Io(
          Format("%s exists but cannot be read: %s", path.c_str(), std::strerror(errno)));
    const uint64_t have = static_cast<uint64_t>(sb.st_size);
    uint64_t w0 = 0, w1 = 0, w = 0;
    // A pattern file of this seed starts with these two words whatever its size.
    const bool ours = have >= 16 && pread(fd, &w0, 8, 0) == 8 && pread(fd, &w1, 8, 8) == 8 &&
                      w0 == PatternWord(0, seed) && w1 == PatternWord(8, seed);
    bool same = ours && have == size;
    if (same) {
      const uint64_t last = (size - 8) & ~7ull;
      same = pread(fd, &w, 8, static_cast<off_t>(last)) == 8 && w == PatternWord(last, seed);
    }
    close(fd);
    if (same) {
      *reused = true;
      return Status::Ok();
    }
    if (!ours)
      return Status::Invalid(Format(
          "%s exists and is not a pattern file of seed %llu (%llu bytes, first words differ): "
          "not overwriting it; remove it or give another path",
          path.c_str(), (unsigned long long)seed, (unsigned long long)have));
    // Our own pattern file of another size (or cut short): made again below.
  }
  // A temporary name of our own next to the target, renamed over it when complete.
  std::vector<char> name(path.begin(), path.end());
  const char suffix[] = ".tmp.XXXXXX";
  name.insert(name.end(), suffix, suffix + sizeof suffix);
  int fd = mkstemp(name.data());
  const std::string tmp(name.data());
  if (fd < 0) {
    return Status::Io(Format("creating %s failed: %s", tmp.c_str(), std::strerror(errno)));
  }
  fchmod(fd, 0644);
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
    const int e = errno;  // before unlink can change it
    unlink(tmp.c_str());
    return Status::Io(
        Format("renaming %s to %s failed: %s", tmp.c_str(), path.c_str(), std::strerror(e)));
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
