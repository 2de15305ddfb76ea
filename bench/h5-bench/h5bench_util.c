/* pfio-h5bench: small helpers: usage, time, lists, the value of an element. */
#define _GNU_SOURCE
#include "h5bench.h"

void usage(FILE *out) {
  fputs(
      "usage: pfio-h5bench [--file PATH] [--rows N] [--datasets LIST] [--patterns LIST]\n"
      "                    [--methods LIST] [--rounds R] [--budget SIZE] [--points N]\n"
      "                    [--point-edge E] [--json PATH] [--compute MS|auto] [--lookup] [--quiet] "
      "[--help]\n"
      "  datasets: c8k c128k c1m contig (N x N uint64, chunks 8 KiB, 128 KiB, 1 MiB, none)\n"
      "  patterns: tiles columns rows random-points\n"
      "  methods:  sec2 prefetch prefetch-declared sec2-cached declared-engine sec2-again\n"
      "            prefetch-cache-kind declared-cache-kind (only when named)\n"
      "  defaults: --file pfio-h5bench.h5 --rows 8192 --rounds 1 --budget 256M --points 2048,\n"
      "            --point-edge 4 (random-points: E x E hyperslabs),\n"
      "            every dataset and pattern, every method but the cache-kind ones\n",
      out);
}

int by_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Whether `name` is in the comma-separated `list` (NULL: everything is). */
int listed(const char *list, const char *name) {
  size_t n = strlen(name);
  const char *p = list;
  if (list == NULL) return 1;
  while ((p = strstr(p, name)) != NULL) {
    if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
    p += n;
  }
  return 0;
}

/* Where the first description on HDF5's error stack goes (hdf5_error). */
typedef struct {
  char *out;
  size_t size;
  int found;
} FirstDescription;

static herr_t first_description(unsigned n, const H5E_error2_t *e, void *arg) {
  FirstDescription *first = arg;
  (void)n;
  if (!first->found && e->desc != NULL) {
    snprintf(first->out, first->size, "%s", e->desc);
    first->found = 1;
  }
  return 0;
}

void hdf5_error(char *out, size_t size) {
  FirstDescription first = {out, size, 0};
  if (size == 0) return;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, first_description, &first);
  if (!first.found) snprintf(out, size, "%s", "no message on HDF5's error stack");
}

/* Every name in `list` is one of `known`; else prints which is not and returns 0. */
int check_list(const char *what, const char *list, const char *const *known, int n) {
  char copy[256], *tok, *save = NULL;
  if (list == NULL) return 1;
  snprintf(copy, sizeof copy, "%s", list);
  for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int i, found = 0;
    for (i = 0; i < n; ++i) found |= strcmp(tok, known[i]) == 0;
    if (!found) {
      fprintf(stderr, "pfio-h5bench: --%s: '%s' is not one of", what, tok);
      for (i = 0; i < n; ++i) fprintf(stderr, " %s", known[i]);
      fputc('\n', stderr);
      return 0;
    }
  }
  return 1;
}

uint64_t value_of(const Dataset *d, hsize_t row, hsize_t col, hsize_t cols) {
  return d->seed << 40 | (row * cols + col);
}
