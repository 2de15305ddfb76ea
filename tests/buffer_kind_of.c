/* buffer_kind_of PATH...: opens each PATH in one pfio context made with the default settings
 * (and the PFIO_* environment) and prints the buffer kind that buffer = auto chose for it,
 * "cache" or "engine", one line per path. Exit status 1 with pfio's message on any error. For
 * tests/mpi/run-testbed-test.sh: the rule (src/engine/buffer_rule.h) on a local file and on the
 * FUSE test bed's copy of it. */
#include <stdio.h>

#include "pfio/pfio.h"

int main(int argc, char **argv) {
  pfio_context *ctx = NULL;
  int i;
  if (argc < 2) {
    fprintf(stderr, "usage: buffer_kind_of PATH...\n");
    return 2;
  }
  if (pfio_context_create(NULL, &ctx) != PFIO_OK) {
    fprintf(stderr, "buffer_kind_of: %s\n", pfio_last_error());
    return 1;
  }
  for (i = 1; i < argc; ++i) {
    int32_t file = -1;
    int page_cache = -1;
    if (pfio_file_open(ctx, argv[i], &file) != PFIO_OK ||
        pfio_file_buffer(ctx, file, &page_cache) != PFIO_OK) {
      fprintf(stderr, "buffer_kind_of: %s\n", pfio_last_error());
      pfio_context_destroy(ctx);
      return 1;
    }
    printf("%s\n", page_cache ? "cache" : "engine");
  }
  return pfio_context_destroy(ctx) == PFIO_OK ? 0 : 1;
}
