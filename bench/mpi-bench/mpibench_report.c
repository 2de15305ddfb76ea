/* pfio-mpibench: The report: the table of medians, the computation table, progress and JSON lines.
 */
#define _GNU_SOURCE
#include "mpibench.h"

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

void print_table(const Options *o, const Run *runs, int n, const char *const *methods,
                 int nmethods) {
  const char *const *all = all_workloads;
  long long rss;
  double seq = median_mib(runs, n, NULL, "seq", &rss);
  int w, m, aa_shown = 0;
  printf(
      "\nmedian MiB/s over %d round(s), %d ranks, file %.2f GiB, ior-hard and random in "
      "blocks of %lld bytes, %d per rank per call%s, %s; the slowest rank's time, open to last "
      "byte checked\n",
      o->rounds, nprocs, o->size / 1073741824.0, o->block, o->per_call,
      o->offsets ? " at explicit offsets (no view per call)" : "",
      o->hot ? "page cache hot (not evicted: the cost of the calls, not of the device)"
             : "page cache evicted before every run");
  printf("%-9s", "workload");
  for (m = 0; m < nmethods; ++m)
    if (strcmp(methods[m], "seq") != 0) printf(" %11s", methods[m]);
  printf(" %13s %12s %12s %12s\n", "pfio/stock", "pfio/seq", "pfio peakRSS", "stock A/A");
  for (w = 0; w < NWORKLOADS; ++w) {
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

void print_compute_table(const Options *o, const Run *runs, int n, const char *const *methods,
                         int nmethods) {
  const char *const *all = all_workloads;
  int w, m;
  printf(
      "\ncompute between reads: medians over %d round(s), the slowest rank's seconds; busy loop "
      "of %.0f steps/s per rank\n",
      o->rounds, busy_rate);
  printf("%-9s %-13s %9s %9s %9s %9s %9s %8s %8s %12s\n", "workload", "method", "ms/call",
         "io-alone", "compute", "total", "in-reads", "overlap", "hidden", "total/stock");
  for (w = 0; w < NWORKLOADS; ++w) {
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
    printf("%-9s %-13s %9.2f %9s %9.2f\n", all[w], "compute-only", ms, "-", c);
    for (m = 0; m < nmethods; ++m) {
      double io = median_field(runs, n, all[w], methods[m], 0, offsetof(Run, seconds));
      double t = median_field(runs, n, all[w], methods[m], 1, offsetof(Run, seconds));
      double r = median_field(runs, n, all[w], methods[m], 1, offsetof(Run, in_calls));
      double r_alone = median_field(runs, n, all[w], methods[m], 0, offsetof(Run, in_calls));
      double lo = io < c ? io : c;
      if (io < 0 || t < 0) continue;
      printf("%-9s %-13s %9.2f %9.2f %9.2f %9.2f %9.2f %8.2f %8.2f", all[w], methods[m], ms, io, c,
             t, r, lo > 0 ? (io + c - t) / lo : 0.0, r_alone > 0 ? (io + c - t) / r_alone : 0.0);
      if (best > 0)
        printf(" %11.2fx\n", t / best);
      else
        printf(" %12s\n", "-");
    }
  }
  printf(
      "overlap = (io-alone + compute - total) / min(io-alone, compute): 1 hides the shorter "
      "entirely, 0 not at all; hidden = the same saving / the time in the read calls without "
      "the computation (io-alone also holds the byte checks, which cannot be hidden); "
      "total/stock: against the better stock total\n");
}

/* Rank 0's progress line and JSON line of one run. */
void report_run(const Options *o, const Run *run, int done, int total, FILE *json,
                const char *version) {
  double mib = run->bytes / 1048576.0 / run->seconds;
  if (rank != 0) return;
  if (strcmp(run->method, "compute-only") == 0)
    printf("[%3d/%d] round %d %-8s %-11s %.2f ms per call  %6.2f s  computing %6.2f s\n", done,
           total, run->round, run->workload, run->method, run->compute_ms, run->seconds,
           run->busy_s);
  else {
    char aside[128] = "";
    if (run->to_romio >= 0 && run->judged > 0 && run->alone > 0)
      snprintf(aside, sizeof aside, "  ROMIO's path: %lld of %lld calls, read alone: %lld",
               run->to_romio, run->judged, run->alone);
    else if (run->to_romio >= 0 && run->judged > 0)
      snprintf(aside, sizeof aside, "  ROMIO's path: %lld of %lld %s", run->to_romio, run->judged,
               o->independent ? "reads" : "calls");
    printf(
        "[%3d/%d] round %d %-8s %-11s %8.1f MiB/s  %6.2f s  in calls %6.2f s"
        "  CPU %6.2f s  node busy %3.0f %%  peak RSS %lld MiB%s  verified%s\n",
        done, total, run->round, run->workload, run->method, mib, run->seconds, run->in_calls,
        run->cpu, 100 * run->node_busy, run->rss_max_kib / 1024,
        run->compute_ms > 0 ? "  +compute" : "", aside);
  }
  fflush(stdout);
  if (json)
    fprintf(json,
            "{\"workload\": \"%s\", \"method\": \"%s\", \"round\": %d, "
            "\"ranks\": %d, \"bytes\": %lld, \"seconds\": %.6f, "
            "\"in_calls\": %.6f, \"open_s\": %.6f, \"view_s\": %.6f, "
            "\"close_s\": %.6f, \"cpu_seconds\": %.6f, \"node_busy\": %.4f, \"mib_s\": %.3f, "
            "\"peak_rss_max_mib\": %.1f, \"compute_ms\": %.3f, \"busy_s\": %.6f, "
            "\"file_size\": %llu, \"budget\": \"%s\", \"mpi\": \"%s\", "
            "\"calls\": \"%s\", \"block\": %lld, \"per_call\": %d, \"cache\": \"%s\", "
            "\"verified\": %s, \"to_romio\": %lld, \"judged\": %lld, \"alone\": %lld, "
            "\"access\": \"%s\"}\n",
            run->workload, run->method, run->round, nprocs, run->bytes, run->seconds, run->in_calls,
            run->open_s, run->view_s, run->close_s, run->cpu, run->node_busy,
            run->bytes ? mib : 0.0, run->rss_max_kib / 1024.0, run->compute_ms, run->busy_s,
            o->size, o->budget ? o->budget : "auto", version,
            o->independent ? "independent" : "collective", o->block, o->per_call,
            o->hot ? "hot" : "cold", run->bytes ? "true" : "false", run->to_romio, run->judged,
            run->alone, o->offsets ? "offsets" : "view");
}

/* The computation per call for a workload in round r: --compute's value, or with auto the stock
 * driver's read time per call in this round (romio's, else ompio's), the same on every rank:
 * a run's times are reduced to rank 0 only, so rank 0 finds it and sends it to the others (the
 * first version read each rank's own copy, unset off rank 0, and ranks 1.. computed nothing). */
double compute_for(const Options *o, const Run *runs, int n, const Workload *w, int r) {
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
