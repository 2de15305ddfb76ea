/* pfio-mpibench: The self-verifying file: made or checked, evicted from the page cache; peak RSS.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "mpibench.h"

/* ---- the file ---------------------------------------------------------------------------- */

/* Every rank writes its slice of the pattern. A file already there is reused when it is one of
 * ours (its size, first and last words right) and refused otherwise: the benchmark never
 * overwrites or deletes a file it did not make. Returns whether this run made the file. */
int make_file(const Options *o) {
  int ok = 0, fd;
  if (rank == 0) {
    struct stat sb;
    int exists = lstat(o->file, &sb) == 0;
    if (exists && (!S_ISREG(sb.st_mode) || (unsigned long long)sb.st_size != o->size)) {
      fprintf(stderr,
              "pfio-mpibench: --file %s exists and is not a pfio-mpibench file of %llu "
              "bytes (%s, %lld bytes): not overwriting it; give another --file or "
              "--size\n",
              o->file, o->size, S_ISREG(sb.st_mode) ? "regular file" : "not a regular file",
              (long long)sb.st_size);
      ok = -1;
    }
    if (exists && ok == 0) {
      uint64_t first = 0, last = 0;
      fd = open(o->file, O_RDONLY);
      if (fd >= 0 && pread(fd, &first, 8, 0) == 8 &&
          pread(fd, &last, 8, (off_t)((o->size - 8) & ~7ULL)) == 8)
        ok = first == pattern_word(0, SEED) && last == pattern_word((o->size - 8) & ~7ULL, SEED);
      if (fd >= 0) close(fd);
      if (!ok) {
        fprintf(stderr,
                "pfio-mpibench: --file %s exists but does not hold pfio-mpibench's "
                "pattern: not overwriting it\n",
                o->file);
        ok = -1;
      }
    }
    if (ok == 0) {
      fd = open(o->file, O_WRONLY | O_CREAT | O_EXCL, 0644);
      if (fd < 0 || ftruncate(fd, (off_t)o->size) != 0)
        die("cannot create the benchmark file ", o->file);
      close(fd);
      printf("pfio-mpibench: writing %s (%.2f GiB, self-verifying) with %d ranks\n", o->file,
             o->size / 1073741824.0, nprocs);
      fflush(stdout);
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (ok < 0) { /* refused: every rank leaves cleanly, the message already printed */
    MPI_Finalize();
    exit(2);
  }
  if (!ok) {
    unsigned long long slice = (o->size / nprocs + (8 << 20) - 1) & ~((8ULL << 20) - 1);
    unsigned long long lo = slice * rank, hi = lo + slice, at;
    unsigned char *buf = malloc(8 << 20);
    if (hi > o->size) hi = o->size;
    fd = open(o->file, O_WRONLY);
    for (at = lo; fd >= 0 && at < hi; at += 8 << 20) {
      size_t n = hi - at < (8ULL << 20) ? hi - at : (8ULL << 20);
      pattern_fill(buf, at, n, SEED);
      if (pwrite(fd, buf, n, (off_t)at) != (ssize_t)n) die("write failed: ", o->file);
    }
    if (fd >= 0) {
      fsync(fd);
      close(fd);
    }
    free(buf);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return !ok;
}

/* small-files: file k of the directory beside --file. */
void small_file_path(const Options *o, int k, char *path, size_t size) {
  snprintf(path, size, "%s.small-%lld/%04d", o->file, o->small_file, k);
}

/* small-files: file k holds the pattern of bytes [k x small_file, (k+1) x small_file), so the
 * benchmark checks its bytes as it checks the one file's. Files already there are kept when
 * their size and first and last words are right; each rank writes every nprocs-th file. */
void make_small_files(const Options *o, const Workload *w) {
  char dir[4200], path[4200];
  unsigned char *buf = malloc((size_t)o->small_file);
  int k, wrote = 0;
  snprintf(dir, sizeof dir, "%s.small-%lld", o->file, o->small_file);
  if (rank == 0 && mkdir(dir, 0755) != 0 && errno != EEXIST)
    die("cannot make the directory of the small files: ", dir);
  MPI_Barrier(MPI_COMM_WORLD);
  for (k = rank; k < w->files; k += nprocs) {
    const uint64_t base = (uint64_t)k * (uint64_t)o->small_file;
    const uint64_t last = base + (uint64_t)o->small_file - 8;
    uint64_t first_word = 0, last_word = 0;
    int fd;
    small_file_path(o, k, path, sizeof path);
    fd = open(path, O_RDONLY);
    if (fd >= 0 && pread(fd, &first_word, 8, 0) == 8 &&
        pread(fd, &last_word, 8, (off_t)(last - base)) == 8 &&
        first_word == pattern_word(base, SEED) && last_word == pattern_word(last, SEED) &&
        lseek(fd, 0, SEEK_END) == (off_t)o->small_file) {
      close(fd);
      continue;
    }
    if (fd >= 0) close(fd);
    pattern_fill(buf, base, (size_t)o->small_file, SEED);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || pwrite(fd, buf, (size_t)o->small_file, 0) != (ssize_t)o->small_file)
      die("cannot write the small file ", path);
    fsync(fd);
    close(fd);
    ++wrote;
  }
  free(buf);
  MPI_Allreduce(MPI_IN_PLACE, &wrote, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && wrote > 0)
    printf("pfio-mpibench: wrote %d small files of %lld bytes in %s\n", wrote, o->small_file, dir);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void drop_from_page_cache(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd >= 0) {
    if (rank == 0) fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
}

/* The workload's files leave the page cache (w NULL: the one file). First everything written so
 * far reaches the disk (sync): the summary files the runs before wrote on this disk would
 * otherwise be written back, journal commit and all, inside the next run, which they slowed. */
void evict(const Options *o, const Workload *w) {
  char path[4200];
  int k;
  if (rank == 0) sync();
  drop_from_page_cache(o->file);
  for (k = 0; w != NULL && k < w->files; ++k) {
    small_file_path(o, k, path, sizeof path);
    drop_from_page_cache(path);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0 && geteuid() == 0) {
    FILE *f = fopen("/proc/sys/vm/drop_caches", "w");
    if (f != NULL) {
      fputs("3\n", f);
      fclose(f);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- peak RSS ---------------------------------------------------------------------------- */

void reset_peak_rss(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (f != NULL) {
    fputs("5\n", f);
    fclose(f);
  }
}

long long peak_rss_kib(void) {
  char line[256];
  long long kib = -1;
  FILE *f = fopen("/proc/self/status", "r");
  while (f != NULL && fgets(line, sizeof line, f) != NULL)
    if (strncmp(line, "VmHWM:", 6) == 0) kib = atoll(line + 6);
  if (f != NULL) fclose(f);
  return kib;
}

/* ---- the node's CPUs ------------------------------------------------------------------- */

/* Jiffies of all this node's CPUs since boot: busy (user, nice, system, irq, softirq, steal)
 * and in all (busy + idle + iowait), from /proc/stat's first line; both 0 when unreadable. */
void node_cpu_ticks(long long *busy, long long *all) {
  long long v[8] = {0};
  FILE *f = fopen("/proc/stat", "r");
  *busy = *all = 0;
  if (f == NULL) return;
  if (fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4],
             &v[5], &v[6], &v[7]) == 8) {
    *busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    *all = *busy + v[3] + v[4];
  }
  fclose(f);
}

/* The share of the node's CPU time busy since node_cpu_ticks gave busy0 and all0; -1 when
 * /proc/stat could not be read or no tick passed. */
double node_busy_since(long long busy0, long long all0) {
  long long busy, all;
  node_cpu_ticks(&busy, &all);
  if (all0 <= 0 || all <= all0) return -1;
  return (double)(busy - busy0) / (double)(all - all0);
}
