// Willneed: posix_fadvise(POSIX_FADV_WILLNEED) of a range of any length, in pieces the kernel
// reads whole.
//
// Contract. Linux reads at most max(io_pages, ra_pages) of the backing device per WILLNEED and
// drops the rest of a longer range without a word (mm/readahead.c, force_page_cache_ra).
// Measured on this project's VM: 64 MiB advised on a file whose device has read_ahead_kb 8192,
// 8 MiB resident a second later, on the disk and on the FUSE test bed alike.
// WillneedLimit(fd) is that cap for fd's file: the larger of read_ahead_kb and max_sectors_kb
// of its device (/sys/class/bdi/MAJ:MIN, else the block device's queue, a partition's disk's
// for a partition), at least kMinWillneedLimit, which is also the answer when neither can be read;
// read once per device and process (again in a forked child), thread-safe.
// Willneed(fd, offset, length, limit) advises [offset, offset + length) in pieces of at most
// `limit` bytes (kMinWillneedLimit when smaller: 0 for not known), first to last, and returns 0 or
// the first error posix_fadvise returned (the pieces after it are not advised). Neither ever reads
// the file.
#pragma once

#include <cstdint>

namespace pfio {

inline constexpr uint64_t kMinWillneedLimit = 128 << 10;  // the kernel's default readahead

uint64_t WillneedLimit(int fd);
int Willneed(int fd, uint64_t offset, uint64_t length, uint64_t limit);

}  // namespace pfio
