/* pfio-h5bench: HDF5 dataset read patterns through sec2 and through pfio's driver, in one
 * invocation.
 *
 * usage: pfio-h5bench [--file PATH] [--rows N] [--datasets LIST] [--patterns LIST]
 *                     [--methods LIST] [--rounds R] [--budget SIZE] [--points N]
 *                     [--point-edge E]
 *                     [--json PATH] [--compute MS|auto] [--lookup] [--quiet] [--help]
 * Datasets (N x N unsigned 64-bit values each, N = --rows, 8192 by default: 512 MiB each):
 *   c8k     chunked, 32 x 32 chunks (8 KiB)
 *   c128k   chunked, 128 x 128 chunks (128 KiB)
 *   c1m     chunked, 128 x 1024 chunks (1 MiB)
 *   contig  contiguous
 * Patterns (each one H5Dread per selection):
 *   tiles          every chunk-sized tile (256 x 256 for contig) once, in a seeded random order
 *   columns        full-height strips one chunk wide (256 for contig), left to right
 *   rows           full-width strips one chunk tall (256 for contig), top to bottom
 *   random-points  --points small E x E hyperslabs (--point-edge, 4 by default) at seeded random
 *                  places (2048 by default)
 * Methods:
 *   sec2               HDF5's default driver, through HDF5's own H5Dread
 *   prefetch           H5Pset_fapl_prefetch and nothing else changed: the driver's H5Dread (this
 *                      program links the driver ahead of HDF5), so each selection of several
 *                      chunks is its own plan, and stride prediction across calls
 *   prefetch-declared  the same, and H5FD_prefetch_declare for every selection before reading
 *   sec2-cached        sec2 with the whole file in the page cache (read once before the run):
 *                      no driver can beat it; it is HDF5's own cost per read on this machine
 *   declared-engine    prefetch-declared with buffer = engine and engine_min = 64 KiB: every
 *                      declared extent read by pfio's engine into its reorder buffer (O_DIRECT)
 *                      instead of through the page cache
 *   sec2-again         sec2 once more: two identical methods, so that sec2-again / sec2 (the A/A)
 *                      shows how far apart the invocation puts the same reads
 *   prefetch-cache-kind, declared-cache-kind (only when --methods names them)
 *                      prefetch and prefetch-declared with engine_min = 0 and buffer = cache:
 *                      every planned byte read (copied) by pfio from its page-cache kind, where
 *                      the default has the driver read it itself (pfio_read_done)
 * --compute MS|auto: computation between reads: after each selection's check a busy loop worth
 *   MS milliseconds (bench/common/busy_compute.h, calibrated at start-up); auto takes sec2's time
 *   inside H5Dread per selection in the same round. Each round then runs, per dataset and
 *   pattern, every method without the computation, the computation alone, and every method
 *   with it; a second table gives time alone, computation alone, time to solution, time inside
 *   H5Dread, overlap and time to solution against sec2's.
 * --lookup also times finding chunk addresses (H5Dget_chunk_info_by_coord against
 * H5FD_prefetch_declare) for 256, 1024 and 4096 random chunks of c8k.
 * Every run is a child process (so its peak RSS is its own): the file is evicted from the page
 * cache first (except for sec2-cached) (fdatasync, POSIX_FADV_DONTNEED, and as root
 * /proc/sys/vm/drop_caches), every value read is checked (element i of a dataset holds seed << 40 |
 * i), and `elapsed` runs from H5Fopen to the last value checked (checking stands for the
 * application's computing, which a prefetcher overlaps). Methods run in a balanced order
 * (bench/common/balanced_order.h): over as many rounds as methods are listed (twice as many when
 * odd) each runs once at every place and right after every other equally often.
 * Prints progress, then a table of medians; --json writes one line per run. The file is made once
 * and kept; a --file that exists and is not a pfio-h5bench file of this size is refused, never
 * overwritten.
 */
#define _GNU_SOURCE
#include "h5bench.h"

const Dataset datasets[] = {
    {"c8k", 32, 32, 11}, {"c128k", 128, 128, 12}, {"c1m", 128, 1024, 13}, {"contig", 0, 0, 14}};
const char *patterns[] = {"tiles", "columns", "rows", "random-points"};
const char *methods[] = {"sec2",
                         "prefetch",
                         "prefetch-declared",
                         "sec2-cached",
                         "declared-engine",
                         "prefetch-cache-kind",
                         "declared-cache-kind",
                         "sec2-again"};
const char *default_methods =
    "sec2,prefetch,prefetch-declared,sec2-cached,declared-engine,sec2-again";

int method_is_sec2(int mi) {
  return mi == METHOD_SEC2 || mi == METHOD_SEC2_CACHED || mi == METHOD_SEC2_AGAIN;
}

/* ---- report ---------------------------------------------------------------------------------- */

/* Median MiB/s of (dataset, pattern, method) over the rounds; 0 if none. */
static double median_rate(const Run *runs, int nruns, int di, int pi, int mi, long *rss) {
  double v[MAX_RUNS];
  int n = 0;
  *rss = 0;
  for (int i = 0; i < nruns; ++i) {
    const Run *r = &runs[i];
    if (r->dataset == di && r->pattern == pi && r->method == mi && r->r.ok && r->compute_ms == 0) {
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
  o->point_edge = 4;
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
    else if (strcmp(a, "--point-edge") == 0)
      o->point_edge = atoi(v);
    else if (strcmp(a, "--json") == 0)
      o->json = v;
    else if (strcmp(a, "--compute") == 0) {
      char *end = NULL;
      o->compute_ms = strcmp(v, "auto") == 0 ? -1 : strtod(v, &end);
      if (o->compute_ms == 0 || (end != NULL && (*end != '\0' || o->compute_ms < 0))) {
        fprintf(stderr, "pfio-h5bench: --compute %s: expected milliseconds > 0 or auto\n", v);
        exit(2);
      }
    } else {
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
  if (o->point_edge < 1 || o->point_edge > 1024) {
    fprintf(stderr, "pfio-h5bench: --point-edge %d: expected 1 .. 1024\n", o->point_edge);
    exit(2);
  }
  const char *dnames[NDATASETS];
  for (int i = 0; i < NDATASETS; ++i) dnames[i] = datasets[i].name;
  if (o->methods == NULL) o->methods = default_methods;
  if (!check_list("datasets", o->datasets, dnames, NDATASETS) ||
      !check_list("patterns", o->patterns, patterns, NPATTERNS) ||
      !check_list("methods", o->methods, methods, NMETHODS))
    exit(2);
}

/* A run's progress line and JSON line; 1 when it failed. */
static int report(const Options *o, const Run *run, int done, int total, FILE *json) {
  const Result *r = &run->r;
  const char *dataset = datasets[run->dataset].name, *pattern = patterns[run->pattern];
  const char *method = run->method == COMPUTE_ONLY ? "compute-only" : methods[run->method];
  if (!r->ok) {
    fprintf(stderr, "pfio-h5bench: %s %s %s FAILED: %s\n", dataset, pattern, method, r->error);
  } else if (o->quiet) {
  } else if (run->method == COMPUTE_ONLY) {
    fprintf(stderr, "[-] %-6s %-13s compute-only %.2f ms per read: %.2f s\n", dataset, pattern,
            run->compute_ms, r->elapsed);
  } else {
    fprintf(stderr,
            "[%d/%d] %-6s %-13s %-17s %8.1f MiB/s  %6.2f s  reads %llu "
            "hits %llu misses %llu unplanned %llu%s\n",
            done, total, dataset, pattern, method, (double)r->bytes / (1 << 20) / r->elapsed,
            r->elapsed, (unsigned long long)r->raw_reads, (unsigned long long)r->hits,
            (unsigned long long)r->misses, (unsigned long long)r->unplanned,
            run->compute_ms > 0 ? "  +compute" : "");
  }
  if (json != NULL)
    fprintf(json,
            "{\"dataset\":\"%s\",\"pattern\":\"%s\",\"method\":\"%s\","
            "\"round\":%d,\"rows\":%llu,\"ok\":%s,\"elapsed_s\":%.6f,"
            "\"declare_s\":%.6f,\"bytes\":%llu,\"mib_s\":%.3f,"
            "\"raw_reads\":%llu,\"hits\":%llu,\"misses\":%llu,\"unplanned\":%llu,"
            "\"bytes_read\":%llu,\"predicted\":%llu,\"memory_peak\":%llu,"
            "\"peak_rss_kib\":%ld,\"budget\":\"%s\",\"chunk_lookups\":%llu,"
            "\"sweep_advised\":%llu,\"compute_ms\":%.3f,\"read_s\":%.6f,\"busy_s\":%.6f}\n",
            dataset, pattern, method, run->round, (unsigned long long)o->rows,
            r->ok ? "true" : "false", r->elapsed, r->declare_seconds, (unsigned long long)r->bytes,
            r->ok && r->elapsed > 0 ? (double)r->bytes / (1 << 20) / r->elapsed : 0,
            (unsigned long long)r->raw_reads, (unsigned long long)r->hits,
            (unsigned long long)r->misses, (unsigned long long)r->unplanned,
            (unsigned long long)r->bytes_read, (unsigned long long)r->predicted,
            (unsigned long long)r->memory_peak, run->peak_rss_kib, o->budget,
            (unsigned long long)r->lookups, (unsigned long long)r->sweep_advised, run->compute_ms,
            r->read_seconds, r->busy_seconds);
  return !r->ok;
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
  total *= o.rounds * (o.compute_ms != 0 ? 2 : 1);
  if (o.compute_ms != 0) calibrate_compute();
  int chosen[NMETHODS], nchosen = 0; /* the listed methods, ordered among themselves */
  for (int mi = 0; mi < NMETHODS; ++mi)
    if (listed(o.methods, methods[mi])) chosen[nchosen++] = mi;
  for (int round = 0; round < o.rounds; ++round)
    for (int di = 0; di < NDATASETS; ++di)
      for (int pi = 0; pi < NPATTERNS; ++pi) {
        if (!listed(o.datasets, datasets[di].name) || !listed(o.patterns, patterns[pi])) continue;
        for (int pass = 0; pass < (o.compute_ms != 0 ? 2 : 1); ++pass) {
          double ms = 0;
          if (pass == 1) { /* with the computation: first the computation alone */
            ms = compute_for(&o, runs, nruns, di, pi, round);
            if (ms <= 0 || nruns >= MAX_RUNS) {
              fprintf(stderr, "pfio-h5bench: --compute auto needs a sec2 run that succeeded\n");
              return 2;
            }
            runs[nruns] = (Run){.dataset = di,
                                .pattern = pi,
                                .method = COMPUTE_ONLY,
                                .round = round,
                                .compute_ms = ms};
            run_compute_only(&o, &runs[nruns]);
            failed += report(&o, &runs[nruns++], 0, 0, json);
          }
          for (int step = 0; step < nchosen && nruns < MAX_RUNS; ++step) {
            const int mi = chosen[balanced_method(round, step, nchosen)];
            Run *run = &runs[nruns];
            *run =
                (Run){.dataset = di, .pattern = pi, .method = mi, .round = round, .compute_ms = ms};
            run_one(&o, run);
            ++nruns;
            failed += report(&o, run, ++done, total, json);
          }
        }
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
  printf("%-7s %-14s %10s %10s %10s %10s %10s %12s %12s %10s %10s\n", "dataset", "pattern", "sec2",
         "prefetch", "declared", "pf/sec2", "decl/sec2", "decl peakRSS", "sec2-cached", "engine",
         "A/A");
  for (int di = 0; di < NDATASETS; ++di)
    for (int pi = 0; pi < NPATTERNS; ++pi) {
      long rss[NMETHODS];
      double m[NMETHODS];
      if (!listed(o.datasets, datasets[di].name) || !listed(o.patterns, patterns[pi])) continue;
      for (int mi = 0; mi < NMETHODS; ++mi) m[mi] = median_rate(runs, nruns, di, pi, mi, &rss[mi]);
      const double sec2 = m[METHOD_SEC2];
      printf("%-7s %-14s %10.1f %10.1f %10.1f %9.2fx %9.2fx %8ld MiB %12.1f %10.1f %9.2fx\n",
             datasets[di].name, patterns[pi], sec2, m[METHOD_PREFETCH], m[METHOD_DECLARED],
             sec2 > 0 ? m[METHOD_PREFETCH] / sec2 : 0, sec2 > 0 ? m[METHOD_DECLARED] / sec2 : 0,
             rss[METHOD_DECLARED] / 1024, m[METHOD_SEC2_CACHED], m[METHOD_DECLARED_ENGINE],
             sec2 > 0 ? m[METHOD_SEC2_AGAIN] / sec2 : 0);
    }
  if (listed(o.methods, methods[METHOD_PREFETCH_CACHE_KIND]) ||
      listed(o.methods, methods[METHOD_DECLARED_CACHE_KIND])) {
    printf("%-7s %-14s %10s %10s %10s %10s %14s %14s\n", "dataset", "pattern", "prefetch",
           "pf-cache", "declared", "decl-cache", "pf-cache/pf", "decl-cache/decl");
    for (int di = 0; di < NDATASETS; ++di)
      for (int pi = 0; pi < NPATTERNS; ++pi) {
        long rss;
        double m[NMETHODS];
        if (!listed(o.datasets, datasets[di].name) || !listed(o.patterns, patterns[pi])) continue;
        for (int mi = 0; mi < NMETHODS; ++mi) m[mi] = median_rate(runs, nruns, di, pi, mi, &rss);
        const double pf = m[METHOD_PREFETCH], pf_cache = m[METHOD_PREFETCH_CACHE_KIND];
        const double decl = m[METHOD_DECLARED], decl_cache = m[METHOD_DECLARED_CACHE_KIND];
        printf("%-7s %-14s %10.1f %10.1f %10.1f %10.1f %13.2fx %13.2fx\n", datasets[di].name,
               patterns[pi], pf, pf_cache, decl, decl_cache, pf > 0 ? pf_cache / pf : 0,
               decl > 0 ? decl_cache / decl : 0);
      }
  }
  printf("seq (one reader, O_DIRECT 8 MiB reads of the whole file, %d in flight): %.1f MiB/s\n",
         SEQ_DEPTH, seq);
  if (o.compute_ms != 0) print_compute_table(&o, runs, nruns);
  if (json != NULL) {
    fprintf(json, "{\"seq_mib_s\":%.3f,\"rows\":%llu}\n", seq, (unsigned long long)o.rows);
    fclose(json);
  }
  if (failed) fprintf(stderr, "pfio-h5bench: %d run(s) failed\n", failed);
  return failed ? 1 : 0;
}
