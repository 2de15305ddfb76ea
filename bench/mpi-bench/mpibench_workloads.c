/* pfio-mpibench: The extents of each call of each rank, per workload (ior-hard, random, btio,
 * tiles, restart). */
#define _GNU_SOURCE
#include "mpibench.h"

/* ---- extents ----------------------------------------------------------------------------- */

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

static long long nblocks(unsigned long long size) {
  return (long long)(size / (unsigned long long)opts.block);
}

static void iorhard_extents(const Workload *w, int call, Extents *e) {
  const int per_call = opts.per_call;
  int i;
  (void)w;
  for (i = 0; i < per_call; ++i)
    ext_add(e, (((long long)call * per_call + i) * nprocs + rank) * opts.block, opts.block);
}

/* small-files: ior-hard's blocks within the call's file. */
static void smallfile_extents(const Workload *w, int call, Extents *e) {
  const int per_call = opts.per_call, in_file = call % w->calls_per_file;
  int i;
  e->base = (long long)(call / w->calls_per_file) * opts.small_file;
  for (i = 0; i < per_call; ++i)
    ext_add(e, (((long long)in_file * per_call + i) * nprocs + rank) * opts.block, opts.block);
}

static void random_extents(const Workload *w, int call, Extents *e) {
  const int per_call = opts.per_call;
  long long *mine = malloc((size_t)per_call * sizeof *mine);
  int i;
  memcpy(mine, w->perm + ((long long)call * nprocs + rank) * per_call,
         (size_t)per_call * sizeof *mine);
  qsort(mine, (size_t)per_call, sizeof mine[0], cmp_ll);
  for (i = 0; i < per_call; ++i) ext_add(e, mine[i] * opts.block, opts.block);
  free(mine);
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

void make_workload(Workload *w, const char *name, unsigned long long size) {
  memset(w, 0, sizeof *w);
  w->name = name;
  if (strcmp(name, "ior-hard") == 0) {
    w->calls = (int)(nblocks(size) / ((long long)opts.per_call * nprocs));
    w->extents = iorhard_extents;
  } else if (strcmp(name, "random") == 0) {
    long long total, i;
    unsigned long long s = 12345;
    w->calls = (int)(nblocks(size) / ((long long)opts.per_call * nprocs));
    total = (long long)w->calls * opts.per_call * nprocs;
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
  } else if (strcmp(name, "opens") == 0) {
    w->calls = (int)(nblocks(size) / ((long long)opts.per_call * nprocs));
    if (w->calls > 200) w->calls = 200;
    w->extents = iorhard_extents;
    w->reopen = 1;
  } else if (strcmp(name, "small-files") == 0) {
    const long long blocks = opts.small_file / opts.block, per_call = (long long)opts.per_call;
    char n[160];
    w->calls_per_file = (int)(blocks / (per_call * nprocs));
    snprintf(
        n, sizeof n,
        "%lld bytes hold %lld blocks of %lld; expected at least %lld (--per-call %d x %d ranks)",
        opts.small_file, blocks, opts.block, per_call * nprocs, opts.per_call, nprocs);
    if (w->calls_per_file < 1) die("--small-file: ", n);
    w->files = (int)(size / (unsigned long long)opts.small_file);
    if (w->files > 256) w->files = 256;
    w->calls = w->files * w->calls_per_file;
    w->extents = smallfile_extents;
  } else {
    die("unknown workload (expected ior-hard, random, btio, tiles, restart, opens, "
        "small-files): ",
        name);
  }
  if (w->calls < 1) die("the file is too small for workload ", name);
}
