/* pfio-mpibench: One run: a method reading a workload (every byte checked), the computation between
 * calls, the sequential yardstick. */
#define _GNU_SOURCE
#include "../../include/pfio/pfio_mpi.h"
#include "mpibench.h"

/* ---- one run ----------------------------------------------------------------------------- */

/* The computation's steps per second, agreed on by all ranks (0 until calibrated). */
double busy_rate;

void calibrate_compute(void) {
  double mine, sum;
  MPI_Barrier(MPI_COMM_WORLD);
  mine = busy_calibrate(0.3); /* every rank at once: the rate the ranks get side by side */
  MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  busy_rate = sum / nprocs;
}

static double compute_steps(double ms) {
  return ms / 1000.0 * busy_rate;
}

double cpu_seconds(void) {
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

/* Where pfio's driver writes its job summary (hint prefetch_stats), the same on every rank: rank
 * 0's temporary name; "" when PFIO_STATS names the user's own. */
static char summary_path[512];

static const char *summary_for_pfio(void) {
  static int made;
  if (!made) {
    const char *tmp = getenv("TMPDIR");
    if (rank == 0 && getenv("PFIO_STATS") == NULL)
      snprintf(summary_path, sizeof summary_path, "%s/pfio-mpibench.%ld.json",
               tmp && *tmp ? tmp : "/tmp", (long)getpid());
    MPI_Bcast(summary_path, sizeof summary_path, MPI_CHAR, 0, MPI_COMM_WORLD);
    made = 1;
  }
  return summary_path;
}

/* The number after `key` in `text` from `from` on; -1 when absent. */
static long long json_number(const char *from, const char *key) {
  const char *at = from ? strstr(from, key) : NULL;
  return at ? strtoll(at + strlen(key), NULL, 10) : -1;
}

/* After a pfio run's close: what the job summary says of stepping aside (rank 0), and the
 * summary and this rank's own stats file removed. */
static void read_stepping_aside(const Workload *w, Run *out) {
  char mine[600];
  out->to_romio = out->judged = out->alone = -1;
  if (summary_path[0] == '\0') return;
  snprintf(mine, sizeof mine, "%.*s.rank%d.json", (int)(strlen(summary_path) - 5), summary_path,
           rank);
  unlink(mine);
  MPI_Barrier(MPI_COMM_WORLD); /* rank 0 wrote the summary at close */
  if (rank != 0) return;
  FILE *f = fopen(summary_path, "r");
  char text[8192];
  size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  if (f) fclose(f);
  unlink(summary_path);
  text[n] = '\0';
  if (n == 0) return;
  if (opts.independent) {
    out->to_romio = json_number(text, "\"stepped_aside\": ");
    out->judged = (long long)w->calls * nprocs;
  } else {
    const char *coll = strstr(text, "\"collective\": {");
    out->to_romio = json_number(coll, "\"stepped_aside\": ");
    out->judged = json_number(coll, "\"calls\": ");
    out->alone = json_number(coll, "\"alone_calls\": ");
  }
}

/* Opens the file the way `method` selects its MPI-IO implementation; 0 when that method is not
 * available here (the reason in why). */
/* Opens `path` for `method`; `check` also asks MPI_File_get_info whether the method's driver
 * serves it (the first open of a run: a get_info at every reopen would be timed as the open's,
 * and costs in proportion to the hints squared with Open MPI, 73 with pfio against ROMIO's 22). */
static int open_for(const Options *o, const char *method, int summary, int check, const char *path,
                    MPI_File *fh, char *why, size_t size) {
  char name[4300], value[MPI_MAX_INFO_VAL + 1];
  MPI_Info info, got;
  int rc, flag = 0, ok = 1;
  MPI_Info_create(&info);
  snprintf(name, sizeof name, "%s", path);
  if (strncmp(method, "pfio", 4) == 0) {
    snprintf(name, sizeof name, "prefetch:%s", path);
    if (o->budget) MPI_Info_set(info, "prefetch_budget", o->budget);
    if (strcmp(method, "pfio-noplan") == 0) MPI_Info_set(info, "prefetch_coll_lookahead", "0");
    if (strcmp(method, "pfio-engine") == 0) {
      MPI_Info_set(info, "prefetch_coll_path", "engine");
      MPI_Info_set(info, "prefetch_read_path", "engine");
    }
    if (strcmp(method, "pfio-engine-cache") == 0) MPI_Info_set(info, "prefetch_buffer", "cache");
    if (summary && summary_for_pfio()[0]) MPI_Info_set(info, "prefetch_stats", summary_path);
  } else if (is_romio(method) && is_openmpi()) {
    MPI_Info_set(info, "prefetch", "stock");
  }
  rc = MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, info, fh);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) {
    snprintf(why, size, "MPI_File_open(%.200s) failed", name);
    return 0;
  }
  if (!check) return 1;
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

/* pfio-declared: every call of the workload declared to pfio at once (pfio_mpi_file_plan), the
 * extents in the order the call's view visits them. 0 (the reason in why) when pfio refused. */
static int declare_calls(MPI_File fh, const Workload *w, char *why, size_t size) {
  int *counts = malloc((size_t)w->calls * sizeof *counts), call, rc, flag = 0;
  MPI_Offset *off = NULL, *len = NULL;
  long long n = 0, cap = 0;
  Extents e = {0};
  char result[MPI_MAX_INFO_VAL + 1] = "";
  MPI_Info info;
  for (call = 0; call < w->calls; ++call) {
    e.n = 0;
    e.bytes = 0;
    w->extents(w, call, &e);
    counts[call] = e.n;
    if (n + e.n > cap) {
      cap = 2 * (n + e.n);
      off = realloc(off, (size_t)cap * sizeof *off);
      len = realloc(len, (size_t)cap * sizeof *len);
    }
    for (int i = 0; i < e.n; ++i, ++n) {
      off[n] = e.off[i];
      len[n] = e.len[i];
    }
  }
  rc = pfio_mpi_file_plan(fh, w->calls, counts, off, len);
  MPI_File_get_info(fh, &info);
  MPI_Info_get(info, "prefetch_plan_result", MPI_MAX_INFO_VAL, result, &flag);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS || !flag || strncmp(result, "declared", 8) != 0)
    snprintf(why, size, "pfio_mpi_file_plan did not declare the %d calls: %s", w->calls,
             flag ? result : "no prefetch_plan_result");
  free(counts);
  free(off);
  free(len);
  free(e.off);
  free(e.len);
  return rc == MPI_SUCCESS && flag && strncmp(result, "declared", 8) == 0;
}

/* Every byte of the call against the pattern, a word at a time where the file offset is a
 * multiple of 8 (the check is part of the timed run: it stands for the application's work). */
static void wrong_byte(const Workload *w, int call, long long offset) {
  fprintf(stderr, "pfio-mpibench: WRONG BYTE: workload %s call %d rank %d file offset %lld\n",
          w->name, call, rank, offset);
  sleep(1);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

void check(const Workload *w, int call, const Extents *e, const unsigned char *buf) {
  int i;
  for (i = 0; i < e->n; ++i) {
    long long off = e->base + e->off[i], end = off + e->len[i];
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

/* Whether `call` starts an open of its own (opens: each; small-files: each file's first). */
static int opens_at(const Workload *w, int call) {
  return w->reopen || (w->files > 0 && call % w->calls_per_file == 0);
}

/* The file `call` reads. */
static void path_of(const Options *o, const Workload *w, int call, char *path, size_t size) {
  if (w->files > 0)
    small_file_path(o, call / w->calls_per_file, path, size);
  else
    snprintf(path, size, "%s", o->file);
}

int run_mpiio(const Options *o, const Workload *w, const char *method, double compute_ms, Run *out,
              char *why, size_t size) {
  MPI_File fh;
  Extents e = {0};
  unsigned char *buf = NULL;
  long long cap = 0, bytes = 0, all_bytes = 0, rss, node_busy0, node_all0;
  double t0, t_in = 0, t, secs, in_max = 0, cpu0, cpu, phase[3] = {0, 0, 0}; /* open, view, close */
  double busy = 0, steps = compute_steps(compute_ms);
  int call, ok, summary = !w->reopen && w->files == 0;
  char path[4200];
  if (!o->hot) evict(o, w);
  reset_peak_rss();
  MPI_Barrier(MPI_COMM_WORLD);
  cpu0 = cpu_seconds();
  node_cpu_ticks(&node_busy0, &node_all0);
  t0 = MPI_Wtime();
  path_of(o, w, 0, path, sizeof path);
  ok = open_for(o, method, summary, 1, path, &fh, why, size);
  phase[0] = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!ok) return 0;
  if (strcmp(method, "pfio-declared") == 0) {
    if (opts.independent || w->files > 0) {
      snprintf(why, size, "%s",
               w->files > 0 ? "a declared plan is one file's (small-files reads many)"
                            : "declared plans are for collective reads (--calls independent)");
      MPI_File_close(&fh);
      return 0;
    }
    ok = declare_calls(fh, w, why, size);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok) {
      MPI_File_close(&fh);
      return 0;
    }
  }
  for (call = 0; call < w->calls; ++call) {
    MPI_Status st;
    if (call > 0 && opens_at(w, call)) { /* opens, small-files: an open of its own */
      t = MPI_Wtime();
      path_of(o, w, call, path, sizeof path);
      ok = open_for(o, method, summary, 0, path, &fh, why, size);
      phase[0] += MPI_Wtime() - t;
      if (!ok) die("reopening the file failed with method ", method);
    }
    e.n = 0;
    e.bytes = 0;
    e.base = 0;
    w->extents(w, call, &e);
    if (e.bytes > cap) {
      cap = e.bytes;
      buf = realloc(buf, (size_t)cap);
    }
    if (opts.offsets) { /* IOR's way: the call's one extent at its offset, the view as opened */
      if (e.n != 1) die("--access offsets: a call has other than one extent, workload ", w->name);
      t = MPI_Wtime();
      if ((opts.independent
               ? MPI_File_read_at(fh, (MPI_Offset)e.off[0], buf, (int)e.bytes, MPI_BYTE, &st)
               : MPI_File_read_at_all(fh, (MPI_Offset)e.off[0], buf, (int)e.bytes, MPI_BYTE,
                                      &st)) != MPI_SUCCESS)
        die("the read failed with method ", method);
    } else {
      t = MPI_Wtime();
      set_view(fh, &e);
      phase[1] += MPI_Wtime() - t;
      t = MPI_Wtime();
      if ((opts.independent
               ? MPI_File_read(fh, buf, (int)e.bytes, MPI_BYTE, &st)
               : MPI_File_read_all(fh, buf, (int)e.bytes, MPI_BYTE, &st)) != MPI_SUCCESS)
        die("the read failed with method ", method);
    }
    t_in += MPI_Wtime() - t;
    check(w, call, &e, buf);
    if (steps > 0) busy += busy_compute(steps);
    bytes += e.bytes;
    if (call + 1 < w->calls && opens_at(w, call + 1)) {
      t = MPI_Wtime();
      MPI_File_close(&fh);
      phase[2] += MPI_Wtime() - t;
    }
  }
  t = MPI_Wtime();
  MPI_File_close(&fh);
  phase[2] += MPI_Wtime() - t;
  secs = MPI_Wtime() - t0;
  /* opens, small-files: no summary (writing it is part of a close, which they measure) */
  out->to_romio = out->judged = out->alone = -1;
  if (strncmp(method, "pfio", 4) == 0 && summary) read_stepping_aside(w, out);
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
  out->node_busy = node_busy_since(node_busy0, node_all0); /* every rank has finished */
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
void recalibrate_compute(const Workload *w, double compute_ms) {
  Run probe = {0};
  double nominal = w->calls * compute_ms / 1000.0, scale = 1;
  run_compute_only(w, compute_ms, &probe);
  if (rank == 0 && probe.seconds > 0) scale = nominal / probe.seconds;
  MPI_Bcast(&scale, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (scale > 0.1 && scale < 10) busy_rate *= scale;
}

/* The computation alone: the workload's calls with no I/O, compute_ms each. */
void run_compute_only(const Workload *w, double compute_ms, Run *out) {
  double t0, secs, busy = 0, steps = compute_steps(compute_ms);
  long long node_busy0, node_all0;
  int call;
  MPI_Barrier(MPI_COMM_WORLD);
  node_cpu_ticks(&node_busy0, &node_all0);
  t0 = MPI_Wtime();
  for (call = 0; call < w->calls; ++call) busy += busy_compute(steps);
  secs = MPI_Wtime() - t0;
  MPI_Reduce(&secs, &out->seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&busy, &out->busy_s, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  out->node_busy = node_busy_since(node_busy0, node_all0);
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
int run_seq(const Options *o, Run *out) {
  double t0, cpu0;
  long long node_busy0, node_all0;
  sequential_result r = {0};
  evict(o, NULL);
  reset_peak_rss();
  cpu0 = cpu_seconds();
  node_cpu_ticks(&node_busy0, &node_all0);
  t0 = MPI_Wtime();
  if (rank == 0 && sequential_read(o->file, 8 << 20, SEQ_DEPTH, seq_check, NULL, &r) != 0)
    die("the sequential read (the device limit) failed: ", r.error);
  out->seconds = MPI_Wtime() - t0;
  out->cpu = cpu_seconds() - cpu0;
  out->in_calls = out->seconds;
  out->bytes = (long long)r.bytes;
  out->rss_max_kib = peak_rss_kib();
  out->node_busy = node_busy_since(node_busy0, node_all0);
  MPI_Barrier(MPI_COMM_WORLD);
  return 1;
}

/* Whether the device limit was measured in round r already (once per round). */
int done_seq_round(int r) {
  static int last = -1;
  if (last == r) return 1;
  last = r;
  return 0;
}
