/* pfio-h5bench: HDF5 dataset read patterns through sec2 and through pfio's driver, in one
 * invocation.
 *
 * usage: pfio-h5bench [--file PATH] [--rows N] [--datasets LIST] [--patterns LIST]
 *                     [--methods LIST] [--rounds R] [--budget SIZE] [--points N]
 *                     [--json PATH] [--lookup] [--quiet] [--help]
 * Datasets (N x N unsigned 64-bit values each, N = --rows, 8192 by default: 512 MiB each):
 *   c8k     chunked, 32 x 32 chunks (8 KiB)
 *   c128k   chunked, 128 x 128 chunks (128 KiB)
 *   c1m     chunked, 128 x 1024 chunks (1 MiB)
 *   contig  contiguous
 * Patterns (each one H5Dread per selection):
 *   tiles          every chunk-sized tile (256 x 256 for contig) once, in a seeded random order
 *   columns        full-height strips one chunk wide (256 for contig), left to right
 *   rows           full-width strips one chunk tall (256 for contig), top to bottom
 *   random-points  --points small 4 x 4 hyperslabs at seeded random places (2048 by default)
 * Methods:
 *   sec2               HDF5's default driver
 *   prefetch           H5Pset_fapl_prefetch and nothing else changed (stride prediction)
 *   prefetch-declared  the same, and H5FD_prefetch_declare for every selection before reading
 *   sec2-cached        sec2 with the whole file in the page cache (read once before the run):
 *                      no driver can beat it; it is HDF5's own cost per read on this machine
 *   declared-engine    prefetch-declared with engine_min = 64 KiB: extents of 64 KiB and more
 *                      read by pfio's engine instead of the page cache
 * --lookup also times finding chunk addresses (H5Dget_chunk_info_by_coord against
 * H5FD_prefetch_declare) for 256, 1024 and 4096 random chunks of c8k.
 * Every run is a child process (so its peak RSS is its own): the file is evicted from the page
 * cache first (except for sec2-cached) (fdatasync, POSIX_FADV_DONTNEED, and as root
 * /proc/sys/vm/drop_caches), every value read is checked (element i of a dataset holds seed << 40 |
 * i), and `elapsed` runs from H5Fopen to the last value checked (checking stands for the
 * application's computing, which a prefetcher overlaps). Methods alternate within each round,
 * each round starting with the next method.
 * Prints progress, then a table of medians; --json writes one line per run. The file is made once
 * and kept; a --file that exists and is not a pfio-h5bench file of this size is refused, never
 * overwritten.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/sequential_rate.h"
#include "H5FDprefetch.h"

#define MAX_RUNS 1024
#define MARK "pfio-h5bench"

typedef struct {
  const char *name;
  hsize_t chunk_rows, chunk_cols; /* 0: contiguous */
  uint64_t seed;
} Dataset;

static const Dataset datasets[] = {
    {"c8k", 32, 32, 11}, {"c128k", 128, 128, 12}, {"c1m", 128, 1024, 13}, {"contig", 0, 0, 14}};
static const char *patterns[] = {"tiles", "columns", "rows", "random-points"};
static const char *methods[] = {"sec2", "prefetch", "prefetch-declared", "sec2-cached",
                                "declared-engine"};
#define NDATASETS 4
#define NPATTERNS 4
#define NMETHODS 5

typedef struct {
  const char *file, *datasets, *patterns, *methods, *json, *budget;
  hsize_t rows;
  int rounds, points, quiet, lookup;
} Options;

/* What one run measured (sent from the child through a pipe). */
typedef struct {
  double elapsed, declare_seconds;
  uint64_t bytes, bad, raw_reads, hits, misses, unplanned, bytes_read, predicted, memory_peak,
      lookups, sweep_advised;
  int ok;
  char error[256];
} Result;

typedef struct {
  int dataset, pattern, method, round;
  Result r;
  long peak_rss_kib;
} Run;

static void usage(FILE *out) {
  fputs(
      "usage: pfio-h5bench [--file PATH] [--rows N] [--datasets LIST] [--patterns LIST]\n"
      "                    [--methods LIST] [--rounds R] [--budget SIZE] [--points N]\n"
      "                    [--json PATH] [--lookup] [--quiet] [--help]\n"
      "  datasets: c8k c128k c1m contig (N x N uint64, chunks 8 KiB, 128 KiB, 1 MiB, none)\n"
      "  patterns: tiles columns rows random-points\n"
      "  methods:  sec2 prefetch prefetch-declared sec2-cached declared-engine\n"
      "  defaults: --file pfio-h5bench.h5 --rows 8192 --rounds 1 --budget 256M --points 2048,\n"
      "            every dataset, pattern and method\n",
      out);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Whether `name` is in the comma-separated `list` (NULL: everything is). */
static int listed(const char *list, const char *name) {
  size_t n = strlen(name);
  const char *p = list;
  if (list == NULL) return 1;
  while ((p = strstr(p, name)) != NULL) {
    if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
    p += n;
  }
  return 0;
}

/* Every name in `list` is one of `known`; else prints which is not and returns 0. */
static int check_list(const char *what, const char *list, const char *const *known, int n) {
  char copy[256], *tok, *save = NULL;
  if (list == NULL) return 1;
  snprintf(copy, sizeof copy, "%s", list);
  for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int i, found = 0;
    for (i = 0; i < n; ++i) found |= strcmp(tok, known[i]) == 0;
    if (!found) {
      fprintf(stderr, "pfio-h5bench: --%s: '%s' is not one of", what, tok);
      for (i = 0; i < n; ++i) fprintf(stderr, " %s", known[i]);
      fputc('\n', stderr);
      return 0;
    }
  }
  return 1;
}

static uint64_t value_of(const Dataset *d, hsize_t row, hsize_t col, hsize_t cols) {
  return d->seed << 40 | (row * cols + col);
}

/* ---- the file ------------------------------------------------------------------------------ */

/* 1: the file is a complete pfio-h5bench file of `rows`; 0: it is ours but of another size or
 * unfinished; -1: it is not ours (or not HDF5). */
static int file_state(const char *path, hsize_t rows) {
  long long marked = -1;
  int state = -1;
  hid_t file, attr;
  H5E_BEGIN_TRY {
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    attr = file >= 0 ? H5Aopen(file, MARK, H5P_DEFAULT) : -1;
  }
  H5E_END_TRY;
  if (attr >= 0 && H5Aread(attr, H5T_NATIVE_LLONG, &marked) >= 0)
    state = marked == (long long)rows ? 1 : 0;
  if (attr >= 0) H5Aclose(attr);
  if (file >= 0) H5Fclose(file);
  return state;
}

static int make_file(const Options *o) {
  hsize_t dims[2] = {o->rows, o->rows}, band = 256, r, c;
  uint64_t *buf = malloc(band * o->rows * sizeof *buf);
  hid_t file = H5Fcreate(o->file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), space, attr;
  long long marked = (long long)o->rows;
  int i;
  if (file < 0 || buf == NULL) return -1;
  space = H5Screate_simple(2, dims, NULL);
  for (i = 0; i < NDATASETS; ++i) {
    const Dataset *d = &datasets[i];
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), dset, fs, ms;
    if (d->chunk_rows > 0) {
      hsize_t chunk[2] = {d->chunk_rows, d->chunk_cols};
      H5Pset_chunk(dcpl, 2, chunk);
    }
    dset = H5Dcreate2(file, d->name, H5T_NATIVE_UINT64, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dset < 0) return -1;
    for (r = 0; r < o->rows; r += band) {
      hsize_t start[2] = {r, 0}, count[2] = {band < o->rows - r ? band : o->rows - r, o->rows};
      for (hsize_t k = 0; k < count[0]; ++k)
        for (c = 0; c < o->rows; ++c) buf[k * o->rows + c] = value_of(d, r + k, c, o->rows);
      fs = H5Dget_space(dset);
      H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
      ms = H5Screate_simple(2, count, NULL);
      if (H5Dwrite(dset, H5T_NATIVE_UINT64, ms, fs, H5P_DEFAULT, buf) < 0) return -1;
      H5Sclose(ms);
      H5Sclose(fs);
    }
    if (!o->quiet) fprintf(stderr, "pfio-h5bench: wrote dataset %s\n", d->name);
    H5Dclose(dset);
    H5Pclose(dcpl);
  }
  H5Sclose(space);
  space = H5Screate(H5S_SCALAR);
  attr = H5Acreate2(file, MARK, H5T_NATIVE_LLONG, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attr, H5T_NATIVE_LLONG, &marked); /* last: a file without it is unfinished */
  H5Aclose(attr);
  H5Sclose(space);
  free(buf);
  return H5Fclose(file) < 0 ? -1 : 0;
}

static void evict(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd >= 0) {
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
  if (geteuid() == 0) {
    FILE *f = fopen("/proc/sys/vm/drop_caches", "w");
    if (f != NULL) {
      fputs("3\n", f);
      fclose(f);
    }
  }
}

/* Reads the whole file through the page cache, so that the next run finds every byte there. */
static void warm(const char *path) {
  static char buf[1 << 20];
  int fd = open(path, O_RDONLY);
  if (fd < 0) return;
  while (read(fd, buf, sizeof buf) > 0) {
  }
  close(fd);
}

/* ---- selections ---------------------------------------------------------------------------- */

typedef struct {
  hsize_t r0, c0, nr, nc;
} Slab;

/* The selections of pattern p on dataset d, in reading order; *n set. */
static Slab *pattern_slabs(const Options *o, const Dataset *d, int p, size_t *n) {
  hsize_t th = d->chunk_rows ? d->chunk_rows : 256, tw = d->chunk_cols ? d->chunk_cols : 256;
  hsize_t N = o->rows, r, c;
  size_t cap = (size_t)((N + th - 1) / th) * (size_t)((N + tw - 1) / tw) + (size_t)o->points + 1;
  Slab *s = malloc(cap * sizeof *s);
  uint64_t rng = 0x9e3779b97f4a7c15ULL ^ (d->seed * 31 + (uint64_t)p);
  *n = 0;
  if (s == NULL) return NULL;
#define NEXT() (rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17, rng)
  if (strcmp(patterns[p], "tiles") == 0) {
    for (r = 0; r < N; r += th)
      for (c = 0; c < N; c += tw)
        s[(*n)++] = (Slab){r, c, th < N - r ? th : N - r, tw < N - c ? tw : N - c};
    for (size_t i = *n; i > 1; --i) { /* Fisher-Yates */
      size_t j = NEXT() % i;
      Slab t = s[i - 1];
      s[i - 1] = s[j];
      s[j] = t;
    }
  } else if (strcmp(patterns[p], "columns") == 0) {
    for (c = 0; c < N; c += tw) s[(*n)++] = (Slab){0, c, N, tw < N - c ? tw : N - c};
  } else if (strcmp(patterns[p], "rows") == 0) {
    for (r = 0; r < N; r += th) s[(*n)++] = (Slab){r, 0, th < N - r ? th : N - r, N};
  } else {
    for (int i = 0; i < o->points; ++i)
      s[(*n)++] = (Slab){NEXT() % (N - 3), NEXT() % (N - 3), 4, 4};
  }
#undef NEXT
  return s;
}

static hid_t select_slab(hid_t dset, const Slab *s) {
  hid_t space = H5Dget_space(dset);
  hsize_t start[2] = {s->r0, s->c0}, count[2] = {s->nr, s->nc};
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
  return space;
}

/* ---- one run (in a child process) ------------------------------------------------------------ */

static void run_child(const Options *o, int di, int pi, int mi, Result *res) {
  const Dataset *d = &datasets[di];
  size_t n = 0, i, biggest = 0;
  Slab *slabs = pattern_slabs(o, d, pi, &n);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), file, dset;
  uint64_t *buf;
  double t0;
  memset(res, 0, sizeof *res);
  for (i = 0; i < n; ++i)
    if (slabs[i].nr * slabs[i].nc > biggest) biggest = (size_t)(slabs[i].nr * slabs[i].nc);
  buf = malloc(biggest * sizeof *buf);
  if (slabs == NULL || buf == NULL) {
    snprintf(res->error, sizeof res->error, "out of memory for %zu selections", n);
    return;
  }
  if (mi == 0 || mi == 3) {
    H5Pset_fapl_sec2(fapl);
  } else {
    H5FD_prefetch_config_t config;
    H5FD_prefetch_config_init(&config);
    if (mi == 4) config.engine_min = 64 << 10; /* extents of 64 KiB and more through pfio */
    if (H5FD_prefetch_config_set(&config, "budget", o->budget) < 0 ||
        H5Pset_fapl_prefetch(fapl, &config) < 0) {
      snprintf(res->error, sizeof res->error, "bad --budget %s", o->budget);
      return;
    }
  }
  t0 = now();
  file = H5Fopen(o->file, H5F_ACC_RDONLY, fapl);
  dset = file >= 0 ? H5Dopen2(file, d->name, H5P_DEFAULT) : -1;
  if (dset < 0) {
    snprintf(res->error, sizeof res->error, "cannot open dataset %s of %s", d->name, o->file);
    return;
  }
  if (mi == 2 || mi == 4) {
    for (i = 0; i < n; ++i) {
      hid_t space = select_slab(dset, &slabs[i]);
      if (H5FD_prefetch_declare(dset, space) < 0) {
        snprintf(res->error, sizeof res->error, "H5FD_prefetch_declare failed");
        return;
      }
      H5Sclose(space);
    }
    res->declare_seconds = now() - t0;
  }
  for (i = 0; i < n; ++i) {
    const Slab *s = &slabs[i];
    hsize_t count[2] = {s->nr, s->nc};
    hid_t fs = select_slab(dset, s), ms = H5Screate_simple(2, count, NULL);
    if (H5Dread(dset, H5T_NATIVE_UINT64, ms, fs, H5P_DEFAULT, buf) < 0) {
      snprintf(res->error, sizeof res->error, "H5Dread of selection %zu failed", i);
      return;
    }
    H5Sclose(ms);
    H5Sclose(fs);
    for (hsize_t r = 0; r < s->nr; ++r)
      for (hsize_t c = 0; c < s->nc; ++c)
        res->bad += buf[r * s->nc + c] != value_of(d, s->r0 + r, s->c0 + c, o->rows);
    res->bytes += s->nr * s->nc * sizeof *buf;
  }
  if (mi == 1 || mi == 2 || mi == 4) {
    H5FD_prefetch_stats_t st;
    if (H5FD_prefetch_get_stats(file, &st) >= 0) {
      res->raw_reads = st.raw_reads;
      res->hits = st.engine.hits + st.engine.passthrough_reads;
      res->misses = st.engine.misses;
      res->unplanned = st.unplanned_reads;
      res->lookups = st.chunk_lookups;
      res->sweep_advised = st.sweep_advised;
      res->bytes_read = st.engine.bytes_read;
      res->predicted = st.predicted_extents;
      res->memory_peak = st.engine.memory_peak;
    }
  }
  H5Dclose(dset);
  H5Fclose(file);
  res->elapsed = now() - t0;
  H5Pclose(fapl);
  free(buf);
  free(slabs);
  res->ok = res->bad == 0;
  if (res->bad > 0)
    snprintf(res->error, sizeof res->error, "%llu wrong values", (unsigned long long)res->bad);
}

/* Runs one measurement in a child; its result and peak RSS into *run. */
static void run_one(const Options *o, Run *run) {
  int fds[2];
  pid_t pid;
  struct rusage ru;
  int status = 0;
  memset(&run->r, 0, sizeof run->r);
  if (run->method == 3)
    warm(o->file);
  else
    evict(o->file);
  if (pipe(fds) < 0) {
    snprintf(run->r.error, sizeof run->r.error, "pipe: %s", strerror(errno));
    return;
  }
  pid = fork();
  if (pid == 0) {
    Result r;
    close(fds[0]);
    run_child(o, run->dataset, run->pattern, run->method, &r);
    if (write(fds[1], &r, sizeof r) != (ssize_t)sizeof r) _exit(2);
    _exit(0);
  }
  close(fds[1]);
  if (pid < 0 || read(fds[0], &run->r, sizeof run->r) != (ssize_t)sizeof run->r)
    snprintf(run->r.error, sizeof run->r.error, "the run's process failed");
  close(fds[0]);
  if (pid > 0 && wait4(pid, &status, 0, &ru) > 0) run->peak_rss_kib = ru.ru_maxrss;
}

/* The sequential read rate of the whole file from one reader: O_DIRECT, 8 MiB reads, SEQ_DEPTH in
 * flight (bench/common/sequential_rate.h says why not one); 0 and a message if it failed. */
#define SEQ_DEPTH 4
static double sequential_rate(const char *path) {
  sequential_result r;
  evict(path);
  if (sequential_read(path, 8 << 20, SEQ_DEPTH, NULL, NULL, &r) != 0) {
    fprintf(stderr, "pfio-h5bench: the sequential read (the device limit) failed: %s\n", r.error);
    return 0;
  }
  return r.seconds > 0 ? (double)r.bytes / (1 << 20) / r.seconds : 0;
}

/* ---- the cost of finding chunk addresses ------------------------------------------------------
 */

/* Finds the file address of `n` chunks of c8k picked at random, twice: with
 * H5Dget_chunk_info_by_coord (which in HDF5 1.10 walks the chunk index up to the chunk), and with
 * H5FD_prefetch_declare of each chunk's tile (an index search per chunk); us per chunk. */
static void lookup_cost(const Options *o, int n, double *by_coord_us, double *declare_us) {
  const Dataset *d = &datasets[0];
  hsize_t per_row = o->rows / d->chunk_cols;
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), file, dset;
  uint64_t rng = 0x2545F4914F6CDD1DULL;
  double t0;
  H5Pset_fapl_prefetch(fapl, NULL);
  file = H5Fopen(o->file, H5F_ACC_RDONLY, fapl);
  dset = H5Dopen2(file, d->name, H5P_DEFAULT);
  t0 = now();
  for (int i = 0; i < n; ++i) {
    hsize_t k = (rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17, rng) % (per_row * per_row);
    hsize_t offset[2] = {k / per_row * d->chunk_rows, k % per_row * d->chunk_cols}, size = 0;
    unsigned mask = 0;
    haddr_t addr = 0;
    H5Dget_chunk_info_by_coord(dset, offset, &mask, &addr, &size);
  }
  *by_coord_us = (now() - t0) * 1e6 / n;
  t0 = now();
  for (int i = 0; i < n; ++i) {
    hsize_t k = (rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17, rng) % (per_row * per_row);
    Slab s = {k / per_row * d->chunk_rows, k % per_row * d->chunk_cols, d->chunk_rows,
              d->chunk_cols};
    hid_t space = select_slab(dset, &s);
    H5FD_prefetch_declare(dset, space);
    H5Sclose(space);
  }
  *declare_us = (now() - t0) * 1e6 / n;
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
}

/* ---- report ---------------------------------------------------------------------------------- */

static int by_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median MiB/s of (dataset, pattern, method) over the rounds; 0 if none. */
static double median_rate(const Run *runs, int nruns, int di, int pi, int mi, long *rss) {
  double v[MAX_RUNS];
  int n = 0;
  *rss = 0;
  for (int i = 0; i < nruns; ++i) {
    const Run *r = &runs[i];
    if (r->dataset == di && r->pattern == pi && r->method == mi && r->r.ok) {
      v[n++] = (double)r->r.bytes / (1 << 20) / r->r.elapsed;
      if (r->peak_rss_kib > *rss) *rss = r->peak_rss_kib;
    }
  }
  if (n == 0) return 0;
  qsort(v, (size_t)n, sizeof *v, by_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void parse(int argc, char **argv, Options *o) {
  memset(o, 0, sizeof *o);
  o->file = "pfio-h5bench.h5";
  o->rows = 8192;
  o->rounds = 1;
  o->budget = "256M";
  o->points = 2048;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0) {
      usage(stdout);
      exit(0);
    } else if (strcmp(a, "--quiet") == 0) {
      o->quiet = 1;
      continue;
    } else if (strcmp(a, "--lookup") == 0) {
      o->lookup = 1;
      continue;
    }
    if (v == NULL) {
      fprintf(stderr, "pfio-h5bench: %s needs a value\n", a);
      usage(stderr);
      exit(2);
    }
    ++i;
    if (strcmp(a, "--file") == 0)
      o->file = v;
    else if (strcmp(a, "--rows") == 0)
      o->rows = strtoull(v, NULL, 10);
    else if (strcmp(a, "--datasets") == 0)
      o->datasets = v;
    else if (strcmp(a, "--patterns") == 0)
      o->patterns = v;
    else if (strcmp(a, "--methods") == 0)
      o->methods = v;
    else if (strcmp(a, "--rounds") == 0)
      o->rounds = atoi(v);
    else if (strcmp(a, "--budget") == 0)
      o->budget = v;
    else if (strcmp(a, "--points") == 0)
      o->points = atoi(v);
    else if (strcmp(a, "--json") == 0)
      o->json = v;
    else {
      fprintf(stderr, "pfio-h5bench: unknown option %s\n", a);
      usage(stderr);
      exit(2);
    }
  }
  if (o->rows < 1024 || o->rows > (1u << 20) || o->rows % 1024 != 0) {
    fprintf(stderr, "pfio-h5bench: --rows %llu: expected a multiple of 1024 in 1024 .. %u\n",
            (unsigned long long)o->rows, 1u << 20);
    exit(2);
  }
  if (o->rounds < 1 || o->rounds > 15) {
    fprintf(stderr, "pfio-h5bench: --rounds %d: expected 1 .. 15\n", o->rounds);
    exit(2);
  }
  if (o->points < 1 || o->points > 1000000) {
    fprintf(stderr, "pfio-h5bench: --points %d: expected 1 .. 1000000\n", o->points);
    exit(2);
  }
  const char *dnames[NDATASETS];
  for (int i = 0; i < NDATASETS; ++i) dnames[i] = datasets[i].name;
  if (!check_list("datasets", o->datasets, dnames, NDATASETS) ||
      !check_list("patterns", o->patterns, patterns, NPATTERNS) ||
      !check_list("methods", o->methods, methods, NMETHODS))
    exit(2);
}

int main(int argc, char **argv) {
  Options o;
  static Run runs[MAX_RUNS];
  int nruns = 0, failed = 0, total = 0, done = 0;
  FILE *json = NULL;
  double seq;
  parse(argc, argv, &o);
  int state = file_state(o.file, o.rows);
  if (state != 1) {
    if (state < 0 && access(o.file, F_OK) == 0) {
      fprintf(stderr,
              "pfio-h5bench: --file %s exists and is not a pfio-h5bench file: refusing to "
              "overwrite it (remove it, or name another file)\n",
              o.file);
      return 2;
    }
    if (!o.quiet)
      fprintf(stderr, "pfio-h5bench: making %s (%d datasets of %llu x %llu values)\n", o.file,
              NDATASETS, (unsigned long long)o.rows, (unsigned long long)o.rows);
    if (make_file(&o) < 0) {
      fprintf(stderr, "pfio-h5bench: could not write %s\n", o.file);
      return 1;
    }
  }
  if (o.json != NULL && (json = fopen(o.json, "w")) == NULL) {
    fprintf(stderr, "pfio-h5bench: cannot write --json %s: %s\n", o.json, strerror(errno));
    return 2;
  }
  for (int di = 0; di < NDATASETS; ++di)
    for (int pi = 0; pi < NPATTERNS; ++pi)
      for (int mi = 0; mi < NMETHODS; ++mi)
        total += listed(o.datasets, datasets[di].name) && listed(o.patterns, patterns[pi]) &&
                 listed(o.methods, methods[mi]);
  total *= o.rounds;
  for (int round = 0; round < o.rounds; ++round)
    for (int di = 0; di < NDATASETS; ++di)
      for (int pi = 0; pi < NPATTERNS; ++pi)
        for (int step = 0; step < NMETHODS && nruns < MAX_RUNS; ++step) {
          /* Each round starts with another method, so no method always runs first after the
           * eviction or right after the same neighbour. */
          const int mi = (step + round) % NMETHODS;
          Run *run = &runs[nruns];
          if (!listed(o.datasets, datasets[di].name) || !listed(o.patterns, patterns[pi]) ||
              !listed(o.methods, methods[mi]))
            continue;
          run->dataset = di;
          run->pattern = pi;
          run->method = mi;
          run->round = round;
          run_one(&o, run);
          ++nruns;
          ++done;
          if (!run->r.ok) {
            ++failed;
            fprintf(stderr, "pfio-h5bench: %s %s %s FAILED: %s\n", datasets[di].name, patterns[pi],
                    methods[mi], run->r.error);
          } else if (!o.quiet) {
            fprintf(stderr,
                    "[%d/%d] %-6s %-13s %-17s %8.1f MiB/s  %6.2f s  reads %llu "
                    "hits %llu misses %llu unplanned %llu\n",
                    done, total, datasets[di].name, patterns[pi], methods[mi],
                    (double)run->r.bytes / (1 << 20) / run->r.elapsed, run->r.elapsed,
                    (unsigned long long)run->r.raw_reads, (unsigned long long)run->r.hits,
                    (unsigned long long)run->r.misses, (unsigned long long)run->r.unplanned);
          }
          if (json != NULL)
            fprintf(json,
                    "{\"dataset\":\"%s\",\"pattern\":\"%s\",\"method\":\"%s\","
                    "\"round\":%d,\"rows\":%llu,\"ok\":%s,\"elapsed_s\":%.6f,"
                    "\"declare_s\":%.6f,\"bytes\":%llu,\"mib_s\":%.3f,"
                    "\"raw_reads\":%llu,\"hits\":%llu,\"misses\":%llu,\"unplanned\":%llu,"
                    "\"bytes_read\":%llu,\"predicted\":%llu,\"memory_peak\":%llu,"
                    "\"peak_rss_kib\":%ld,\"budget\":\"%s\",\"chunk_lookups\":%llu,"
                    "\"sweep_advised\":%llu}\n",
                    datasets[di].name, patterns[pi], methods[mi], round, (unsigned long long)o.rows,
                    run->r.ok ? "true" : "false", run->r.elapsed, run->r.declare_seconds,
                    (unsigned long long)run->r.bytes,
                    run->r.ok ? (double)run->r.bytes / (1 << 20) / run->r.elapsed : 0,
                    (unsigned long long)run->r.raw_reads, (unsigned long long)run->r.hits,
                    (unsigned long long)run->r.misses, (unsigned long long)run->r.unplanned,
                    (unsigned long long)run->r.bytes_read, (unsigned long long)run->r.predicted,
                    (unsigned long long)run->r.memory_peak, run->peak_rss_kib, o.budget,
                    (unsigned long long)run->r.lookups, (unsigned long long)run->r.sweep_advised);
        }
  if (o.lookup) {
    hsize_t chunks = (o.rows / 32) * (o.rows / 32);
    for (int n = 256; n <= 4096; n *= 4) {
      double by_coord = 0, declare = 0;
      lookup_cost(&o, n, &by_coord, &declare);
      printf(
          "chunk addresses of %d random chunks of c8k (%llu chunks): "
          "H5Dget_chunk_info_by_coord %.1f us/chunk, H5FD_prefetch_declare %.1f us/chunk\n",
          n, (unsigned long long)chunks, by_coord, declare);
      if (json != NULL)
        fprintf(json,
                "{\"lookup_chunks\":%d,\"dataset_chunks\":%llu,\"by_coord_us\":%.3f,"
                "\"declare_us\":%.3f}\n",
                n, (unsigned long long)chunks, by_coord, declare);
    }
  }
  seq = sequential_rate(o.file);
  printf(
      "median MiB/s over %d round(s), %llu x %llu uint64 per dataset (%.0f MiB), budget %s; "
      "H5Fopen to last value checked\n",
      o.rounds, (unsigned long long)o.rows, (unsigned long long)o.rows,
      (double)o.rows * (double)o.rows * 8 / (1 << 20), o.budget);
  printf("%-7s %-14s %10s %10s %10s %10s %10s %12s %12s %10s\n", "dataset", "pattern", "sec2",
         "prefetch", "declared", "pf/sec2", "decl/sec2", "decl peakRSS", "sec2-cached", "engine");
  for (int di = 0; di < NDATASETS; ++di)
    for (int pi = 0; pi < NPATTERNS; ++pi) {
      long rss[NMETHODS];
      double m[NMETHODS];
      if (!listed(o.datasets, datasets[di].name) || !listed(o.patterns, patterns[pi])) continue;
      for (int mi = 0; mi < NMETHODS; ++mi) m[mi] = median_rate(runs, nruns, di, pi, mi, &rss[mi]);
      printf("%-7s %-14s %10.1f %10.1f %10.1f %9.2fx %9.2fx %8ld MiB %12.1f %10.1f\n",
             datasets[di].name, patterns[pi], m[0], m[1], m[2], m[0] > 0 ? m[1] / m[0] : 0,
             m[0] > 0 ? m[2] / m[0] : 0, rss[2] / 1024, m[3], m[4]);
    }
  printf("seq (one reader, O_DIRECT 8 MiB reads of the whole file, %d in flight): %.1f MiB/s\n",
         SEQ_DEPTH, seq);
  if (json != NULL) {
    fprintf(json, "{\"seq_mib_s\":%.3f,\"rows\":%llu}\n", seq, (unsigned long long)o.rows);
    fclose(json);
  }
  if (failed) fprintf(stderr, "pfio-h5bench: %d run(s) failed\n", failed);
  return failed ? 1 : 0;
}
