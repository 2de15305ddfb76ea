/* A program outside pfio's tree, built against the installed library (find_package(pfio) or
 * pkg-config) and written in C, as an application would be. It writes a self-verifying file
 * (each 8-byte word holds its own offset), plans random 4 KiB blocks, reads them with pfio_read
 * and pfio_readv, and checks every byte. Exit 0 only if all of that holds. */
#include <pfio/pfio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 4096
#define BLOCKS 1024 /* a 4 MiB file */
#define READS 200

static int Check(const char *what, pfio_status s) {
  if (s == PFIO_OK) return 0;
  fprintf(stderr, "consumer: %s: %s: %s\n", what, pfio_strerror(s), pfio_last_error());
  return 1;
}

static int Holds(const unsigned char *buf, uint64_t offset) {
  for (uint64_t w = 0; w < BLOCK / 8; ++w) {
    uint64_t v;
    memcpy(&v, buf + 8 * w, 8);
    if (v != offset + 8 * w) return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: consumer SCRATCH_FILE\n");
    return 2;
  }
  if (pfio_version() != PFIO_VERSION_NUMBER) {
    fprintf(stderr, "consumer: library %s, header %d.%d.%d\n", pfio_version_string(),
            PFIO_VERSION_MAJOR, PFIO_VERSION_MINOR, PFIO_VERSION_PATCH);
    return 1;
  }
  FILE *out = fopen(argv[1], "wb");
  if (!out) return 1;
  for (uint64_t w = 0; w < (uint64_t)BLOCK * BLOCKS / 8; ++w) {
    uint64_t v = 8 * w;
    fwrite(&v, 8, 1, out);
  }
  fclose(out);

  pfio_config *cfg = NULL;
  pfio_context *ctx = NULL;
  int32_t f = -1;
  if (Check("config", pfio_config_create(&cfg)) ||
      Check("budget", pfio_config_set(cfg, "budget", "8M")) ||
      Check("context", pfio_context_create(cfg, &ctx)))
    return 1;
  pfio_config_destroy(cfg);
  if (Check("open", pfio_file_open(ctx, argv[1], &f))) return 1;

  pfio_extent plan[READS];
  srand(7);
  for (int i = 0; i < READS; ++i) {
    plan[i].file = f;
    plan[i].marked = 0;
    plan[i].offset = (uint64_t)(rand() % BLOCKS) * BLOCK;
    plan[i].length = BLOCK;
  }
  if (Check("plan", pfio_plan_append(ctx, plan, READS))) return 1;
  static unsigned char bufs[2][BLOCK];
  uint64_t verified = 0;
  for (int i = 0; i < READS; i += 2) {
    uint64_t n = 0;
    if (i % 4 == 0) {
      if (Check("read", pfio_read(ctx, f, bufs[0], plan[i].offset, BLOCK, &n))) return 1;
      if (Check("read", pfio_read(ctx, f, bufs[1], plan[i + 1].offset, BLOCK, &n))) return 1;
    } else {
      pfio_read_piece pieces[2] = {{bufs[0], plan[i].offset, BLOCK},
                                   {bufs[1], plan[i + 1].offset, BLOCK}};
      if (Check("readv", pfio_readv(ctx, f, pieces, 2, &n))) return 1;
      if (n != 2 * BLOCK) return 1;
    }
    if (!Holds(bufs[0], plan[i].offset) || !Holds(bufs[1], plan[i + 1].offset)) {
      fprintf(stderr, "consumer: wrong bytes at read %d\n", i);
      return 1;
    }
    verified += 2 * BLOCK;
  }
  pfio_stats st;
  if (Check("stats", pfio_stats_get(ctx, &st, sizeof st))) return 1;
  if (Check("destroy", pfio_context_destroy(ctx))) return 1;
  printf("consumer: pfio %s, %llu bytes verified, %llu of %d reads from the reorder buffer\n",
         pfio_version_string(), (unsigned long long)verified, (unsigned long long)st.hits, READS);
  return st.reads == READS ? 0 : 1;
}
