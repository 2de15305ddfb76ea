/* What the parts of pfio-mpibench share (pfio_mpibench.c has the usage and the whole story):
 * the options, the extents of one call, the workloads, one run's figures, and the functions
 * each part offers the others. One executable: not installed, no other users. */
#ifndef PFIO_MPIBENCH_H
#define PFIO_MPIBENCH_H

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
#include "../common/balanced_order.h"
#include "../common/busy_compute.h"
#include "../common/sequential_rate.h"

#define SEED 23
#define DEFAULT_BLOCK 47008 /* IO500's ior-hard transfer size */
#define DEFAULT_PER_CALL 100
#define MAX_RUNS 4096
#define SEQ_DEPTH 4 /* the sequential yardstick's reads in flight */
#define NMETHODS                                                                \
  9 /* ompio romio pfio pfio-declared pfio-noplan pfio-engine pfio-engine-cache \
       romio-again seq */

extern int rank, nprocs; /* this rank in MPI_COMM_WORLD, and how many */

typedef struct {
  const char *file, *workloads, *methods, *json, *budget;
  unsigned long long size;
  int rounds, keep, independent, prepare;
  int offsets;          /* --access offsets: MPI_File_read_at(_all) at each call's one extent, no
                           view per call (IOR's default, without -V); else a view per call */
  long long block;      /* ior-hard and random: bytes per block */
  int per_call;         /* ior-hard and random: blocks per rank per call */
  long long small_file; /* small-files: bytes per file */
  int hot;              /* --cache hot: the file stays in the page cache (the cost of a call) */
  double compute_ms;    /* 0: none; < 0: auto (the stock driver's read time per call) */
} Options;

typedef struct {
  long long *off, *len; /* offsets in the open file */
  int n, cap;
  long long bytes;
  long long base; /* the pattern's offset of the open file's first byte (small-files) */
} Extents;

typedef struct Workload Workload;
struct Workload {
  const char *name;
  int calls;
  long long *perm;               /* random */
  int dims[3], grid, steps;      /* btio: process grid, global cube side, time steps */
  long long m, tile, tiles;      /* tiles: matrix side, tile side (doubles), tiles per side */
  long long var, writers, share; /* restart */
  int reopen;                    /* opens: every call in an open of its own */
  int files, calls_per_file;     /* small-files: files read, calls in each (0: one file) */
  void (*extents)(const Workload *w, int call, Extents *e);
};

typedef struct {
  const char *workload, *method;
  int round;
  double seconds, in_calls, cpu;  /* cpu: user + system seconds of every rank, threads included */
  double open_s, view_s, close_s; /* the slowest rank's time in MPI_File_open, set_view, close */
  double compute_ms;              /* computation per call (0: the I/O alone) */
  double busy_s;                  /* the slowest rank's time in the computation */
  long long bytes, rss_max_kib;
  double node_busy; /* share of rank 0's node's CPU time busy during the run (-1: unknown) */
  /* pfio's driver stepping aside (its job summary): calls (collective) or reads (independent)
   * it gave to ROMIO's path, of how many; -1 when unknown (not pfio, or PFIO_STATS set) */
  long long to_romio, judged;
  long long alone; /* collective calls pfio's layer had each rank read alone, -1: none known */
} Run;

/* The workloads, in the order tables list them; NWORKLOADS of them. */
#define NWORKLOADS 7
extern const char *const all_workloads[NWORKLOADS];

extern Options opts;
/* The computation's steps per second, agreed on by all ranks (0 until calibrated). */
extern double busy_rate;

/* mpibench_options.c */
void die(const char *what, const char *value);
void usage(void);
Options parse(int argc, char **argv);
int listed(const char *list, const char *name);

/* mpibench_workloads.c */
void make_workload(Workload *w, const char *name, unsigned long long size);

/* mpibench_file.c */
int make_file(const Options *o);
void small_file_path(const Options *o, int k, char *path, size_t size);
void make_small_files(const Options *o, const Workload *w);
void evict(const Options *o, const Workload *w);
void reset_peak_rss(void);
long long peak_rss_kib(void);
void node_cpu_ticks(long long *busy, long long *all);
double node_busy_since(long long busy0, long long all0);

/* mpibench_run.c */
void calibrate_compute(void);
double cpu_seconds(void);
void check(const Workload *w, int call, const Extents *e, const unsigned char *buf);
int run_mpiio(const Options *o, const Workload *w, const char *method, double compute_ms, Run *out,
              char *why, size_t size);
void recalibrate_compute(const Workload *w, double compute_ms);
void run_compute_only(const Workload *w, double compute_ms, Run *out);
int run_seq(const Options *o, Run *out);
int done_seq_round(int r);

/* mpibench_report.c */
void print_table(const Options *o, const Run *runs, int n, const char *const *methods,
                 int nmethods);
void print_compute_table(const Options *o, const Run *runs, int n, const char *const *methods,
                         int nmethods);
void report_run(const Options *o, const Run *run, int done, int total, FILE *json,
                const char *version);
double compute_for(const Options *o, const Run *runs, int n, const Workload *w, int r);

#endif
