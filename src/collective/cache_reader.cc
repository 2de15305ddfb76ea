#include "collective/cache_reader.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>

#include "common/fs_type.h"

namespace pfio::collective {

CacheReader::CacheReader(int fd)
    : fd_(fd), join_gap_(OnRemoteStorage(fd) ? kRemoteJoinGap : kJoinGap) {
  pfio_advisor *advisor = nullptr;
  if (pfio_advisor_create(fd, &advisor) == PFIO_OK) advisor_.reset(advisor);
}

FileRanges CacheReader::Joined(FileRanges ranges, uint64_t max_span, uint64_t gap) {
  auto by_offset = [](const FileRange &x, const FileRange &y) { return x.offset < y.offset; };
  SortIfUnsorted(ranges.begin(), ranges.end(), by_offset);  // often sorted (MergedByOffset)
  FileRanges joined;
  for (const FileRange &r : ranges) {
    if (r.length == 0) continue;
    if (!joined.empty() && r.offset <= joined.back().end() + gap &&
        r.end() - joined.back().offset <= max_span) {
      joined.back().length = std::max(joined.back().end(), r.end()) - joined.back().offset;
      continue;
    }
    joined.push_back(r);
  }
  return joined;
}

FileRanges CacheReader::DenseRuns(FileRanges ranges) {
  FileRanges out;
  for (const FileRange &r : Joined(std::move(ranges), UINT64_MAX, kDenseGap))
    if (r.length >= kDenseRun) out.push_back(r);
  return out;
}

FileRanges CacheReader::Without(const FileRanges &ranges, const FileRanges &minus) {
  FileRanges out;
  auto before = minus.begin();
  for (const FileRange &r : ranges) {
    uint64_t at = r.offset;
    while (before != minus.end() && before->end() <= at) ++before;
    for (auto it = before; it != minus.end() && it->offset < r.end(); ++it) {
      if (it->offset > at) out.push_back({at, it->offset - at});
      at = std::max(at, it->end());
    }
    if (at < r.end()) out.push_back({at, r.end() - at});
  }
  return out;
}

bool CacheReader::Inside(const FileRanges &sorted, uint64_t offset, uint64_t length) {
  auto it = std::upper_bound(sorted.begin(), sorted.end(), offset,
                             [](uint64_t off, const FileRange &a) { return off < a.offset; });
  if (it == sorted.begin()) return false;
  --it;
  return it->offset <= offset && offset + length <= it->end();
}

uint64_t CacheReader::Advise(const std::vector<pfio_extent> &extents, const FileRanges &dense) {
  FileRanges sparse;
  sparse.reserve(extents.size());
  for (const pfio_extent &e : extents)
    if (!Inside(dense, e.offset, e.length)) sparse.push_back({e.offset, e.length});
  FileRanges joined = Joined(std::move(sparse), kJoinSpan, join_gap_);
  // Advise what the previous call did not.
  uint64_t advised = 0;
  for (const FileRange &r : Without(joined, advised_)) {
    advised += r.length;
    WillneedRange(r.offset, r.length);
  }
  advised_ = std::move(joined);
  return advised;
}

uint64_t CacheReader::AdviseNow(const std::vector<pfio_extent> &extents) {
  FileRanges ranges;
  ranges.reserve(extents.size());
  for (const pfio_extent &e : extents) ranges.push_back({e.offset, e.length});
  uint64_t advised = 0;
  for (const FileRange &r : Joined(std::move(ranges), kJoinSpan, join_gap_)) {
    WillneedRange(r.offset, r.length);
    advised += r.length;
  }
  return advised;
}

void CacheReader::WillneedRange(uint64_t offset, uint64_t length) {
  ++advise_calls_;
  // A refused advice (EINVAL on a file system without readahead) leaves the reads to Read.
  if (advisor_)
    pfio_advisor_willneed(advisor_.get(), offset, length);
  else
    (void)posix_fadvise(fd_, static_cast<off_t>(offset), static_cast<off_t>(length),
                        POSIX_FADV_WILLNEED);
}

std::string CacheReader::Read(std::vector<pfio_read_piece> pieces) {
  auto by_offset = [](const pfio_read_piece &x, const pfio_read_piece &y) {
    return x.offset < y.offset;
  };
  SortIfUnsorted(pieces.begin(), pieces.end(), by_offset);  // usually sorted (ReadRound)
  std::vector<iovec> iov;
  size_t i = 0;
  while (i < pieces.size()) {
    // A run of pieces adjacent in the file: one preadv.
    const uint64_t start = pieces[i].offset;
    uint64_t end = start;
    iov.clear();
    for (; i < pieces.size() && pieces[i].offset == end; ++i) {
      if (pieces[i].length == 0) continue;
      // A piece that goes on where the previous one's memory ends extends its iovec (a rank's
      // own contiguous request then is one read however many rows its view cut it into).
      if (!iov.empty() &&
          static_cast<uint8_t *>(iov.back().iov_base) + iov.back().iov_len == pieces[i].buf) {
        iov.back().iov_len += static_cast<size_t>(pieces[i].length);
      } else if (iov.size() < IOV_MAX) {
        iov.push_back({pieces[i].buf, static_cast<size_t>(pieces[i].length)});
      } else {
        break;
      }
      end += pieces[i].length;
    }
    if (iov.empty()) {  // an empty piece that starts elsewhere
      if (i < pieces.size() && pieces[i].length == 0) ++i;
      continue;
    }
    uint64_t done = 0;
    size_t first = 0;
    while (done < end - start) {
      const ssize_t n = preadv(fd_, iov.data() + first, static_cast<int>(iov.size() - first),
                               static_cast<off_t>(start + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0)
        return "reading " + std::to_string(end - start - done) + " bytes at offset " +
               std::to_string(start + done) + " failed: " + std::strerror(errno) + " (errno " +
               std::to_string(errno) + ")";
      if (n == 0)
        return "short read: the file ends before offset " + std::to_string(start + done) +
               " (it shrank while it was read; " + std::to_string(end - start - done) +
               " bytes of the request missing)";
      done += static_cast<uint64_t>(n);
      // Skip the iovecs filled; trim a partly filled one.
      uint64_t left = static_cast<uint64_t>(n);
      while (left > 0 && left >= iov[first].iov_len) left -= iov[first++].iov_len;
      if (left > 0) {
        iov[first].iov_base = static_cast<uint8_t *>(iov[first].iov_base) + left;
        iov[first].iov_len -= left;
      }
    }
  }
  return "";
}

}  // namespace pfio::collective
