/* Computation between reads: see busy_compute.h. */
#define _GNU_SOURCE
#include "busy_compute.h"

#include <stdint.h>
#include <time.h>

#define STEP_ITERATIONS 1024 /* one step: ~1-3 us on the test machine */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One step: a xorshift chain the compiler cannot fold (the result feeds a volatile sink). */
static volatile uint64_t sink;
static void step(void) {
  uint64_t x = sink | 1;
  int i;
  for (i = 0; i < STEP_ITERATIONS; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  sink = x;
}

double busy_calibrate(double seconds) {
  double t0 = now(), t;
  uint64_t steps = 0;
  do {
    int k;
    for (k = 0; k < 64; ++k) step();
    steps += 64;
    t = now();
  } while (t - t0 < seconds);
  return (double)steps / (t - t0);
}

double busy_compute(double steps) {
  double t0 = now();
  uint64_t n = (uint64_t)(steps + 0.5), i;
  for (i = 0; i < n; ++i) step();
  return now() - t0;
}
