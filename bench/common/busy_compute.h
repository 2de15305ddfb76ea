/* Computation between reads, for the benchmarks: a busy loop of a calibrated amount of work.
 *
 * Contract: busy_calibrate(seconds) runs the loop for about `seconds` of wall time and returns
 * how many of its steps this thread did per second (> 0). busy_compute(steps) does `steps` steps
 * of the same loop and returns the wall seconds it took. The loop is arithmetic on the CPU (no
 * sleeping, no memory traffic beyond a few registers), so it competes for the core with whatever
 * else runs (I/O threads, other ranks, a storage server): a fixed amount of work, like an
 * application's computing, not a fixed delay. The work per step is the same for every caller, so
 * ranks that calibrate together and agree on one rate do the same work per call. Thread-safe.
 */
#ifndef PFIO_EXAMPLES_BUSY_COMPUTE_H
#define PFIO_EXAMPLES_BUSY_COMPUTE_H

#ifdef __cplusplus
extern "C" {
#endif

double busy_calibrate(double seconds);
double busy_compute(double steps);

#ifdef __cplusplus
}
#endif

#endif
