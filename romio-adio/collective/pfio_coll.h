/* pfio_coll: the collective layer for C front ends (the ROMIO driver), over MPI.
 *
 * Contract. One pfio_coll per open file and communicator; every rank of the communicator calls
 * pfio_coll_read for the same collective call, in the same order. Each call exchanges the
 * ranks' extents, lets aggregator ranks read them through their pfio context (planning the
 * calls predicted from repetition ahead), and ships the bytes to the ranks that asked. Every
 * call returns a pfio_status, as pfio's own calls do, and on failure leaves one line in the
 * calling thread's pfio_last_error(). pfio_coll_read's outcome agrees on every rank: PFIO_OK with
 * *stock = 0 (every byte of this rank's pieces delivered, *nread = their total), PFIO_OK with
 * *stock = 1 (some rank asked for the stock path, nothing read), or an error (PFIO_EIO, or on a
 * rank whose own read failed with nothing shipped that read's status: the message names the
 * failing rank or MPI operation; after a transport failure every later call fails at once). MPI is
 * called only from the calling thread. Not installed: the front ends' own header, built once per
 * MPI (Open MPI, MPICH). */
#ifndef PFIO_COLL_H_INCLUDED
#define PFIO_COLL_H_INCLUDED

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "pfio/pfio.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pfio_coll pfio_coll;

typedef struct pfio_coll_options {
  uint64_t round_bytes;     /* bytes an aggregator ships per round (cb_buffer_size) */
  uint64_t unit;            /* stripe unit: bytes dealt to one target at a time */
  uint32_t targets;         /* storage targets (striping_factor); 0: one per aggregator */
  int aggregators;          /* cb_nodes; 0: every rank */
  uint32_t lookahead_calls; /* collective calls predicted ahead; 0: none */
  uint64_t lookahead_bytes; /* an aggregator's bytes of later calls planned; 0: the default */
  int timeout_ms;           /* bound of every wait for the other ranks */
  const char *bound_name;   /* the setting that raises timeout_ms, for messages */
  const char *file_name;    /* the file as opened (record and replay name it) */
  const char *record_path;  /* NULL, or rank 0 records every call's plans there */
  const char *replay_path;  /* NULL, or the calls of a record are declared at creation */
  int carry_judge; /* 1: the path judge carries on from the last file these ranks read with the
                    * same buffer kind and the same first call's shape (every rank of comm must
                    * give the same value) */
  const pfio_extent *first_call; /* with carry_judge: this rank's extents of the file's first
                                  * collective call in request order (NULL: none, a declared
                                  * plan), whose shape (RequestShape) keys the carried judge */
  size_t first_call_count;
  int page_cache; /* with no context at creation: the file's buffer kind (1: the page cache) */
} pfio_coll_options;

typedef struct pfio_coll_stats {
  uint64_t calls, stock_calls, rounds;
  uint64_t plan_extents, plan_bytes;         /* this rank's extents sent, and their encoded size */
  uint64_t bytes_read;                       /* read as aggregator, for every rank */
  uint64_t bytes_received;                   /* delivered into this rank's buffers */
  uint64_t predicted_hits, predicted_misses; /* look-ahead (declared or predicted) right/wrong */
  uint64_t declared_calls;
  uint64_t bytes_shipped; /* read for other ranks and sent to them */
  int aggregator;         /* this rank's aggregator index, -1 when it is none */
  int aggregators;
  uint64_t round_bytes;         /* the round agreed in the last call (the budgets' smallest) */
  uint64_t exchange_steps;      /* exchanges; more than rounds when a round went in steps */
  uint64_t exchange_peak;       /* most send + receive buffer bytes held at once */
  uint64_t calls_planned_ahead; /* later calls this aggregator planned (look-ahead) */
  uint64_t bytes_advised;       /* advised at once after a call (the next call's dense runs) */
  uint64_t stepped_aside;       /* calls pfio_coll_begin gave to the stock path */
  uint64_t judge_decisions;     /* decisions between the paths, and those that chose stock */
  uint64_t judge_chose_stock;
  uint64_t alone_calls; /* calls pfio_coll_begin gave each rank to read alone */
} pfio_coll_stats;

/* PFIO_OK and *out, or PFIO_EINVAL naming the bad option or why the replay is refused (another
 * file, size or rank count), PFIO_EIO when the replay cannot be read, PFIO_ENOMEM. Not collective.
 * `ctx` may be NULL (not with a record or a replay; options->page_cache names the buffer kind): a
 * file whose calls go to the stock path or are read alone then starts no context; pfio_coll_attach
 * gives it before the first pfio_coll_read this rank wants read through the layer (until then its
 * calls ask for the stock path). */
pfio_status pfio_coll_create(MPI_Comm comm, pfio_context *ctx, int32_t file,
                             const pfio_coll_options *options, pfio_coll **out);
void pfio_coll_attach(pfio_coll *coll, pfio_context *ctx, int32_t file);
/* With carry_judge: a hash of what this rank carried from the last file; the front end compares
 * it across ranks before the first call and, where it differs, calls pfio_coll_forget_carried on
 * every rank (CollectiveReader::CarriedHash). */
uint64_t pfio_coll_carried(const pfio_coll *coll);
void pfio_coll_forget_carried(pfio_coll *coll);
pfio_status pfio_coll_read(pfio_coll *coll, const pfio_read_piece *pieces, size_t count,
                           int want_stock, uint64_t *nread, int *stock);
/* Stepping aside where pfio does not pay, and reading alone where the exchange buys nothing:
 * collective, before each collective call. *stock = 1: this call goes to the front end's stock
 * path (no pfio_coll_read for it); 2: each rank reads its own request as an independent read
 * through pfio (the front end's own path; no pfio_coll_read); 0: to pfio_coll_read. The same
 * answer on every rank: the path measured faster per byte (from the times pfio_coll_end
 * reported on every rank) serves stretches of calls, the other is tried again between them; calls
 * whose ranks each read only their own bytes go alone between checks
 * (collective/collective_reader.h; docs/romio-driver.md, "Stepping aside"). PFIO_EIO when the
 * transport fails. */
pfio_status pfio_coll_begin(pfio_coll *coll, int *stock);
/* The call begun took `ns` nanoseconds for `bytes` of this rank's request, timed alike on both
 * paths by the front end. */
void pfio_coll_end(pfio_coll *coll, uint64_t bytes, uint64_t ns);
/* Collective: this rank's extents of its next `ncalls` collective calls (counts[k] extents for
 * call k, in offsets/lengths one call after the other). PFIO_OK, or PFIO_EINVAL (the same on
 * every rank: e.g. ranks declaring different numbers of calls), or PFIO_EIO when the transport
 * fails. */
pfio_status pfio_coll_declare(pfio_coll *coll, int ncalls, const int *counts,
                              const int64_t *offsets, const int64_t *lengths);
/* Whether a record at `path` may be replayed for this file, size and rank count: PFIO_OK, or
 * PFIO_EINVAL naming what differs (PFIO_EIO when it could not be read). Not collective. */
pfio_status pfio_coll_check_replay(const char *path, const char *file_name, uint64_t size,
                                   int ranks);
/* Whether a record of `file_name` may be written at `path`: PFIO_OK when it does not exist or is
 * an earlier pfio record, else PFIO_EINVAL saying why it is refused (the file being read, a file
 * that is not a record, a directory). Not collective. */
pfio_status pfio_coll_check_record(const char *path, const char *file_name);
void pfio_coll_get_stats(const pfio_coll *coll, pfio_coll_stats *stats);
/* The first failure to write the record, "" when none. */
const char *pfio_coll_record_error(const pfio_coll *coll);
void pfio_coll_destroy(pfio_coll *coll);

#ifdef __cplusplus
}
#endif

#endif
