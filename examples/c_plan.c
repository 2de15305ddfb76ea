/* pfio's C API with a plan: say which blocks you will read, in order, then read them.
 *
 *   c_plan FILE      (FILE is made: 64 MiB whose every 8-byte word holds its own offset)
 *
 * pfio reads the planned blocks ahead of the reads, many at a time, into its reorder buffer
 * within a memory budget; each pfio_read then takes its bytes from there. Build:
 *   cc c_plan.c $(pkg-config --cflags --libs pfio)
 */
#include <pfio/pfio.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FILE_SIZE (64u << 20)
#define BLOCK (256u << 10)
#define BLOCKS (FILE_SIZE / BLOCK)

static int check(pfio_status s, const char *what) {
  if (s == PFIO_OK) return 0;
  fprintf(stderr, "c_plan: %s: %s\n", what, pfio_last_error()); /* names the value and why */
  exit(1);
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: c_plan FILE\n"), 2;
  FILE *out = fopen(argv[1], "w"); /* a file whose every word says where it is */
  for (uint64_t off = 0; out != NULL && off < FILE_SIZE; off += 8) fwrite(&off, 8, 1, out);
  if (out == NULL || fclose(out) != 0) return perror(argv[1]), 1;

  pfio_config *config;
  pfio_context *ctx;
  int32_t file;
  check(pfio_config_create(&config), "config");
  check(pfio_config_set(config, "budget", "32M"), "budget"); /* at most 32 MiB held ahead */
  check(pfio_context_create(config, &ctx), "context");
  pfio_config_destroy(config);
  check(pfio_file_open(ctx, argv[1], &file), "open");

  /* The plan: every block once, in a scattered order (block k * 37 mod BLOCKS). */
  static pfio_extent plan[BLOCKS];
  for (uint32_t k = 0; k < BLOCKS; ++k)
    plan[k] = (pfio_extent){file, 0, (uint64_t)(k * 37 % BLOCKS) * BLOCK, BLOCK};
  check(pfio_plan_append(ctx, plan, BLOCKS), "plan");

  uint64_t *buf = malloc(BLOCK), nread, bad = 0;
  for (uint32_t k = 0; k < BLOCKS; ++k) { /* read as planned, checking every word */
    check(pfio_read(ctx, file, buf, plan[k].offset, BLOCK, &nread), "read");
    for (uint64_t w = 0; w < nread / 8; ++w) bad += buf[w] != plan[k].offset + w * 8;
  }
  pfio_stats stats;
  check(pfio_stats_get(ctx, &stats, sizeof stats), "stats");
  printf("c_plan: %u blocks of %u KiB, %llu wrong words; hits %llu, misses %llu, peak %llu KiB\n",
         BLOCKS, BLOCK >> 10, (unsigned long long)bad, (unsigned long long)stats.hits,
         (unsigned long long)stats.misses, (unsigned long long)(stats.memory_peak >> 10));
  free(buf);
  check(pfio_file_close(ctx, file), "close");
  check(pfio_context_destroy(ctx), "destroy");
  remove(argv[1]);
  return bad != 0;
}
