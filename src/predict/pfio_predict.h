/* pfio predictors for front ends written in C (the ROMIO driver, the HDF5 driver): what a reader
 * that is seen one request at a time will read next. One implementation (src/predict/), used
 * through this header by the C front ends and directly by the collective layer. Exported by
 * libpfio for pfio's own front ends and not installed: no program outside pfio calls it.
 *
 * Contract.
 *  - pfio_stride: single-extent reads. Give every read to pfio_stride_observe in the order the
 *    reader makes them. Two reads in a row of the previous length at one stride (not 0) make a
 *    run (event.running): plan pfio_stride_want extents from pfio_stride_next on, pfio_stride_step
 *    apart, and report them with pfio_stride_planned. A read off the run drops the prediction
 *    (event.dropped: take back what was planned) and scores it by the hit rate in bytes (read
 *    against dropped unread, recent runs weighing most): a drop that leaves more dropped than
 *    read is a miss; options.misses_off misses in a row switch prediction off for off_first
 *    reads, twice as many the next time, at most off_longest (event.off while off), and back on
 *    early when a run goes on for a first plan's worth of reads. pfio_stride_bytes gives the
 *    bytes planned, read and dropped, for the front ends' counters.
 *    With allow_near_shift, a read at most near_shift off the stride in the run's direction
 *    continues the run at a new phase, and what was planned moves by event.phase_shift.
 *  - pfio_calls: whole requests of several extents. A request equal to the previous one with
 *    every offset moved by one non-zero shift is a copy; after `confirmations` copies in a row
 *    with one shift, pfio_calls_shift returns it (else 0) and request "now + j" is the last one
 *    moved j shifts. pfio_calls_observe returns 1 when the request was the one predicted.
 *  - pfio_sweep: a pass column by column over an array stored row by row (a chunked dataset
 *    read column strip by column strip). Give every read to pfio_sweep_observe in order; it
 *    returns 1 when the read confirms a sweep: call pfio_sweep_start with the bytes the sweep
 *    may have advised ahead over all rows. After either call, pfio_sweep_advice gives the ranges
 *    to advise now, in order (their file fields are 0); after a start, the first `near` of them
 *    are every row's next two reads, which go before anything else the caller advises. The
 *    rules (column, next column, row look-ahead, end of a sweep): src/predict/column_sweep.h.
 *  - pfio_judge: whether a file's calls pay for pfio's path. Before each call pfio_judge_next
 *    says which path serves it (1: the front end's stock path, 0: pfio); after it,
 *    pfio_judge_record gives its time and bytes, timed alike on both paths. The path measured
 *    faster per byte serves stretches of calls and the other is tried between them; the
 *    schedule and its constants: src/predict/path_judge.h. One judge per file and reader.
 *  - Predictions cost reading time when wrong, never bytes: plan with them, never answer a read
 *    from them. One predictor per file and reader; not thread-safe. Errors: pfio_status and
 *    pfio_last_error(), as every pfio call.
 */
#ifndef PFIO_PFIO_PREDICT_H_
#define PFIO_PFIO_PREDICT_H_

#include <stddef.h>
#include <stdint.h>

#include "pfio/pfio.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The one look-ahead bound of every front end's predictions: at most this many bytes, and this
 * many extents, planned ahead of the reader (pfio_stride's defaults; the ROMIO driver's calls
 * predicted ahead and the HDF5 driver's runs keep to the same). */
#define PFIO_LOOKAHEAD_BYTES ((uint64_t)64 << 20)
#define PFIO_LOOKAHEAD_EXTENTS 4096

typedef struct pfio_stride pfio_stride;

typedef struct pfio_stride_options {
  uint64_t lookahead_bytes; /* at most this many bytes planned ahead; 0: PFIO_LOOKAHEAD_BYTES */
  uint64_t min_extents;     /* a run's first plan at least this; 0: 8 */
  uint64_t max_extents;     /* at most this many planned ahead; 0: PFIO_LOOKAHEAD_EXTENTS */
  uint32_t misses_off;      /* misses in a row that switch prediction off; 0: never */
  uint64_t off_first;       /* reads of the first switch-off; 0: 64 */
  uint64_t off_longest;     /* the longest switch-off; 0: 1 Mi reads */
  int64_t near_shift;       /* new phases within this many bytes; 0: none */
} pfio_stride_options;

typedef struct pfio_stride_event {
  int hit;             /* this read was predicted and planned */
  int dropped;         /* the prediction ended: what was planned is not needed */
  int switched_off;    /* ... and prediction is off for the next reads */
  int off;             /* prediction is off for this read */
  int running;         /* a run is on: plan with pfio_stride_want / _next / _planned */
  int shifted;         /* the run went on at a new phase (near_shift) */
  int64_t phase_shift; /* what was planned moves by this many bytes */
} pfio_stride_event;

/* options NULL: the defaults above. */
pfio_status pfio_stride_create(const pfio_stride_options *options, pfio_stride **out);
void pfio_stride_observe(pfio_stride *run, uint64_t offset, uint64_t length, int allow_near_shift,
                         pfio_stride_event *event);
/* Extents of `length` bytes to plan now: ramp x the run's repeats (ramp 0: the whole look-ahead
 * at once), within [min_extents, min(cap, max_extents, lookahead_bytes / length)]; 0 while more
 * than half of it is still planned ahead. */
uint64_t pfio_stride_want(const pfio_stride *run, uint64_t length, uint32_t ramp, uint64_t cap);
/* Where the next extent to plan starts: after the last one planned, or one stride past `offset`
 * (the read just observed). Negative when a backward run leaves the file's start. */
int64_t pfio_stride_next(const pfio_stride *run, uint64_t offset);
int64_t pfio_stride_step(const pfio_stride *run);
/* `count` extents were planned; the next one would start at `next`. */
void pfio_stride_planned(pfio_stride *run, uint64_t count, int64_t next);
/* Whether extents are planned and not read yet, how many, and whether prediction is switched
 * off. */
int pfio_stride_planning(const pfio_stride *run);
uint64_t pfio_stride_ahead(const pfio_stride *run);
int pfio_stride_off(const pfio_stride *run);
/* Where the run expects the next read (a stride past the last one) while a run is on and
 * prediction is not off; -1 otherwise. */
int64_t pfio_stride_expected(const pfio_stride *run);
/* Bytes of the extents planned since creation, of those the reader read (hits), and of those
 * dropped unread; planned - hit - dropped are still planned ahead. */
void pfio_stride_bytes(const pfio_stride *run, uint64_t *planned, uint64_t *hit, uint64_t *dropped);
/* Forgets the run (a switch-off's doubling is kept). */
void pfio_stride_reset(pfio_stride *run);
void pfio_stride_destroy(pfio_stride *run); /* NULL is ignored */

typedef struct pfio_calls pfio_calls;

pfio_status pfio_calls_create(uint32_t confirmations, pfio_calls **out);
/* One request's extents (their file fields are not looked at); 1 when it was the one predicted.
 * PFIO_ENOMEM is not returned: a request that cannot be kept only ends the prediction. */
int pfio_calls_observe(pfio_calls *calls, const pfio_extent *extents, size_t count);
int64_t pfio_calls_shift(const pfio_calls *calls);
/* Whether a request was seen since creation or the last reset. */
int pfio_calls_seen(const pfio_calls *calls);
void pfio_calls_reset(pfio_calls *calls);
void pfio_calls_destroy(pfio_calls *calls); /* NULL is ignored */

typedef struct pfio_sweep pfio_sweep;

pfio_status pfio_sweep_create(pfio_sweep **out);
/* One read; eof bounds what is advised. 1: a sweep is confirmed, call pfio_sweep_start. Without
 * memory for the read's column the sweep forgets itself (no error: no prediction). */
int pfio_sweep_observe(pfio_sweep *sweep, uint64_t offset, uint64_t length, uint64_t eof);
void pfio_sweep_start(pfio_sweep *sweep, uint64_t window, uint64_t eof);
/* The ranges to advise from the last observe or start (valid until the next call on `sweep`);
 * their number, and in *near (may be NULL) how many of them are the start's near pass. */
size_t pfio_sweep_advice(const pfio_sweep *sweep, const pfio_extent **ranges, size_t *near);
/* Whether a sweep is confirmed and followed. */
int pfio_sweep_active(const pfio_sweep *sweep);
void pfio_sweep_reset(pfio_sweep *sweep);
void pfio_sweep_destroy(pfio_sweep *sweep); /* NULL is ignored */

typedef struct pfio_judge pfio_judge;

pfio_status pfio_judge_create(pfio_judge **out);
/* The judge the last file with `key` and a first read of the same shape as `first_read` (its
 * `count` extents in request order; NULL and 0: none) left with pfio_judge_keep, carried on to
 * this file (its counts at zero, a stretch of one path under way bounded), or a new judge: a
 * program that reads many short files alike is judged on all their reads, and a file read
 * another way is not judged on a stretch that others decided (predict/request_shape.h). */
pfio_status pfio_judge_take(const char *key, const pfio_extent *first_read, size_t count,
                            pfio_judge **out);
/* Keeps the judge's state under `key` and the shape it was taken with, for the next file's
 * pfio_judge_take (process-wide). */
void pfio_judge_keep(const pfio_judge *judge, const char *key);
/* The path of the next call: 1 the stock path, 0 pfio. */
int pfio_judge_next(pfio_judge *judge);
/* The call pfio_judge_next gave, served on the stock path (stock = 1) or pfio's, took `ns` for
 * `bytes`. */
void pfio_judge_record(pfio_judge *judge, int stock, uint64_t bytes, uint64_t ns);
/* Calls given to the stock path, decisions between the paths, those that chose stock. */
void pfio_judge_counts(const pfio_judge *judge, uint64_t *stock_calls, uint64_t *decisions,
                       uint64_t *stock_chosen);
/* Starts again from pfio (the pattern changed). */
void pfio_judge_reset(pfio_judge *judge);
void pfio_judge_destroy(pfio_judge *judge); /* NULL is ignored */

#ifdef __cplusplus
}
#endif

#endif /* PFIO_PFIO_PREDICT_H_ */
