/* pfio-h5bench: computation between reads (--compute): the busy loop's rate, the computation per
 * H5Dread, the computation alone, and the table of time to solution and overlap. */
#define _GNU_SOURCE
#include "h5bench.h"

double busy_rate;

void calibrate_compute(void) {
  busy_rate = busy_calibrate(0.3);
}

/* --compute's value, or with auto sec2's time inside H5Dread per selection in this round's run
 * without computation; -1 when there is none (sec2 not among the methods, or its run failed). */
double compute_for(const Options *o, const Run *runs, int nruns, int di, int pi, int round) {
  if (o->compute_ms > 0) return o->compute_ms;
  for (int i = 0; i < nruns; ++i) {
    const Run *r = &runs[i];
    if (r->dataset == di && r->pattern == pi && r->round == round && r->method == METHOD_SEC2 &&
        r->compute_ms == 0 && r->r.ok)
      return r->r.read_seconds / (double)selections(o, di, pi) * 1000.0;
  }
  return -1;
}

/* The computation alone: one busy loop of run->compute_ms per selection, no I/O. */
void run_compute_only(const Options *o, Run *run) {
  const size_t n = selections(o, run->dataset, run->pattern);
  const double steps = run->compute_ms / 1000.0 * busy_rate, t0 = now();
  memset(&run->r, 0, sizeof run->r);
  for (size_t i = 0; i < n; ++i) run->r.busy_seconds += busy_compute(steps);
  run->r.elapsed = now() - t0;
  run->r.ok = 1;
}

/* The median of a Result field over the rounds' runs of (di, pi, mi), with or without
 * computation; -1 when there is none. */
static double median_of(const Run *runs, int nruns, int di, int pi, int mi, int with_compute,
                        size_t field) {
  double v[MAX_RUNS];
  int n = 0;
  for (int i = 0; i < nruns; ++i) {
    const Run *r = &runs[i];
    if (r->dataset == di && r->pattern == pi && r->method == mi && r->r.ok &&
        (r->compute_ms > 0) == with_compute)
      v[n++] = *(const double *)((const char *)&r->r + field);
  }
  if (n == 0) return -1;
  qsort(v, (size_t)n, sizeof *v, by_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void print_compute_table(const Options *o, const Run *runs, int nruns) {
  printf(
      "\ncomputation between reads: medians over %d round(s), seconds; busy loop of %.0f "
      "steps/s\n",
      o->rounds, busy_rate);
  printf("%-7s %-14s %-17s %8s %9s %9s %9s %9s %8s %8s %11s\n", "dataset", "pattern", "method",
         "ms/read", "io-alone", "compute", "total", "in-reads", "overlap", "hidden", "total/sec2");
  for (int di = 0; di < NDATASETS; ++di)
    for (int pi = 0; pi < NPATTERNS; ++pi) {
      const double c = median_of(runs, nruns, di, pi, COMPUTE_ONLY, 1, offsetof(Result, elapsed));
      const double sec2 = median_of(runs, nruns, di, pi, METHOD_SEC2, 1, offsetof(Result, elapsed));
      double ms = -1;
      if (c < 0) continue;
      for (int i = 0; i < nruns; ++i)
        if (runs[i].dataset == di && runs[i].pattern == pi && runs[i].method == COMPUTE_ONLY)
          ms = runs[i].compute_ms;
      for (int mi = 0; mi < NMETHODS; ++mi) {
        const double io = median_of(runs, nruns, di, pi, mi, 0, offsetof(Result, elapsed));
        const double t = median_of(runs, nruns, di, pi, mi, 1, offsetof(Result, elapsed));
        const double r = median_of(runs, nruns, di, pi, mi, 1, offsetof(Result, read_seconds));
        const double r0 = median_of(runs, nruns, di, pi, mi, 0, offsetof(Result, read_seconds));
        const double lo = io < c ? io : c;
        if (io < 0 || t < 0) continue;
        printf("%-7s %-14s %-17s %8.2f %9.2f %9.2f %9.2f %9.2f %8.2f %8.2f", datasets[di].name,
               patterns[pi], methods[mi], ms, io, c, t, r, lo > 0 ? (io + c - t) / lo : 0.0,
               r0 > 0 ? (io + c - t) / r0 : 0.0);
        if (sec2 > 0)
          printf(" %10.2fx\n", t / sec2);
        else
          printf(" %11s\n", "-");
      }
    }
  printf(
      "overlap = (io-alone + compute - total) / min(io-alone, compute): 1 hides the shorter "
      "entirely; hidden = the same saving / the time inside H5Dread without the computation "
      "(io-alone also holds opening, declaring and checking, which cannot be hidden)\n");
}
