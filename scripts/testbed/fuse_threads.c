/* fuse_threads: an LD_PRELOAD for nbdfuse that lifts libfuse's cap on worker threads.
 *
 * nbdfuse (libnbd 1.14) runs libfuse 3.14's multi-threaded loop through the 3.2-era entry
 * fuse_loop_mt_32, whose configuration has no thread cap, so libfuse keeps its default of at most
 * 10 worker threads. nbdfuse blocks one worker per request, so at most 10 requests reach the NBD
 * server at once, whatever its connections allow. This object defines fuse_loop_mt_32 and runs
 * the same loop through the 3.12 entry (fuse_loop_mt) with max_threads taken from
 * PFIO_TESTBED_FUSE_THREADS (default 128, accepted 1..4096). The clone_fd and idle-thread settings
 * nbdfuse passed are kept. A value that is not a number in range is reported on stderr and the
 * default used.
 */
#define FUSE_USE_VERSION 312
#include <fuse3/fuse.h>
#include <stdio.h>
#include <stdlib.h>

int fuse_loop_mt_32(struct fuse *f, struct fuse_loop_config_v1 *v1);

static unsigned threads_wanted(void) {
  const char *s = getenv("PFIO_TESTBED_FUSE_THREADS");
  char *end;
  unsigned long v;
  if (s == NULL || *s == '\0') return 128;
  v = strtoul(s, &end, 10);
  if (*end != '\0' || v < 1 || v > 4096) {
    fprintf(stderr,
            "fuse_threads: PFIO_TESTBED_FUSE_THREADS=%s: expected a thread count from 1 to 4096; "
            "using 128\n",
            s);
    return 128;
  }
  return (unsigned)v;
}

int fuse_loop_mt_32(struct fuse *f, struct fuse_loop_config_v1 *v1) {
  struct fuse_loop_config *config = fuse_loop_cfg_create();
  int rc;
  if (config == NULL) return -1;
  if (v1 != NULL) fuse_loop_cfg_convert(config, v1);
  fuse_loop_cfg_set_max_threads(config, threads_wanted());
  rc = fuse_loop_mt(f, config); /* the 3.12 loop, which honours max_threads */
  fuse_loop_cfg_destroy(config);
  return rc;
}
