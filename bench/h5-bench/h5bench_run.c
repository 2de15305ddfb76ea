/* pfio-h5bench: one run in a child process, the sequential yardstick and the cost of finding chunk
 * addresses. */
#define _GNU_SOURCE
#include "h5bench.h"

/* ---- selections ---------------------------------------------------------------------------- */

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
    const hsize_t e = (hsize_t)o->point_edge;
    for (int i = 0; i < o->points; ++i)
      s[(*n)++] = (Slab){NEXT() % (N - e + 1), NEXT() % (N - e + 1), e, e};
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

typedef herr_t (*dataset_read)(hid_t, hid_t, hid_t, hid_t, hid_t, void *);

size_t selections(const Options *o, int di, int pi) {
  size_t n = 0;
  free(pattern_slabs(o, &datasets[di], pi, &n));
  return n;
}

static void run_child(const Options *o, int di, int pi, int mi, double compute_ms, Result *res) {
  const Dataset *d = &datasets[di];
  const double steps = compute_ms / 1000.0 * busy_rate;
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
  if (method_is_sec2(mi)) {
    H5Pset_fapl_sec2(fapl);
  } else {
    H5FD_prefetch_config_t config;
    H5FD_prefetch_config_init(&config);
    const int engine = mi == METHOD_DECLARED_ENGINE;
    const int cache_kind = mi == METHOD_PREFETCH_CACHE_KIND || mi == METHOD_DECLARED_CACHE_KIND;
    if (engine) config.engine_min = 64 << 10; /* extents of 64 KiB and more read by pfio */
    if (cache_kind) config.engine_min = 0;    /* every planned byte read by pfio, */
    if ((engine || cache_kind) &&
        H5FD_prefetch_config_set(&config, "buffer", engine ? "engine" : "cache") < 0) {
      snprintf(res->error, sizeof res->error, "buffer = %s refused", engine ? "engine" : "cache");
      return;
    }
    if (H5FD_prefetch_config_set(&config, "budget", o->budget) < 0) {
      char why[512];
      hdf5_error(why, sizeof why);
      snprintf(res->error, sizeof res->error, "--budget %s refused: %s", o->budget, why);
      return;
    }
    if (H5Pset_fapl_prefetch(fapl, &config) < 0) {
      char why[512];
      hdf5_error(why, sizeof why);
      snprintf(res->error, sizeof res->error, "H5Pset_fapl_prefetch refused the settings: %s", why);
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
  if (mi == METHOD_DECLARED || mi == METHOD_DECLARED_ENGINE || mi == METHOD_DECLARED_CACHE_KIND) {
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
  /* This program links the driver ahead of HDF5, so H5Dread names the driver's (each call its own
   * plan): the pfio methods read through it as a program linked with the driver does, sec2
   * through HDF5's own, as the same program without pfio. */
  const dataset_read dread = method_is_sec2(mi) ? H5FD_prefetch_hdf5_read : H5Dread;
  for (i = 0; i < n; ++i) {
    const Slab *s = &slabs[i];
    hsize_t count[2] = {s->nr, s->nc};
    hid_t fs = select_slab(dset, s), ms = H5Screate_simple(2, count, NULL);
    double t = now();
    if (dread(dset, H5T_NATIVE_UINT64, ms, fs, H5P_DEFAULT, buf) < 0) {
      snprintf(res->error, sizeof res->error, "H5Dread of selection %zu failed", i);
      return;
    }
    res->read_seconds += now() - t;
    H5Sclose(ms);
    H5Sclose(fs);
    for (hsize_t r = 0; r < s->nr; ++r)
      for (hsize_t c = 0; c < s->nc; ++c)
        res->bad += buf[r * s->nc + c] != value_of(d, s->r0 + r, s->c0 + c, o->rows);
    res->bytes += s->nr * s->nc * sizeof *buf;
    if (steps > 0) res->busy_seconds += busy_compute(steps);
  }
  if (!method_is_sec2(mi)) { /* through the driver */
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
void run_one(const Options *o, Run *run) {
  int fds[2];
  pid_t pid;
  struct rusage ru;
  int status = 0;
  memset(&run->r, 0, sizeof run->r);
  if (run->method == METHOD_SEC2_CACHED)
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
    run_child(o, run->dataset, run->pattern, run->method, run->compute_ms, &r);
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
double sequential_rate(const char *path) {
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
void lookup_cost(const Options *o, int n, double *by_coord_us, double *declare_us) {
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
