/* pfio — plan-driven read prefetching.
 *
 * Contract of this header (the only one applications include):
 *  - An application describes the reads it will make (the access plan: extents in consumption
 *    order), then reads with pfio_read. pfio fetches the plan ahead of the reads, sorted by file
 *    offset, into a reorder buffer that never exceeds the memory budget, and serves each read
 *    from it. A read that is not in the plan is served directly from the file: a wrong plan
 *    costs time, never correctness.
 *  - Every call returns a pfio_status. On failure, pfio_last_error() returns one line that
 *    names the argument, its value and what is allowed; pfio_strerror() names the status.
 *  - A context is used by one thread at a time; distinct contexts are independent.
 *  - Every wait inside pfio is bounded by the config's timeout_ms.
 */
#ifndef PFIO_PFIO_H_
#define PFIO_PFIO_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pfio_status {
  PFIO_OK = 0,
  PFIO_EINVAL = 1,    /* an argument or config field is out of range */
  PFIO_ERANGE = 2,    /* an extent or read lies outside the file */
  PFIO_EIO = 3,       /* the file system reported an error; pfio_last_error has the errno */
  PFIO_ENOMEM = 4,    /* the memory budget could not be reserved */
  PFIO_ETIMEDOUT = 5, /* a bounded wait expired (the message says what was awaited) */
  PFIO_EBADF = 6,     /* the file id is not open in this context */
  PFIO_ESTATE = 7     /* the call is not allowed in the current state */
} pfio_status;

typedef enum pfio_backend {
  PFIO_BACKEND_AUTO = 0, /* aio with O_DIRECT; falls back to sync when O_DIRECT is refused */
  PFIO_BACKEND_AIO = 1,  /* libaio + O_DIRECT; a file that refuses O_DIRECT is an error */
  PFIO_BACKEND_SYNC = 2, /* a pool of threads doing pread through the page cache */
  PFIO_BACKEND_URING = 3 /* io_uring + O_DIRECT (only when built with liburing) */
} pfio_backend;

typedef enum pfio_window_mode {
  PFIO_WINDOW_PIPELINED = 0, /* keep the budget full; issue more as reads free memory */
  PFIO_WINDOW_BATCH = 1      /* fetch a whole window, serve it, then fetch the next */
} pfio_window_mode;

/* Configuration. Initialise with pfio_config_init, change fields, pass to pfio_context_create,
 * which validates every field. */
typedef enum pfio_policy {
  PFIO_POLICY_AGGRESSIVE = 0,    /* issue whenever memory and the target allow (Kimbrel §2.4) */
  PFIO_POLICY_FIXED_HORIZON = 1, /* issue a read only within `horizon` plan entries (§2.3) */
  PFIO_POLICY_FORESTALL = 2      /* issue when (queued + i) F' >= distance, or within the
                                    horizon; F per target from its last 100 service times (§5) */
} pfio_policy;

typedef enum pfio_stage {
  PFIO_STAGE_AUTO = 0,      /* the backend's device cache where it has one (sim), else none */
  PFIO_STAGE_NONE = 1,      /* never stage */
  PFIO_STAGE_POKE = 2,      /* a 4 KiB O_DIRECT read just before the block: the drive's own
                               read-ahead loads the block into its cache (Barve §5) */
  PFIO_STAGE_PAGECACHE = 3, /* readahead(2) of the block; its read then goes through the cache */
  PFIO_STAGE_LADVISE = 4,   /* Lustre ladvise WILLREAD (files on Lustre only; else an error) */
  PFIO_STAGE_DEVICE = 5     /* the simulator's drive cache (sim backend only) */
} pfio_stage;

typedef struct pfio_config {
  uint64_t memory_budget;       /* bytes the rank may use for prefetched data; 0 = auto
                                   (MemAvailable and cgroup limit); else 2 MiB .. MemTotal */
  pfio_backend backend;         /* default PFIO_BACKEND_AUTO */
  pfio_window_mode window_mode; /* default PFIO_WINDOW_PIPELINED */
  uint64_t infill_max;          /* merge gaps up to this many bytes; 0 .. 16 MiB, default 32 KiB */
  uint64_t max_request;         /* largest single read; 64 KiB .. 64 MiB, 4 KiB multiple,
                                   default 1 MiB */
  uint32_t queue_depth;         /* reads in flight; 1 .. 1024, default 32 */
  uint32_t window_percent;      /* pipelined: each window plans this % of the budget; the next
                                   is planned once the last is issued; 1 .. 100, default 100 */
  uint32_t timeout_ms;          /* bound of every wait; 1 .. 3600000, default 60000 */
  int aimd;                     /* 1 (default): adapt the budget to memory pressure; 0: fixed */
  const char *stats_path;       /* JSON stats written here at pfio_context_destroy; NULL = use
                                   the PFIO_STATS environment variable if set */
  const char *layout;           /* storage layout of the files, e.g. "stripe=1MiB,targets=8,
                                   buses=2": reads are split at stripe boundaries, sorted per
                                   target and issued in rounds across targets; "lustre": the
                                   striping of the first file opened, read from Lustre (an error
                                   at open elsewhere); NULL = one target */
  pfio_policy policy;           /* when reads are issued; default PFIO_POLICY_AGGRESSIVE */
  uint32_t horizon;             /* fixed horizon / forestall H in plan entries; 0 (default) =
                                   from measured service and consumption times; else 1 .. 2^30 */
  uint32_t forestall_factor;    /* F' = factor * F; 0 (default) = Kimbrel's rule (1 when the
                                   mean service time is below 5 ms, else 4); else 1 .. 64 */
  uint32_t target_reads;        /* reads in flight per target; 0 (default) = the backend's: 1
                                   for the simulated disks, queue_depth / targets otherwise */
  uint32_t target_stages;       /* staged blocks per target; 0 .. 16, default 1 */
  uint32_t lookahead_rounds;    /* rounds a target may run ahead of the slowest one in its bus
                                   group; 0 (default) = target_reads; else 1 .. 1024 */
  pfio_stage stage;             /* default PFIO_STAGE_AUTO; staging is off for reads below
                                   64 KiB and when the backend's model predicts no gain */
} pfio_config;

typedef struct pfio_context pfio_context;

/* One extent of the access plan: bytes [offset, offset+length) of an open file. `marked`
 * makes it a landmark for pfio_plan_replace_after_mark (libprefetch §4). */
typedef struct pfio_extent {
  int32_t file;
  int32_t marked;
  uint64_t offset;
  uint64_t length;
} pfio_extent;

typedef struct pfio_stats {
  uint64_t reads;             /* pfio_read calls */
  uint64_t hits;              /* reads served entirely from the reorder buffer */
  uint64_t passthrough_reads; /* reads of sequential runs, served through the page cache */
  uint64_t misses;            /* reads (or parts) served directly: outside the plan or failed */
  uint64_t stalls;            /* reads that waited for a prefetch still in flight */
  double stall_seconds;       /* total time spent in those waits */
  uint64_t bytes_served;      /* bytes returned to the application */
  uint64_t bytes_read;        /* bytes read from the file, prefetch and direct */
  uint64_t bytes_wasted;      /* bytes read but never served (infill gaps, dropped data) */
  uint64_t bytes_passthrough; /* bytes of sequential plan runs left to the kernel's readahead */
  uint64_t requests;          /* prefetch reads issued to the backend */
  uint64_t io_errors;         /* prefetch reads that failed or came back short */
  uint64_t plan_resyncs;      /* times a read matched a later plan entry and skipped ahead */
  uint64_t windows;           /* windows (batch) or refills (pipelined) issued */
  uint64_t budget_bytes;      /* current AIMD budget */
  uint64_t budget_cap;        /* AIMD cap (90 % of what the rank may use) */
  uint64_t budget_cuts;       /* multiplicative decreases so far */
  uint64_t memory_in_use;     /* bytes held by the reorder buffer now */
  uint64_t memory_peak;       /* most bytes ever held by the reorder buffer */
  char backend[16];           /* backend in use: "aio", "sync", "uring", "sim" */
  uint64_t evictions;         /* prefetched pieces dropped for an earlier need (Belady, do no
                                 harm) after the budget was cut; they are read again later */
  uint64_t bytes_evicted;     /* their bytes */
  uint64_t stages;            /* stage calls issued (LoadIntoDiskBuffer) */
  uint64_t stages_small;      /* reads not staged because they are below 64 KiB */
  uint64_t policy_holds;      /* times the issue policy held back a read memory allowed */
  char policy[16];            /* "aggressive", "fixed-horizon", "forestall" */
  char stage_mode[16];        /* "none", "poke", "pagecache", "ladvise", "device" */
  char stage_note[112];       /* why staging is off, when it is */
} pfio_stats;

/* Fills *config with the defaults listed above. */
void pfio_config_init(pfio_config *config);

/* Checks every field; PFIO_EINVAL names the first bad field, its value and the allowed range. */
pfio_status pfio_config_validate(const pfio_config *config);

/* Creates a context: reserves the reorder buffer (address space only; memory is touched as it is
 * used) and starts its I/O thread. *out is NULL on failure. */
pfio_status pfio_context_create(const pfio_config *config, pfio_context **out);

/* Waits (bounded) for reads in flight, writes stats if a stats path is set, frees everything.
 * NULL is allowed. Returns the first error met while shutting down. */
pfio_status pfio_context_destroy(pfio_context *ctx);

/* Opens `path` read-only for prefetching and returns its id in *file. */
pfio_status pfio_file_open(pfio_context *ctx, const char *path, int32_t *file);

/* Closes a file: waits (bounded) for its reads in flight, drops its buffered data and removes its
 * extents from the plan. */
pfio_status pfio_file_close(pfio_context *ctx, int32_t file);

/* Size in bytes of an open file (as seen at open). */
pfio_status pfio_file_size(pfio_context *ctx, int32_t file, uint64_t *size);

/* Appends extents to the end of the plan. Every extent is checked first (open file, length > 0,
 * inside the file); on error nothing is appended. Extents may repeat, overlap and be unsorted:
 * the plan is a consumption order, not a set. */
pfio_status pfio_plan_append(pfio_context *ctx, const pfio_extent *extents, size_t count);

/* Replaces everything not yet read with `extents` (count 0 clears the plan). */
pfio_status pfio_plan_replace(pfio_context *ctx, const pfio_extent *extents, size_t count);

/* Replaces the part of the plan after the most recently read marked extent. The leading new
 * extents that equal the extents already read since that mark are skipped, so the caller can
 * rebuild the list from its last landmark without knowing exactly how far reading got. */
pfio_status pfio_plan_replace_after_mark(pfio_context *ctx, const pfio_extent *extents,
                                         size_t count);

/* The most recently read marked extent; PFIO_ESTATE when none was read yet. */
pfio_status pfio_plan_last_mark(pfio_context *ctx, pfio_extent *mark);

/* Reads [offset, offset+length) of `file` into buf. Served from the reorder buffer when the read
 * follows the plan (waiting, bounded, for data in flight), else read directly. *nread is short
 * only at end of file. */
pfio_status pfio_read(pfio_context *ctx, int32_t file, void *buf, uint64_t offset, uint64_t length,
                      uint64_t *nread);

/* The application no longer needs [offset, offset+length): buffered data there is dropped at once
 * and plan extents inside the range that were not read yet are removed (Mowry §2.4). */
pfio_status pfio_release(pfio_context *ctx, int32_t file, uint64_t offset, uint64_t length);

/* Between pfio_ignore and pfio_unignore, reads do not move through the plan and do not count as
 * misses (for example a plan callback reading an index). Calls nest. */
pfio_status pfio_ignore(pfio_context *ctx);
pfio_status pfio_unignore(pfio_context *ctx);

/* A snapshot of the counters. */
pfio_status pfio_stats_get(pfio_context *ctx, pfio_stats *stats);

/* Writes the counters and the AIMD history as JSON to `path`. */
pfio_status pfio_stats_write(pfio_context *ctx, const char *path);

/* The name and meaning of a status, e.g. "PFIO_EINVAL (invalid argument)". */
const char *pfio_strerror(pfio_status status);

/* The message of the last failed call on this thread, or "" if none failed. */
const char *pfio_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* PFIO_PFIO_H_ */
