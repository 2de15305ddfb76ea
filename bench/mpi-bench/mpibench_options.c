/* pfio-mpibench: The command line: options, their parsing and usage. */
#define _GNU_SOURCE
#include "mpibench.h"

/* ---- options ----------------------------------------------------------------------------- */

void die(const char *what, const char *value) {
  if (rank == 0) fprintf(stderr, "pfio-mpibench: %s%s\n", what, value ? value : "");
  sleep(1); /* lets the launcher forward the message before the abort ends the job */
  MPI_Abort(MPI_COMM_WORLD, 2);
}

void usage(void) {
  if (rank == 0)
    printf(
        "usage: mpirun -np N pfio-mpibench [--file PATH] [--size BYTES (1G)]\n"
        "         [--workloads ior-hard,random,btio,tiles,restart[,opens,small-files]]\n"
        "         [--rounds R (3)] [--small-file BYTES (4M)]\n"
        "         [--methods "
        "ompio,romio,pfio,pfio-declared,pfio-noplan,pfio-engine,pfio-engine-cache,romio-again,seq]"
        "\n"
        "         [--budget BYTES] [--per-call N (100)] [--block BYTES (47008)]\n"
        "         [--cache cold|hot (cold)]\n"
        "         [--calls collective|independent] [--access view|offsets (view)]\n"
        "         [--compute MS|auto]\n"
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

Options parse(int argc, char **argv) {
  Options o = {.file = "pfio-mpibench.data",
               .workloads = "ior-hard,random,btio,tiles,restart",
               .methods = "ompio,romio,pfio,pfio-noplan,pfio-engine,romio-again,seq",
               .size = 1ULL << 30,
               .rounds = 3,
               .block = DEFAULT_BLOCK,
               .per_call = DEFAULT_PER_CALL,
               .small_file = 4LL << 20};
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
    else if (strcmp(a, "--cache") == 0 && (strcmp(v, "cold") == 0 || strcmp(v, "hot") == 0))
      o.hot = strcmp(v, "hot") == 0;
    else if (strcmp(a, "--cache") == 0)
      die("--cache: expected cold (the file evicted before every run) or hot, got ", v);
    else if (strcmp(a, "--per-call") == 0) {
      char *end;
      long n = strtol(v, &end, 10);
      if (end == v || *end != '\0' || n < 1 || n > 100000)
        die("--per-call: expected blocks per rank per call, 1 to 100000, got ", v);
      o.per_call = (int)n;
    } else if (strcmp(a, "--block") == 0) {
      o.block = (long long)parse_size(a, v);
      if (o.block < 8 || o.block > (64LL << 20) || o.block % 8 != 0)
        die("--block: expected bytes per block, a multiple of 8 from 8 to 64M, got ", v);
    } else if (strcmp(a, "--small-file") == 0) {
      o.small_file = (long long)parse_size(a, v);
      if (o.small_file < 4096 || o.small_file % 8 != 0)
        die("--small-file: expected bytes per small file, a multiple of 8 of at least 4K, got ", v);
    } else if (strcmp(a, "--calls") == 0 &&
               (strcmp(v, "collective") == 0 || strcmp(v, "independent") == 0))
      o.independent = strcmp(v, "independent") == 0;
    else if (strcmp(a, "--calls") == 0)
      die("--calls: expected collective or independent, got ", v);
    else if (strcmp(a, "--access") == 0 && (strcmp(v, "view") == 0 || strcmp(v, "offsets") == 0))
      o.offsets = strcmp(v, "offsets") == 0;
    else if (strcmp(a, "--access") == 0)
      die("--access: expected view (a file view per call) or offsets (explicit offsets), got ", v);
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
  if (o.offsets && o.per_call != 1) {
    char n[32];
    snprintf(n, sizeof n, "%d", o.per_call);
    die("--access offsets: a call reads one extent at its offset; expected --per-call 1, got ", n);
  }
  if (o.offsets && (listed(o.workloads, "btio") || listed(o.workloads, "tiles") ||
                    listed(o.workloads, "restart")))
    die("--access offsets: btio, tiles and restart read several extents per call (a view); "
        "expected --workloads among ior-hard, random, opens, small-files, got ",
        o.workloads);
  return o;
}

int listed(const char *list, const char *name) {
  size_t n = strlen(name);
  const char *p = list;
  while ((p = strstr(p, name)) != NULL) {
    if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
    p += n;
  }
  return 0;
}
