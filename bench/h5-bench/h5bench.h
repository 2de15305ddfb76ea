/* What the parts of pfio-h5bench share (pfio_h5bench.c has the usage and the whole story):
 * the datasets, patterns and methods, the options, one run's result, and the functions each
 * part offers the others. One executable: no other users. */
#ifndef PFIO_H5BENCH_H
#define PFIO_H5BENCH_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/balanced_order.h"
#include "../common/busy_compute.h"
#include "../common/sequential_rate.h"
#include "H5FDprefetch.h"

#define MAX_RUNS 1024
#define SEQ_DEPTH 4 /* the sequential yardstick's reads in flight */
#define MARK "pfio-h5bench"

typedef struct {
  const char *name;
  hsize_t chunk_rows, chunk_cols; /* 0: contiguous */
  uint64_t seed;
} Dataset;

extern const Dataset datasets[];
extern const char *patterns[];
extern const char *methods[];
#define NDATASETS 4
#define NPATTERNS 4
#define NMETHODS 8
/* The methods by their place in methods[] (pfio_h5bench.c's usage says what each is). */
enum {
  METHOD_SEC2,
  METHOD_PREFETCH,
  METHOD_DECLARED,
  METHOD_SEC2_CACHED,
  METHOD_DECLARED_ENGINE,
  METHOD_PREFETCH_CACHE_KIND,
  METHOD_DECLARED_CACHE_KIND,
  METHOD_SEC2_AGAIN
};
/* Whether a method reads through HDF5's sec2 driver (no pfio); through pfio's driver otherwise. */
int method_is_sec2(int mi);
/* The methods run when --methods is not given (the cache-kind ones only when asked for). */
extern const char *default_methods;

typedef struct {
  const char *file, *datasets, *patterns, *methods, *json, *budget;
  hsize_t rows;
  int rounds, points, point_edge, quiet, lookup;
  double compute_ms; /* 0: none; > 0: ms per H5Dread; < 0: auto (sec2's read time per H5Dread) */
} Options;

/* What one run measured (sent from the child through a pipe). */
typedef struct {
  double elapsed, declare_seconds;
  double read_seconds, busy_seconds; /* inside H5Dread; in the computation between reads */
  uint64_t bytes, bad, raw_reads, hits, misses, unplanned, bytes_read, predicted, memory_peak,
      lookups, sweep_advised;
  int ok;
  char error[768];
} Result;

/* One selection: a block of rows and columns. */
typedef struct {
  hsize_t r0, c0, nr, nc;
} Slab;

typedef struct {
  int dataset, pattern, method, round; /* method COMPUTE_ONLY: the computation alone */
  double compute_ms;                   /* the computation per H5Dread of this run (0: none) */
  Result r;
  long peak_rss_kib;
} Run;
#define COMPUTE_ONLY (-1)

/* The busy loop's steps per second (h5bench_compute.c; 0 until calibrated). */
extern double busy_rate;

/* h5bench_util.c */
void usage(FILE *out);
double now(void);
int by_double(const void *a, const void *b); /* qsort's comparison of doubles, ascending */
int listed(const char *list, const char *name);
/* The first message on HDF5's error stack, into out (size bytes, always terminated). */
void hdf5_error(char *out, size_t size);
int check_list(const char *what, const char *list, const char *const *known, int n);
uint64_t value_of(const Dataset *d, hsize_t row, hsize_t col, hsize_t cols);

/* h5bench_file.c */
int file_state(const char *path, hsize_t rows);
int make_file(const Options *o);
void evict(const char *path);
void warm(const char *path);

/* h5bench_run.c */
void run_one(const Options *o, Run *run);
size_t selections(const Options *o, int di, int pi);
double sequential_rate(const char *path);
void lookup_cost(const Options *o, int n, double *by_coord_us, double *declare_us);

/* h5bench_compute.c */
void calibrate_compute(void);
double compute_for(const Options *o, const Run *runs, int nruns, int di, int pi, int round);
void run_compute_only(const Options *o, Run *run);
void print_compute_table(const Options *o, const Run *runs, int nruns);

#endif