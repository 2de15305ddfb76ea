/* pfio-mpibench: out-of-core MPI-IO read patterns under mpirun, every method in one invocation.
 *
 * usage: mpirun -np N pfio-mpibench [--file PATH] [--size BYTES] [--workloads LIST]
 *                                   [--methods LIST] [--rounds R] [--budget BYTES]
 *                                   [--calls collective|independent] [--json PATH]
 *                                   [--keep] [--help]
 * Workloads (all by default):
 *   ior-hard  blocks of 47,008 bytes interleaved over the ranks, one segment (100 blocks per
 *             rank) per MPI_File_read_all (IO500's ior-hard read shape)
 *   random    a seeded permutation of all blocks dealt to ranks and calls (100 per call)
 *   btio      a 3-D array of doubles per time step in a block decomposition over the ranks
 *             (MPI_Dims_create), subarray file views, one collective read per time step
 *   tiles     an out-of-core matrix (row-major doubles, 1024 x 1024 tiles): each rank reads its
 *             row of tiles, then its column, one tile per collective read (a blocked solver)
 *   restart   a checkpoint of 4 variables written by 2N+1 writers (each writer's piece after a
 *             4 KiB header) read back by the N ranks, 8 MiB of a variable per rank per call
 * Methods (those this MPI offers; all by default):
 *   ompio        Open MPI's OMPIO (the plain file name)
 *   romio        stock ROMIO: Open MPI: ROMIO 3.2.1 through pfio's io component with hint
 *                prefetch=stock (the same code as Open MPI's romio321); MPICH: the plain name
 *   pfio         the ad_prefetch driver ("prefetch:" name): the collective layer, look-ahead on
 *   pfio-noplan  the driver with look-ahead across calls off (hint prefetch_coll_lookahead=0)
 *   pfio-engine  the driver reading through pfio's engine (O_DIRECT into the budget) instead of
 *                the page cache (hints prefetch_coll_path=engine, prefetch_read_path=engine)
 *   pfio-engine-cache  the same engine paths with the engine's page-cache buffer kind (hint
 *                prefetch_buffer=cache): its window, scheduler and budget advise the page cache
 *   romio-again  stock ROMIO once more in every round, as a method of its own: romio-again /
 *                romio is what one invocation's run-to-run spread makes of two identical
 *                methods (an A/A comparison), the yardstick for small differences from stock
 *   seq          the limit: rank 0 reads the whole file sequentially (O_DIRECT, 8 MiB reads,
 *                4 in flight)
 * --calls independent reads with MPI_File_read instead of MPI_File_read_all (same views).
 * --compute MS|auto: computation between reads. After every call's check, each rank runs a
 *   busy loop of a fixed amount of work (bench/common/busy_compute.h, calibrated at start-up
 *   with every rank spinning at once, the ranks' mean rate agreed on, and checked against a
 *   timed compute-only pass before each workload's computation runs) worth MS milliseconds per
 *   call; `auto` takes the stock driver's read time per call in the same round (romio's, else
 *   ompio's in_calls / calls). Each round then also runs, per workload, the compute alone
 *   (compute-only: the same calls, no I/O) and every method again with the compute, and the
 *   report adds a table: I/O alone, compute alone, total (time to solution), time in reads and
 *   overlap = (I/O alone + compute alone - total) / min(I/O alone, compute alone) per method
 *   (1: the shorter of the two hidden entirely; 0: none of it; negative: worse than in turn).
 * --prepare makes (or checks) the file and exits: a file to serve from elsewhere (the test bed).
 * Every run: the file is evicted from the page cache on every rank (fdatasync, then
 * POSIX_FADV_DONTNEED; as root also /proc/sys/vm/drop_caches), every byte read is checked
 * against the self-verifying pattern (a wrong byte aborts with the offset), and the slowest
 * rank's time is reported: `elapsed` from the first open to the last byte checked (checking
 * stands for the application's computing, which a prefetcher overlaps). Methods alternate
 * within each round. Rank 0 prints progress, then a table of medians; --json appends one line
 * per run. Peak RSS is each rank's VmHWM during the run (reset before it); CPU is the user +
 * system seconds of every rank (its threads included) summed, from open to close. The JSON also
 * has the slowest rank's time inside the read calls (in_calls), MPI_File_open (open_s), all the
 * MPI_File_set_view calls (view_s) and MPI_File_close (close_s): where a run's time went.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../tests/mpi/pattern.h"
#include "../common/busy_compute.h"
#include "../common/sequential_rate.h"

#define SEED 23
#define BLOCK 47008
#define PER_CALL 100
#define MAX_RUNS 4096
#define NMETHODS 8 /* ompio romio pfio pfio-noplan pfio-engine pfio-engine-cache romio-again seq */

static int rank, nprocs;

/* ---- options ----------------------------------------------------------------------------- */

typedef struct {
  const char *file, *workloads, *methods, *json, *budget;
  unsigned long long size;
  int rounds, keep, independent, prepare;
  double compute_ms; /* 0: none; < 0: auto (the stock driver's read time per call) */
} Options;

static Options opts;

static void die(const char *what, const char *value) {
  if (rank == 0) fprintf(stderr, "pfio-mpibench: %s%s\n", what, value ? value : "");
  sleep(1); /* lets the launcher forward the message before the abort ends the job */
  MPI_Abort(MPI_COMM_WORLD, 2);
}

static void usage(void) {
  if (rank == 0)
    printf(
        "usage: mpirun -np N pfio-mpibench [--file PATH] [--size BYTES (1G)]\n"
        "         [--workloads ior-hard,random,btio,tiles,restart] [--rounds R (3)]\n"
        "         [--methods ompio,romio,pfio,pfio-noplan,pfio-engine,pfio-engine-cache,romio-again,seq]\n"
        "         [--budget BYTES]\n"
        "         [--calls collective|independent] [--compute MS|auto]\n"
        "         [--json PATH] [--keep] [--prepare]\n"
        "Reads one shared self-verifying file with every method in one invocation and\n"
        "prints the median MiB/s of each workload and method (see the source header).\n");
}

static unsigned long long parse_size(const char *flag, const char *s) {
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  int shift = 0;
  if (end == s) die("expected a size such as 1G or 512M after ", flag);
  if (*end == 'K' || *end == 'k')
    shift = 10;
  else if (*end == 'M' || *end == 'm')
    shift = 20;
  else if (*end == 'G' || *end == 'g')
    shift = 30;
  else if (*end != '\0')
    die("expected a size such as 1G or 512M after ", flag);
  return v << shift;
}

static Options parse(int argc, char **argv) {
  Options o = {"pfio-mpibench.data",
               "ior-hard,random,btio,tiles,restart",
               "ompio,romio,pfio,pfio-noplan,pfio-engine,romio-again,seq",
               NULL,
               NULL,
               1ULL << 30,
               3,
               0,
               0,
               0,
               0};
  int i;
  for (i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0) {
      usage();
      MPI_Finalize();
      exit(0);
    } else if (strcmp(a, "--keep") == 0) {
      o.keep = 1;
      continue;
    } else if (strcmp(a, "--prepare") == 0) {
      o.prepare = o.keep = 1;
      continue;
    }
    if (v == NULL) die("expected a value after ", a);
    if (strcmp(a, "--file") == 0)
      o.file = v;
    else if (strcmp(a, "--size") == 0)
      o.size = parse_size(a, v);
    else if (strcmp(a, "--workloads") == 0)
      o.workloads = v;
    else if (strcmp(a, "--methods") == 0)
      o.methods = v;
    else if (strcmp(a, "--rounds") == 0)
      o.rounds = atoi(v);
    else if (strcmp(a, "--budget") == 0)
      o.budget = v;
    else if (strcmp(a, "--calls") == 0 &&
             (strcmp(v, "collective") == 0 || strcmp(v, "independent") == 0))
      o.independent = strcmp(v, "independent") == 0;
    else if (strcmp(a, "--calls") == 0)
      die("--calls: expected collective or independent, got ", v);
    else if (strcmp(a, "--json") == 0)
      o.json = v;
    else if (strcmp(a, "--compute") == 0 && strcmp(v, "auto") == 0)
      o.compute_ms = -1;
    else if (strcmp(a, "--compute") == 0) {
      char *end;
      o.compute_ms = strtod(v, &end);
      if (end == v || *end != '\0' || !(o.compute_ms > 0) || o.compute_ms > 60000)
        die("--compute: expected milliseconds per call (above 0, at most 60000) or auto, got ", v);
    } else
      die("unknown option (see --help): ", a);
    ++i;
  }
  if (o.rounds < 1 || o.rounds > 100) die("--rounds: expected 1 to 100", NULL);
  if (o.size < (64ULL << 20)) die("--size: expected at least 64M", NULL);
  return o;
}

static int listed(const char *list, const char *name) {
  size_t n = strlen(name);
  const char *p = list;
  while ((p = strstr(p, name)) != NULL) {
    if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
    p += n;
  }
  return 0;
}

/* ---- extents ----------------------------------------------------------------------------- */

typedef struct {
  long long *off, *len;
  int n, cap;
  long long bytes;
} Extents;

static void ext_add(Extents *e, long long off, long long len) {
  if (len <= 0) return;
  if (e->n > 0 && e->off[e->n - 1] + e->len[e->n - 1] == off) {
    e->len[e->n - 1] += len;
  } else {
    if (e->n == e->cap) {
      e->cap = e->cap ? 2 * e->cap : 64;
      e->off = realloc(e->off, (size_t)e->cap * sizeof *e->off);
      e->len = realloc(e->len, (size_t)e->cap * sizeof *e->len);
    }
    e->off[e->n] = off;
    e->len[e->n] = len;
    ++e->n;
  }
  e->bytes += len;
}

static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return x < y ? -1 : x > y;
}

/* ---- workloads: each call of each rank is a list of extents in view order --------------- */

typedef struct Workload Workload;
struct Workload {
  const char *name;
  int calls;
  long long *perm;               /* random */
  int dims[3], grid, steps;      /* btio: process grid, global cube side, time steps */
  long long m, tile, tiles;      /* tiles: matrix side, tile side (doubles), tiles per side */
  long long var, writers, share; /* restart */
  void (*extents)(const Workload *w, int call, Extents *e);
};

static long long nblocks(unsigned long long size) {
  return (long long)(size / BLOCK);
}

static void iorhard_extents(const Workload *w, int call, Extents *e) {
  int i;
  (void)w;
  for (i = 0; i < PER_CALL; ++i)
    ext_add(e, (((long long)call * PER_CALL + i) * nprocs + rank) * BLOCK, BLOCK);
}

static void random_extents(const Workload *w, int call, Extents *e) {
  long long mine[PER_CALL];
  int i;
  memcpy(mine, w->perm + ((long long)call * nprocs + rank) * PER_CALL, sizeof mine);
  qsort(mine, PER_CALL, sizeof mine[0], cmp_ll);
  for (i = 0; i < PER_CALL; ++i) ext_add(e, mine[i] * BLOCK, BLOCK);
}

/* btio: this rank's subarray of time step `call` (C order: x slowest). */
static void btio_extents(const Workload *w, int call, Extents *e) {
  int coords[3], r = rank, d, i, j;
  long long g = w->grid, lo[3], n[3], base = (long long)call * g * g * g * 8;
  for (d = 2; d >= 0; --d) {
    coords[d] = r % w->dims[d];
    r /= w->dims[d];
  }
  for (d = 0; d < 3; ++d) {
    n[d] = g / w->dims[d];
    lo[d] = coords[d] * n[d];
  }
  for (i = 0; i < n[0]; ++i)
    for (j = 0; j < n[1]; ++j)
      ext_add(e, base + (((lo[0] + i) * g + lo[1] + j) * g + lo[2]) * 8, n[2] * 8);
}

/* tiles: calls 0..T-1 read tile (row, call), calls T..2T-1 tile (call-T, row) of this rank. */
static void tile_at(const Workload *w, long long tr, long long tc, Extents *e) {
  long long i;
  for (i = 0; i < w->tile; ++i)
    ext_add(e, ((tr * w->tile + i) * w->m + tc * w->tile) * 8, w->tile * 8);
}

static void tiles_extents(const Workload *w, int call, Extents *e) {
  long long row = rank % w->tiles;
  if (call < w->tiles)
    tile_at(w, row, call, e);
  else
    tile_at(w, call - w->tiles, row, e);
}

/* restart: variable v's global array (var bytes) is split over `writers` pieces, each stored
 * after a 4 KiB header; this rank reads bytes [rank*share, (rank+1)*share) of each variable,
 * 8 MiB per call. */
#define HEADER 4096
#define RESTART_CHUNK (8LL << 20)
static void restart_extents(const Workload *w, int call, Extents *e) {
  long long calls_per_var = (w->share + RESTART_CHUNK - 1) / RESTART_CHUNK;
  long long v = call / calls_per_var, c = call % calls_per_var;
  long long lo = rank * w->share + c * RESTART_CHUNK, hi = lo + RESTART_CHUNK;
  long long piece = w->var / w->writers, stride = piece + HEADER;
  if (hi > (rank + 1) * w->share) hi = (rank + 1) * w->share;
  while (lo < hi) {
    long long wr = lo / piece, in = lo % piece, n = piece - in;
    if (n > hi - lo) n = hi - lo;
    ext_add(e, v * w->writers * stride + wr * stride + HEADER + in, n);
    lo += n;
  }
}

static void make_workload(Workload *w, const char *name, unsigned long long size) {
  memset(w, 0, sizeof *w);
  w->name = name;
  if (strcmp(name, "ior-hard") == 0) {
    w->calls = (int)(nblocks(size) / ((long long)PER_CALL * nprocs));
    w->extents = iorhard_extents;
  } else if (strcmp(name, "random") == 0) {
    long long total, i;
    unsigned long long s = 12345;
    w->calls = (int)(nblocks(size) / ((long long)PER_CALL * nprocs));
    total = (long long)w->calls * PER_CALL * nprocs;
    w->perm = malloc((size_t)total * sizeof *w->perm);
    for (i = 0; i < total; ++i) w->perm[i] = i;
    for (i = total - 1; i > 0; --i) { /* the same shuffle on every rank */
      long long t, j;
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      j = (long long)((s >> 33) % (unsigned long long)(i + 1));
      t = w->perm[i];
      w->perm[i] = w->perm[j];
      w->perm[j] = t;
    }
    w->extents = random_extents;
  } else if (strcmp(name, "btio") == 0) {
    int lcm;
    MPI_Dims_create(nprocs, 3, w->dims);
    lcm = w->dims[0] * w->dims[1] * w->dims[2]; /* a multiple of each */
    w->grid = (int)cbrt((double)size / 16 / 8);
    w->grid -= w->grid % lcm;
    w->steps = (int)(size / ((unsigned long long)w->grid * w->grid * w->grid * 8));
    w->calls = w->steps;
    w->extents = btio_extents;
  } else if (strcmp(name, "tiles") == 0) {
    w->tile = 1024;
    w->m = (long long)sqrt((double)size / 8);
    w->m -= w->m % w->tile;
    w->tiles = w->m / w->tile;
    w->calls = (int)(2 * w->tiles);
    w->extents = tiles_extents;
  } else if (strcmp(name, "restart") == 0) {
    w->writers = 2LL * nprocs + 1;
    w->var = (long long)(size / 4 - (unsigned long long)w->writers * HEADER);
    w->var -= w->var % (w->writers * 8 * nprocs);
    w->share = w->var / nprocs;
    w->calls = (int)(4 * ((w->share + RESTART_CHUNK - 1) / RESTART_CHUNK));
    w->extents = restart_extents;
  } else {
    die("unknown workload (expected ior-hard, random, btio, tiles, restart): ", name);
  }
  if (w->calls < 1) die("the file is too small for workload ", name);
}

/* ---- the file ---------------------------------------------------------------------------- */

/* Every rank writes its slice of the pattern. A file already there is reused when it is one of
 * ours (its size, first and last words right) and refused otherwise: the benchmark never
 * overwrites or deletes a file it did not make. Returns whether this run made the file. */
static int make_file(const Options *o) {
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

static void evict(const Options *o) {
  int fd = open(o->file, O_RDONLY);
  if (fd >= 0) {
    if (rank == 0) fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
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

static void reset_peak_rss(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (f != NULL) {
    fputs("5\n", f);
    fclose(f);
  }
}

static long long peak_rss_kib(void) {
  char line[256];
  long long kib = -1;
  FILE *f = fopen("/proc/self/status", "r");
  while (f != NULL && fgets(line, sizeof line, f) != NULL)
    if (strncmp(line, "VmHWM:", 6) == 0) kib = atoll(line + 6);
  if (f != NULL) fclose(f);
  return kib;
}

/* ---- one run ----------------------------------------------------------------------------- */

typedef struct {
  const char *workload, *method;
  int round;
  double seconds, in_calls, cpu;  /* cpu: user + system seconds of every rank, threads included */
  double open_s, view_s, close_s; /* the slowest rank's time in MPI_File_open, set_view, close */
  double compute_ms;              /* computation per call (0: the I/O alone) */
  double busy_s;                  /* the slowest rank's time in the computation */
  long long bytes, rss_max_kib;
} Run;

/* The computation's steps per second, agreed on by all ranks (0 until calibrated). */
static double busy_rate;

static void calibrate_compute(void) {
  double mine, sum;
  MPI_Barrier(MPI_COMM_WORLD);
  mine = busy_calibrate(0.3); /* every rank at once: the rate the ranks get side by side */
  MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  busy_rate = sum / nprocs;
}

static double compute_steps(double ms) {
  return ms / 1000.0 * busy_rate;
}

static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec +
         u.ru_stime.tv_usec / 1e6;
}

static int is_openmpi(void) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len;
  MPI_Get_library_version(version, &len);
  return strstr(version, "Open MPI") != NULL;
}

/* Stock ROMIO, as `romio` or as its A/A twin `romio-again`. */
static int is_romio(const char *method) {
  return strcmp(method, "romio") == 0 || strcmp(method, "romio-again") == 0;
}

/* Opens the file the way `method` selects its MPI-IO implementation; 0 when that method is not
 * available here (the reason in why). */
static int open_for(const Options *o, const char *method, MPI_File *fh, char *why, size_t size) {
  char name[4200], value[MPI_MAX_INFO_VAL + 1];
  MPI_Info info, got;
  int rc, flag = 0, ok = 1;
  MPI_Info_create(&info);
  snprintf(name, sizeof name, "%s", o->file);
  if (strncmp(method, "pfio", 4) == 0) {
    snprintf(name, sizeof name, "prefetch:%s", o->file);
    if (o->budget) MPI_Info_set(info, "prefetch_budget", o->budget);
    if (strcmp(method, "pfio-noplan") == 0) MPI_Info_set(info, "prefetch_coll_lookahead", "0");
    if (strncmp(method, "pfio-engine", 11) == 0) {
      MPI_Info_set(info, "prefetch_coll_path", "engine");
      MPI_Info_set(info, "prefetch_read_path", "engine");
    }
    if (strcmp(method, "pfio-engine-cache") == 0) MPI_Info_set(info, "prefetch_buffer", "cache");
  } else if (is_romio(method) && is_openmpi()) {
    MPI_Info_set(info, "prefetch", "stock");
  }
  rc = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, info, fh);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) {
    snprintf(why, size, "MPI_File_open(%.200s) failed", name);
    return 0;
  }
  MPI_File_get_info(*fh, &got);
  if (strncmp(method, "pfio", 4) == 0) {
    MPI_Info_get(got, "prefetch", MPI_MAX_INFO_VAL, value, &flag);
    if (!flag || strcmp(value, "enable") != 0) {
      snprintf(why, size, "the ad_prefetch driver is not reachable from this MPI");
      ok = 0;
    }
  } else if (is_romio(method)) {
    MPI_Info_get(got, "romio_cb_read", MPI_MAX_INFO_VAL, value, &flag);
    if (!flag) {
      snprintf(why, size,
               "ROMIO is not reachable (Open MPI: pfio's io component serves "
               "hint prefetch=stock)");
      ok = 0;
    }
  } else if (strcmp(method, "ompio") == 0 && !is_openmpi()) {
    snprintf(why, size, "OMPIO is Open MPI's");
    ok = 0;
  }
  MPI_Info_free(&got);
  if (!ok) MPI_File_close(fh);
  return ok;
}

/* The view of one call: the extents as an hindexed type (btio's and tiles' are the rows of a
 * subarray, built from the same geometry). */
static void set_view(MPI_File fh, const Extents *e) {
  MPI_Datatype t;
  int *lens = malloc(((size_t)e->n + 1) * sizeof *lens), i;
  MPI_Aint *displs = malloc(((size_t)e->n + 1) * sizeof *displs);
  for (i = 0; i < e->n; ++i) {
    lens[i] = (int)e->len[i];
    displs[i] = (MPI_Aint)e->off[i];
  }
  MPI_Type_create_hindexed(e->n, lens, displs, MPI_BYTE, &t);
  MPI_Type_commit(&t);
  MPI_File_set_view(fh, 0, MPI_BYTE, t, "native", MPI_INFO_NULL);
  MPI_Type_free(&t);
  free(lens);
  free(displs);
}

/* Every byte of the call against the pattern, a word at a time where the file offset is a
 * multiple of 8 (the check is part of the timed run: it stands for the application's work). */
static void wrong_byte(const Workload *w, int call, long long offset) {
  fprintf(stderr, "pfio-mpibench: WRONG BYTE: workload %s call %d rank %d file offset %lld\n",
          w->name, call, rank, offset);
  sleep(1);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check(const Workload *w, int call, const Extents *e, const unsigned char *buf) {
  int i;
  for (i = 0; i < e->n; ++i) {
    long long off = e->off[i], end = off + e->len[i];
    while (off < end && (off & 7)) {
      if (*buf++ != pattern_byte((uint64_t)off, SEED)) wrong_byte(w, call, off);
      ++off;
    }
    for (; off + 8 <= end; off += 8, buf += 8) {
      uint64_t word;
      memcpy(&word, buf, 8);
      if (word != pattern_word((uint64_t)off, SEED)) wrong_byte(w, call, off);
    }
    for (; off < end; ++off)
      if (*buf++ != pattern_byte((uint64_t)off, SEED)) wrong_byte(w, call, off);
  }
}

static int run_mpiio(const Options *o, const Workload *w, const char *method, double compute_ms,
                     Run *out, char *why, size_t size) {
  MPI_File fh;
  Extents e = {0};
  unsigned char *buf = NULL;
  long long cap = 0, bytes = 0, all_bytes = 0, rss;
  double t0, t_in = 0, t, secs, in_max = 0, cpu0, cpu, phase[3] = {0, 0, 0}; /* open, view, close */
  double busy = 0, steps = compute_steps(compute_ms);
  int call, ok;
  evict(o);
  reset_peak_rss();
  MPI_Barrier(MPI_COMM_WORLD);
  cpu0 = cpu_seconds();
  t0 = MPI_Wtime();
  ok = open_for(o, method, &fh, why, size);
  phase[0] = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!ok) return 0;
  for (call = 0; call < w->calls; ++call) {
    MPI_Status st;
    e.n = 0;
    e.bytes = 0;
    w->extents(w, call, &e);
    if (e.bytes > cap) {
      cap = e.bytes;
      buf = realloc(buf, (size_t)cap);
    }
    t = MPI_Wtime();
    set_view(fh, &e);
    phase[1] += MPI_Wtime() - t;
    t = MPI_Wtime();
    if ((opts.independent ? MPI_File_read(fh, buf, (int)e.bytes, MPI_BYTE, &st)
                          : MPI_File_read_all(fh, buf, (int)e.bytes, MPI_BYTE, &st)) != MPI_SUCCESS)
      die("the read failed with method ", method);
    t_in += MPI_Wtime() - t;
    check(w, call, &e, buf);
    if (steps > 0) busy += busy_compute(steps);
    bytes += e.bytes;
  }
  t = MPI_Wtime();
  MPI_File_close(&fh);
  phase[2] = MPI_Wtime() - t;
  secs = MPI_Wtime() - t0;
  cpu = cpu_seconds() - cpu0;
  rss = peak_rss_kib();
  MPI_Reduce(&cpu, &out->cpu, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&secs, &out->seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&t_in, &in_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : phase, phase, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  out->open_s = phase[0];
  out->view_s = phase[1];
  out->close_s = phase[2];
  MPI_Reduce(&bytes, &all_bytes, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&rss, &out->rss_max_kib, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&busy, &out->busy_s, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  out->compute_ms = compute_ms;
  out->in_calls = in_max;
  out->bytes = all_bytes;
  free(buf);
  free(e.off);
  free(e.len);
  return 1;
}

/* Makes the busy loop's rate agree with the computation alone as this invocation runs it: the
 * workload's calls with compute_ms each and no I/O, every rank at once, timed, and the rate
 * scaled by nominal / measured (agreed from rank 0). The start-up calibration alone came out 2x
 * off in a run of 3 rounds (0.52 s of computation where the calls asked for 1.03 s): the ranks'
 * share of the 2 cores at start-up is not the one they get later. */
static void run_compute_only(const Workload *w, double compute_ms, Run *out);
static void recalibrate_compute(const Workload *w, double compute_ms) {
  Run probe = {0};
  double nominal = w->calls * compute_ms / 1000.0, scale = 1;
  run_compute_only(w, compute_ms, &probe);
  if (rank == 0 && probe.seconds > 0) scale = nominal / probe.seconds;
  MPI_Bcast(&scale, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (scale > 0.1 && scale < 10) busy_rate *= scale;
}

/* The computation alone: the workload's calls with no I/O, compute_ms each. */
static void run_compute_only(const Workload *w, double compute_ms, Run *out) {
  double t0, secs, busy = 0, steps = compute_steps(compute_ms);
  int call;
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (call = 0; call < w->calls; ++call) busy += busy_compute(steps);
  secs = MPI_Wtime() - t0;
  MPI_Reduce(&secs, &out->seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&busy, &out->busy_s, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  out->compute_ms = compute_ms;
}

/* One word of every 4 KiB page of a block the sequential read got (a check per page keeps the
 * limit the device's, not the checker's). */
static int seq_check(const unsigned char *buf, size_t n, uint64_t off, void *arg) {
  size_t at;
  (void)arg;
  for (at = 0; at + 8 <= n; at += 4096) {
    uint64_t word;
    memcpy(&word, buf + at, 8);
    if (word != pattern_word(off + at, SEED)) return 1;
  }
  return 0;
}

/* The device's sequential rate from one reader: rank 0, O_DIRECT, 8 MiB reads, SEQ_DEPTH in
 * flight (bench/common/sequential_rate.h says why not one). */
#define SEQ_DEPTH 4
static int run_seq(const Options *o, Run *out) {
  double t0, cpu0;
  sequential_result r = {0};
  evict(o);
  reset_peak_rss();
  cpu0 = cpu_seconds();
  t0 = MPI_Wtime();
  if (rank == 0 && sequential_read(o->file, 8 << 20, SEQ_DEPTH, seq_check, NULL, &r) != 0)
    die("the sequential read (the device limit) failed: ", r.error);
  out->seconds = MPI_Wtime() - t0;
  out->cpu = cpu_seconds() - cpu0;
  out->in_calls = out->seconds;
  out->bytes = (long long)r.bytes;
  out->rss_max_kib = peak_rss_kib();
  MPI_Barrier(MPI_COMM_WORLD);
  return 1;
}

/* Whether the device limit was measured in round r already (once per round). */
static int done_seq_round(int r) {
  static int last = -1;
  if (last == r) return 1;
  last = r;
  return 0;
}

/* ---- report ------------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median_mib(const Run *runs, int n, const char *workload, const char *method,
                         long long *rss) {
  double v[128];
  int k = 0, i;
  *rss = 0;
  for (i = 0; i < n && k < 128; ++i)
    if (strcmp(runs[i].method, method) == 0 && runs[i].compute_ms == 0 &&
        (workload == NULL || strcmp(runs[i].workload, workload) == 0)) {
      v[k++] = runs[i].bytes / 1048576.0 / runs[i].seconds;
      if (runs[i].rss_max_kib > *rss) *rss = runs[i].rss_max_kib;
    }
  if (k == 0) return -1;
  qsort(v, (size_t)k, sizeof v[0], cmp_double);
  return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

static void print_table(const Options *o, const Run *runs, int n, const char *const *methods,
                        int nmethods) {
  const char *const all[] = {"ior-hard", "random", "btio", "tiles", "restart"};
  long long rss;
  double seq = median_mib(runs, n, NULL, "seq", &rss);
  int w, m, aa_shown = 0;
  printf(
      "\nmedian MiB/s over %d round(s), %d ranks, file %.2f GiB; the slowest rank's time, "
      "open to last byte checked\n",
      o->rounds, nprocs, o->size / 1073741824.0);
  printf("%-9s", "workload");
  for (m = 0; m < nmethods; ++m)
    if (strcmp(methods[m], "seq") != 0) printf(" %11s", methods[m]);
  printf(" %13s %12s %12s %12s\n", "pfio/stock", "pfio/seq", "pfio peakRSS", "stock A/A");
  for (w = 0; w < 5; ++w) {
    double best_stock = -1, pfio = -1, romio = -1, again = -1;
    long long pfio_rss = 0;
    if (!listed(o->workloads, all[w])) continue;
    printf("%-9s", all[w]);
    for (m = 0; m < nmethods; ++m) {
      double v;
      if (strcmp(methods[m], "seq") == 0) continue;
      v = median_mib(runs, n, all[w], methods[m], &rss);
      if (v < 0)
        printf(" %11s", "-");
      else
        printf(" %11.1f", v);
      if ((strcmp(methods[m], "ompio") == 0 || strcmp(methods[m], "romio") == 0) && v > best_stock)
        best_stock = v;
      if (strcmp(methods[m], "pfio") == 0) {
        pfio = v;
        pfio_rss = rss;
      }
      if (strcmp(methods[m], "romio") == 0) romio = v;
      if (strcmp(methods[m], "romio-again") == 0) again = v;
    }
    if (pfio > 0 && best_stock > 0)
      printf(" %12.2fx", pfio / best_stock);
    else
      printf(" %13s", "-");
    if (pfio > 0 && seq > 0)
      printf(" %11.2fx", pfio / seq);
    else
      printf(" %12s", "-");
    if (pfio > 0)
      printf(" %9lld MiB", pfio_rss / 1024);
    else
      printf(" %13s", "-");
    if (romio > 0 && again > 0) {
      printf(" %11.2fx", again / romio);
      aa_shown = 1;
    } else
      printf(" %12s", "-");
    printf("\n");
  }
  if (seq > 0)
    printf("seq (rank 0 alone, O_DIRECT 8 MiB reads, %d in flight): %.1f MiB/s\n", SEQ_DEPTH, seq);
  printf(
      "pfio/stock: pfio against the better of ompio and romio in this invocation; every byte "
      "of every run verified\n");
  if (aa_shown)
    printf(
        "stock A/A: romio-again / romio, the same stock ROMIO run twice per round: how far apart "
        "this invocation puts two identical methods\n");
}

/* The median of one field (a double of Run, by offset) over the runs of a workload and method,
 * with or without computation; -1 when there are none. */
static double median_field(const Run *runs, int n, const char *workload, const char *method,
                           int with_compute, size_t field) {
  double v[128];
  int k = 0, i;
  for (i = 0; i < n && k < 128; ++i)
    if (strcmp(runs[i].method, method) == 0 && strcmp(runs[i].workload, workload) == 0 &&
        (runs[i].compute_ms > 0) == with_compute)
      v[k++] = *(const double *)((const char *)&runs[i] + field);
  if (k == 0) return -1;
  qsort(v, (size_t)k, sizeof v[0], cmp_double);
  return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

static void print_compute_table(const Options *o, const Run *runs, int n,
                                const char *const *methods, int nmethods) {
  const char *const all[] = {"ior-hard", "random", "btio", "tiles", "restart"};
  int w, m;
  printf(
      "\ncompute between reads: medians over %d round(s), the slowest rank's seconds; busy loop "
      "of %.0f steps/s per rank\n",
      o->rounds, busy_rate);
  printf("%-9s %-11s %9s %9s %9s %9s %9s %8s %12s\n", "workload", "method", "ms/call", "io-alone",
         "compute", "total", "in-reads", "overlap", "total/stock");
  for (w = 0; w < 5; ++w) {
    double c, best = -1, ms;
    if (!listed(o->workloads, all[w])) continue;
    c = median_field(runs, n, all[w], "compute-only", 1, offsetof(Run, seconds));
    ms = median_field(runs, n, all[w], "compute-only", 1, offsetof(Run, compute_ms));
    if (c < 0) continue;
    for (m = 0; m < nmethods; ++m)
      if (strcmp(methods[m], "ompio") == 0 || strcmp(methods[m], "romio") == 0) {
        double t = median_field(runs, n, all[w], methods[m], 1, offsetof(Run, seconds));
        if (t > 0 && (best < 0 || t < best)) best = t;
      }
    printf("%-9s %-11s %9.2f %9s %9.2f\n", all[w], "compute-only", ms, "-", c);
    for (m = 0; m < nmethods; ++m) {
      double io = median_field(runs, n, all[w], methods[m], 0, offsetof(Run, seconds));
      double t = median_field(runs, n, all[w], methods[m], 1, offsetof(Run, seconds));
      double r = median_field(runs, n, all[w], methods[m], 1, offsetof(Run, in_calls));
      double lo = io < c ? io : c;
      if (io < 0 || t < 0) continue;
      printf("%-9s %-11s %9.2f %9.2f %9.2f %9.2f %9.2f %8.2f", all[w], methods[m], ms, io, c, t, r,
             lo > 0 ? (io + c - t) / lo : 0.0);
      if (best > 0)
        printf(" %11.2fx\n", t / best);
      else
        printf(" %12s\n", "-");
    }
  }
  printf(
      "overlap = (io-alone + compute - total) / min(io-alone, compute): 1 hides the shorter "
      "entirely, 0 not at all; total/stock: against the better stock total\n");
}

/* Rank 0's progress line and JSON line of one run. */
static void report_run(const Options *o, const Run *run, int done, int total, FILE *json,
                       const char *version) {
  double mib = run->bytes / 1048576.0 / run->seconds;
  if (rank != 0) return;
  if (strcmp(run->method, "compute-only") == 0)
    printf("[%3d/%d] round %d %-8s %-11s %.2f ms per call  %6.2f s  computing %6.2f s\n", done,
           total, run->round, run->workload, run->method, run->compute_ms, run->seconds,
           run->busy_s);
  else
    printf(
        "[%3d/%d] round %d %-8s %-11s %8.1f MiB/s  %6.2f s  in calls %6.2f s"
        "  CPU %6.2f s  peak RSS %lld MiB%s  verified\n",
        done, total, run->round, run->workload, run->method, mib, run->seconds, run->in_calls,
        run->cpu, run->rss_max_kib / 1024, run->compute_ms > 0 ? "  +compute" : "");
  fflush(stdout);
  if (json)
    fprintf(json,
            "{\"workload\": \"%s\", \"method\": \"%s\", \"round\": %d, "
            "\"ranks\": %d, \"bytes\": %lld, \"seconds\": %.6f, "
            "\"in_calls\": %.6f, \"open_s\": %.6f, \"view_s\": %.6f, "
            "\"close_s\": %.6f, \"cpu_seconds\": %.6f, \"mib_s\": %.3f, "
            "\"peak_rss_max_mib\": %.1f, \"compute_ms\": %.3f, \"busy_s\": %.6f, "
            "\"file_size\": %llu, \"budget\": \"%s\", \"mpi\": \"%s\", "
            "\"calls\": \"%s\", \"verified\": %s}\n",
            run->workload, run->method, run->round, nprocs, run->bytes, run->seconds, run->in_calls,
            run->open_s, run->view_s, run->close_s, run->cpu, run->bytes ? mib : 0.0,
            run->rss_max_kib / 1024.0, run->compute_ms, run->busy_s, o->size,
            o->budget ? o->budget : "auto", version, o->independent ? "independent" : "collective",
            run->bytes ? "true" : "false");
}

/* The computation per call for a workload in round r: --compute's value, or with auto the stock
 * driver's read time per call in this round (romio's, else ompio's), the same on every rank:
 * a run's times are reduced to rank 0 only, so rank 0 finds it and sends it to the others (the
 * first version read each rank's own copy, unset off rank 0, and ranks 1.. computed nothing). */
static double compute_for(const Options *o, const Run *runs, int n, const Workload *w, int r) {
  const char *const stock[] = {"romio", "ompio"};
  double ms = -1;
  int s, i;
  if (o->compute_ms > 0) return o->compute_ms;
  for (s = 0; s < 2 && rank == 0 && ms < 0; ++s)
    for (i = n - 1; i >= 0 && ms < 0; --i)
      if (runs[i].round == r + 1 && runs[i].compute_ms == 0 &&
          strcmp(runs[i].workload, w->name) == 0 && strcmp(runs[i].method, stock[s]) == 0)
        ms = runs[i].in_calls / w->calls * 1000.0;
  MPI_Bcast(&ms, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (ms < 0)
    die("--compute auto: needs romio or ompio among the --methods (their read time per call)",
        NULL);
  return ms;
}

int main(int argc, char **argv) {
  const char *const all_methods[] = {"ompio",       "romio",       "pfio", "pfio-noplan",
                                     "pfio-engine", "pfio-engine-cache", "romio-again", "seq"};
  const char *const all_workloads[] = {"ior-hard", "random", "btio", "tiles", "restart"};
  const char *methods[NMETHODS];
  char why[256], version[MPI_MAX_LIBRARY_VERSION_STRING];
  int nmethods = 0, skipped[NMETHODS] = {0}, i, w, m, r, nruns = 0, total = 0, done = 0, len;
  int nworkloads = 0, with_seq = 0, pass, passes, made;
  Run *runs;
  Workload workloads[5];
  Options o;
  FILE *json = NULL;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  o = parse(argc, argv);
  opts = o;
  for (i = 0; i < NMETHODS; ++i)
    if (listed(o.methods, all_methods[i])) methods[nmethods++] = all_methods[i];
  if (nmethods == 0)
    die("--methods: expected some of ompio,romio,pfio,pfio-noplan,pfio-engine,pfio-engine-cache,romio-again,seq; "
        "got ",
        o.methods);
  for (w = 0; w < 5; ++w)
    if (listed(o.workloads, all_workloads[w])) {
      make_workload(&workloads[w], all_workloads[w], o.size);
      ++nworkloads;
    }
  for (m = 0; m < nmethods; ++m) with_seq |= strcmp(methods[m], "seq") == 0;
  passes = o.compute_ms != 0 ? 2 : 1; /* the I/O alone, then with the computation */
  total = o.rounds * (nworkloads * (nmethods - with_seq) + with_seq);
  if (passes == 2) total += o.rounds * nworkloads * (nmethods - with_seq + 1);
  if (nworkloads == 0)
    die("--workloads: expected some of ior-hard,random,btio,tiles,restart; got ", o.workloads);
  runs = calloc(MAX_RUNS, sizeof *runs);
  MPI_Get_library_version(version, &len);
  version[strcspn(version, "\n")] = '\0';
  for (i = 0; version[i]; ++i) /* one line, no control characters (it goes into the JSON) */
    if ((unsigned char)version[i] < 0x20 || version[i] == '"' || version[i] == '\\')
      version[i] = ' ';
  if (rank == 0 && !o.prepare) {
    printf("pfio-mpibench: %d ranks, %s calls, %s\n", nprocs,
           o.independent ? "independent" : "collective", version);
    if (o.json && (json = fopen(o.json, "a")) == NULL) die("cannot append to --json ", o.json);
  }
  made = make_file(&o);
  if (o.prepare) {
    if (rank == 0) printf("pfio-mpibench: %s is ready (%llu bytes)\n", o.file, o.size);
    MPI_Finalize();
    return 0;
  }
  if (passes == 2) {
    calibrate_compute();
    if (rank == 0) {
      printf("pfio-mpibench: computation between reads: a busy loop at %.0f steps/s per rank, ",
             busy_rate);
      if (o.compute_ms > 0)
        printf("%.2f ms per call\n", o.compute_ms);
      else
        printf("per call the stock driver's read time per call in the same round\n");
    }
  }
  for (r = 0; r < o.rounds; ++r)
    for (w = 0; w < 5; ++w) {
      if (!listed(o.workloads, all_workloads[w])) continue;
      for (pass = 0; pass < passes; ++pass) {
        double ms = pass == 0 ? 0 : compute_for(&o, runs, nruns, &workloads[w], r);
        if (pass == 1) {
          Run run = {.workload = all_workloads[w], .method = "compute-only", .round = r + 1};
          recalibrate_compute(&workloads[w], ms);
          run_compute_only(&workloads[w], ms, &run);
          report_run(&o, &run, ++done, total, json, version);
          if (nruns < MAX_RUNS) runs[nruns++] = run;
        }
        for (i = 0; i < nmethods; ++i) {
          m = (i + r) % nmethods; /* methods alternate between rounds */
          Run run = {.workload = all_workloads[w], .method = methods[m], .round = r + 1};
          if (skipped[m]) continue;
          if (strcmp(methods[m], "seq") == 0) {
            if (pass == 1 || done_seq_round(r)) continue;
            run.workload = "seq";
            run_seq(&o, &run);
          } else if (!run_mpiio(&o, &workloads[w], methods[m], ms, &run, why, sizeof why)) {
            ++done;
            skipped[m] = 1;
            if (rank == 0) printf("pfio-mpibench: method %s skipped: %s\n", methods[m], why);
            continue;
          }
          report_run(&o, &run, ++done, total, json, version);
          if (nruns < MAX_RUNS) runs[nruns++] = run;
        }
      }
    }
  if (rank == 0) {
    print_table(&o, runs, nruns, methods, nmethods);
    if (passes == 2) print_compute_table(&o, runs, nruns, methods, nmethods);
    if (json) fclose(json);
  }
  if (made && !o.keep && rank == 0) unlink(o.file); /* only a file this run made */
  free(runs);
  MPI_Finalize();
  return 0;
}
