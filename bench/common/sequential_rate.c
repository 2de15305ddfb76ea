/* sequential_read: see sequential_rate.h. One thread per read in flight, a shared cursor, each
 * reading into its own buffer on transparent huge pages. */
#define _GNU_SOURCE
#include "sequential_rate.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define HUGE_PAGE (2u << 20)

typedef struct {
  int fd;
  size_t block;
  sequential_check_fn check;
  void *arg;
  const char *path;
  pthread_mutex_t lock;
  uint64_t next;  /* the next block's offset to read (under lock) */
  uint64_t bytes; /* bytes read and checked (under lock) */
  int stop;       /* end of file or a failure (under lock) */
  char error[256];
} Shared;

static void fail(Shared *s, const char *what, int err) {
  pthread_mutex_lock(&s->lock);
  if (s->error[0] == '\0')
    snprintf(s->error, sizeof s->error, "%s: %s%s%s", s->path, what, err ? ": " : "",
             err ? strerror(err) : "");
  s->stop = 1;
  pthread_mutex_unlock(&s->lock);
}

static void *reader(void *p) {
  Shared *s = p;
  unsigned char *buf = NULL;
  if (posix_memalign((void **)&buf, HUGE_PAGE, s->block) != 0) {
    fail(s, "cannot allocate an aligned read buffer", ENOMEM);
    return NULL;
  }
  (void)madvise(buf, s->block, MADV_HUGEPAGE); /* advice: without it the read is slower only */
  for (;;) {
    uint64_t off;
    ssize_t n;
    pthread_mutex_lock(&s->lock);
    off = s->next;
    s->next += s->block;
    if (s->stop) off = UINT64_MAX;
    pthread_mutex_unlock(&s->lock);
    if (off == UINT64_MAX) break;
    n = pread(s->fd, buf, s->block, (off_t)off);
    if (n < 0) {
      fail(s, "read failed", errno);
      break;
    }
    if (n == 0) { /* past the end: the other readers stop at their next block */
      pthread_mutex_lock(&s->lock);
      s->stop = 1;
      pthread_mutex_unlock(&s->lock);
      break;
    }
    if (s->check != NULL && s->check(buf, (size_t)n, off, s->arg) != 0) {
      fail(s, "the bytes read are not the file's expected bytes", 0);
      break;
    }
    pthread_mutex_lock(&s->lock);
    s->bytes += (uint64_t)n;
    pthread_mutex_unlock(&s->lock);
    if ((size_t)n < s->block) { /* the last, partial block */
      pthread_mutex_lock(&s->lock);
      s->stop = 1;
      pthread_mutex_unlock(&s->lock);
      break;
    }
  }
  free(buf);
  return NULL;
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int sequential_read(const char *path, size_t block, int depth, sequential_check_fn check, void *arg,
                    sequential_result *r) {
  pthread_t threads[16];
  Shared s;
  int started = 0, i;
  off_t size;
  double t0;
  memset(r, 0, sizeof *r);
  if (block == 0 || block % 4096 != 0 || depth < 1 || depth > 16) {
    snprintf(r->error, sizeof r->error,
             "%s: sequential read of %zu-byte blocks at depth %d (expected a multiple of 4096 "
             "and a depth of 1 to 16)",
             path, block, depth);
    return -1;
  }
  memset(&s, 0, sizeof s);
  s.block = block;
  s.check = check;
  s.arg = arg;
  s.path = path;
  s.fd = open(path, O_RDONLY | O_DIRECT);
  if (s.fd < 0) {
    snprintf(r->error, sizeof r->error, "%s: open(O_DIRECT) failed: %s", path, strerror(errno));
    return -1;
  }
  size = lseek(s.fd, 0, SEEK_END);
  pthread_mutex_init(&s.lock, NULL);
  t0 = now_seconds();
  for (i = 0; i < depth; ++i) {
    if (pthread_create(&threads[i], NULL, reader, &s) != 0) {
      fail(&s, "cannot start a reader thread", errno);
      break;
    }
    ++started;
  }
  for (i = 0; i < started; ++i) pthread_join(threads[i], NULL);
  r->seconds = now_seconds() - t0;
  r->bytes = s.bytes;
  close(s.fd);
  pthread_mutex_destroy(&s.lock);
  if (s.error[0] == '\0' && size >= 0 && s.bytes != (uint64_t)size)
    snprintf(s.error, sizeof s.error, "%s: read %llu bytes of %lld (expected the whole file)", path,
             (unsigned long long)s.bytes, (long long)size);
  if (s.error[0] != '\0') {
    memcpy(r->error, s.error, sizeof r->error);
    return -1;
  }
  return 0;
}
