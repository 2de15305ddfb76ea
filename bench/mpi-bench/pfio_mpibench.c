/* pfio-mpibench: out-of-core MPI-IO read patterns under mpirun, every method in one invocation.
 *
 * usage: mpirun -np N pfio-mpibench [--file PATH] [--size BYTES] [--workloads LIST]
 *                                   [--methods LIST] [--rounds R] [--budget BYTES]
 *                                   [--calls collective|independent] [--json PATH]
 *                                   [--per-call N] [--block BYTES] [--cache cold|hot]
 *                                   [--keep] [--help]
 * Workloads (all by default):
 *   ior-hard  blocks of --block bytes (47,008: IO500's ior-hard transfer size) interleaved over
 *             the ranks, --per-call blocks per rank (100) per MPI_File_read_all; IOR's own
 *             ior-hard reads one block per rank per call (--per-call 1)
 *   random    a seeded permutation of all blocks dealt to ranks and calls (--per-call per call)
 *   btio      a 3-D array of doubles per time step in a block decomposition over the ranks
 *             (MPI_Dims_create), subarray file views, one collective read per time step
 *   tiles     an out-of-core matrix (row-major doubles, 1024 x 1024 tiles): each rank reads its
 *             row of tiles, then its column, one tile per collective read (a blocked solver)
 *   restart   a checkpoint of 4 variables written by 2N+1 writers (each writer's piece after a
 *             4 KiB header) read back by the N ranks, 8 MiB of a variable per rank per call
 *   opens     what an open costs (many small files, a reader that opens per variable): 200
 *             opens of the file (fewer when it is small), each reading ior-hard's next call and
 *             closing; not in the default list
 *   small-files  many small files (--small-file bytes each, 4M; as many as --size holds, at most
 *             256) in a directory beside --file (FILE.small-BYTES/, made once and kept), each
 *             opened, read as ior-hard reads (--per-call blocks of --block per rank per call,
 *             interleaved over the ranks) and closed: what pfio costs per file when files are
 *             small; file k holds the pattern of bytes [k x size, (k+1) x size), so every byte
 *             read is checked as in the one file; not in the default list
 * Methods (those this MPI offers; all by default):
 *   ompio        Open MPI's OMPIO (the plain file name)
 *   romio        stock ROMIO: Open MPI: ROMIO 3.2.1 through pfio's io component with hint
 *                prefetch=stock (the same code as Open MPI's romio321); MPICH: the plain name
 *   pfio         the ad_prefetch driver ("prefetch:" name): the collective layer, look-ahead on
 *   pfio-declared  pfio, and right after the open every rank declares all its calls of the
 *                workload (pfio_mpi_file_plan, include/pfio/pfio_mpi.h; the time it takes is in
 *                the run's): what an application that knows its reads can tell pfio
 *   pfio-noplan  the driver with look-ahead across calls off (hint prefetch_coll_lookahead=0)
 *   pfio-engine  the driver reading through pfio's engine (O_DIRECT into the budget) instead of
 *                the page cache (hints prefetch_coll_path=engine, prefetch_read_path=engine)
 *   pfio-engine-cache  the same engine paths with the engine's page-cache buffer kind (hint
 *                prefetch_buffer=cache): its window, scheduler and budget advise the page cache;
 *                since 0.4 the driver's default kind, so the same as pfio (kept as a check)
 *   romio-again  stock ROMIO once more in every round, as a method of its own: romio-again /
 *                romio is what one invocation's run-to-run spread makes of two identical
 *                methods (an A/A comparison), the yardstick for small differences from stock
 *   seq          the limit: rank 0 reads the whole file sequentially (O_DIRECT, 8 MiB reads,
 *                4 in flight)
 * --calls independent reads with MPI_File_read instead of MPI_File_read_all (same views).
 * --access offsets reads each call's one extent with MPI_File_read_at_all (MPI_File_read_at
 *   independently) at its offset, the file's view as opened, as IOR does without -V; the default
 *   (view) sets a view of the call's extents before every call. Only for one extent per call
 *   (--per-call 1; ior-hard, random, opens).
 * --cache hot leaves the file in the page cache (it is read once when made or checked, and
 *   never evicted): what the methods' calls cost, without the device's time and its noise.
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
 * POSIX_FADV_DONTNEED; as root also /proc/sys/vm/drop_caches), every byte read is checked against
 * the self-verifying pattern (a wrong byte aborts with the offset), and the slowest rank's time is
 * reported: `elapsed` from the first open to the last byte checked (checking stands for the
 * application's computing, which a prefetcher overlaps). Methods run in a balanced order: over
 * nmethods rounds (2 x nmethods when odd) each method runs once at every place and right after
 * every other method equally often. Rank 0 prints progress, then a table of medians; --json appends
 * one line per run. Peak RSS is each rank's VmHWM during the run (reset before it); CPU is the user
 * + system seconds of every rank (its threads included) summed, from open to close. The JSON also
 * has the slowest rank's time inside the read calls (in_calls), MPI_File_open (open_s), all the
 * MPI_File_set_view calls (view_s) and MPI_File_close (close_s): where a run's time went. A pfio
 * run's line also says how many of its calls (collective) or reads (independent) the driver gave to
 * ROMIO's own path where that was faster (stepping aside; from the driver's job summary, hint
 * prefetch_stats, written to a temporary file unless PFIO_STATS is set; to_romio/judged in JSON).
 */
#define _GNU_SOURCE
#include "mpibench.h"

int rank, nprocs;
Options opts;
const char *const all_workloads[NWORKLOADS] = {"ior-hard", "random", "btio",       "tiles",
                                               "restart",  "opens",  "small-files"};

int main(int argc, char **argv) {
  const char *const all_methods[] = {"ompio",
                                     "romio",
                                     "pfio",
                                     "pfio-declared",
                                     "pfio-noplan",
                                     "pfio-engine",
                                     "pfio-engine-cache",
                                     "romio-again",
                                     "seq"};
  const char *methods[NMETHODS];
  char why[256], version[MPI_MAX_LIBRARY_VERSION_STRING];
  int nmethods = 0, skipped[NMETHODS] = {0}, i, w, m, r, nruns = 0, total = 0, done = 0, len;
  int nworkloads = 0, with_seq = 0, pass, passes, made;
  Run *runs;
  Workload workloads[NWORKLOADS];
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
    die("--methods: expected some of "
        "ompio,romio,pfio,pfio-declared,pfio-noplan,pfio-engine,pfio-engine-cache,romio-again,"
        "seq; "
        "got ",
        o.methods);
  for (w = 0; w < NWORKLOADS; ++w)
    if (listed(o.workloads, all_workloads[w])) {
      make_workload(&workloads[w], all_workloads[w], o.size);
      ++nworkloads;
    }
  for (m = 0; m < nmethods; ++m) with_seq |= strcmp(methods[m], "seq") == 0;
  passes = o.compute_ms != 0 ? 2 : 1; /* the I/O alone, then with the computation */
  total = o.rounds * (nworkloads * (nmethods - with_seq) + with_seq);
  if (passes == 2) total += o.rounds * nworkloads * (nmethods - with_seq + 1);
  if (nworkloads == 0)
    die("--workloads: expected some of ior-hard,random,btio,tiles,restart,opens,small-files; got ",
        o.workloads);
  runs = calloc(MAX_RUNS, sizeof *runs);
  MPI_Get_library_version(version, &len);
  version[strcspn(version, "\n")] = '\0';
  for (i = 0; version[i]; ++i) /* one line, no control characters (it goes into the JSON) */
    if ((unsigned char)version[i] < 0x20 || version[i] == '"' || version[i] == '\\')
      version[i] = ' ';
  if (rank == 0 && !o.prepare) {
    printf("pfio-mpibench: %d ranks, %s calls%s, %s\n", nprocs,
           o.independent ? "independent" : "collective", o.offsets ? " at explicit offsets" : "",
           version);
    if (o.json && (json = fopen(o.json, "a")) == NULL) die("cannot append to --json ", o.json);
  }
  made = make_file(&o);
  if (listed(o.workloads, "small-files") && !o.prepare)
    make_small_files(&o, &workloads[NWORKLOADS - 1]);
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
    for (w = 0; w < NWORKLOADS; ++w) {
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
          m = balanced_method(r, i, nmethods);
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
