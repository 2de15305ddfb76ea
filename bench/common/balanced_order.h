/* The order of a benchmark's methods round by round, for the benchmarks that alternate them.
 *
 * Contract: balanced_method(round, place, n) is the method (0 .. n-1) that runs at `place` (0 ..
 * n-1) of round `round` (0, 1, ...). Every round runs each method once. Over n rounds (2n when n
 * is odd) each method runs once at every place and right after every other method equally often
 * (a Williams design), so that whatever a run leaves behind for the next one (the host's cache of
 * a virtual disk, a device's state, the same chunks read again) falls on every method alike; a
 * rotation put each method always right after the same one. Pure; any thread.
 */
#ifndef PFIO_BENCH_BALANCED_ORDER_H
#define PFIO_BENCH_BALANCED_ORDER_H

#ifdef __cplusplus
extern "C" {
#endif

int balanced_method(int round, int place, int n);

#ifdef __cplusplus
}
#endif

#endif
