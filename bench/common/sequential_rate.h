/* The device's sequential read rate of one file, from one process: the yardstick the MPI and
 * HDF5 benchmarks measure their methods against.
 *
 * Contract: sequential_read(path, block, depth, check, arg, &r) opens `path` with O_DIRECT and
 * reads it from start to end in `block`-byte reads (a multiple of 4096), `depth` of them in flight
 * (one thread per read in flight, each taking the next block in file order; 1 <= depth <= 16).
 * Each block read is handed to `check` (may be NULL) with its file offset; a check that returns
 * nonzero stops the read. Returns 0 and fills `r` (bytes read, seconds from the first read to the
 * last, open and buffer allocation excluded) or -1 with `r->error` naming the file and what failed
 * (open, allocation, a read error, a short read before the end, the check). The caller evicts the
 * file from the page cache first if it wants the device and not the cache.
 *
 * Why depth and huge pages: on the test machine's virtio disk one 8 MiB read at a time ran at
 * 1,000 or at 1,900 MiB/s from one run to the next, two or more in flight at 1,900-2,100 (fio,
 * same file); and into a buffer on 2 MiB transparent huge pages (madvise) instead of 4 KiB pages
 * the same reads ran at 2,250-2,830 MiB/s against 1,170-1,400 (the disk takes at most 254
 * segments per request: 4 KiB pages cut an 8 MiB read into requests of 1 MiB at most). A limit
 * measured without them can be half the device, and every ratio to it twice too kind.
 */
#ifndef PFIO_EXAMPLES_SEQUENTIAL_RATE_H
#define PFIO_EXAMPLES_SEQUENTIAL_RATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*sequential_check_fn)(const unsigned char *buf, size_t n, uint64_t offset, void *arg);

typedef struct {
  uint64_t bytes;
  double seconds;
  char error[256];
} sequential_result;

int sequential_read(const char *path, size_t block, int depth, sequential_check_fn check, void *arg,
                    sequential_result *r);

#ifdef __cplusplus
}
#endif

#endif
