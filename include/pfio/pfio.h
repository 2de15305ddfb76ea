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
 *  - A context may be shared by threads: its calls take turns (one runs at a time, the others
 *    wait), so every call sees the plan and the buffer as the previous one left them. Distinct
 *    contexts are independent. A context belongs to the process that created it: in a child of
 *    fork() every call on it returns PFIO_ESTATE at once (pfio_last_error names fork), and the
 *    child creates its own.
 *  - Every wait inside pfio is bounded by the config's timeout_ms.
 *  - No call lets a C++ exception or a signal escape; allocation failure is PFIO_ENOMEM.
 */
#ifndef PFIO_PFIO_H_
#define PFIO_PFIO_H_

#include <stddef.h>
#include <stdint.h>

/* The version of this header. pfio_version() gives the library's: they differ when a program
 * runs against a newer (or older) libpfio than it was built with. Within one major version the
 * library keeps the calls and the meaning of every key of older minor versions. */
#define PFIO_VERSION_MAJOR 0
#define PFIO_VERSION_MINOR 4
#define PFIO_VERSION_PATCH 0
#define PFIO_VERSION_NUMBER \
  ((PFIO_VERSION_MAJOR << 16) | (PFIO_VERSION_MINOR << 8) | PFIO_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pfio_status {
  PFIO_OK = 0,
  PFIO_EINVAL = 1,    /* an argument or config field is out of range */
  PFIO_ERANGE = 2,    /* a plan extent lies outside the file (a read past the end is not an
                         error: it returns PFIO_OK with *nread short, 0 at or past the end) */
  PFIO_EIO = 3,       /* the file system reported an error; pfio_last_error has the errno */
  PFIO_ENOMEM = 4,    /* the memory budget could not be reserved */
  PFIO_ETIMEDOUT = 5, /* a bounded wait expired (the message says what was awaited) */
  PFIO_EBADF = 6,     /* the file id is not open in this context */
  PFIO_ESTATE = 7     /* the call is not allowed in the current state */
} pfio_status;

/* Configuration: an opaque object of named settings, so that new settings never change a
 * struct a program was compiled with. Every setting has one key, the same everywhere:
 *   pfio_config_set(config, "budget", "1G")     C
 *   prefetch_budget=1G                          MPI-IO hint (the ROMIO driver)
 *   PFIO_BUDGET=1G                              environment
 * Precedence: an explicit pfio_config_set (or hint), then the environment, then the default.
 * Sizes take K, M, G, T suffixes (powers of 1024). The keys, defaults and allowed values are
 * listed in README.md ("Configuration") and by pfio_config_key(). */
typedef struct pfio_config pfio_config;

/* Creates a config holding the defaults, then every PFIO_<KEY> environment variable (and
 * PFIO_STATS, the short name of PFIO_STATS_PATH; PFIO_TEST_* and PFIO_BENCH_* are the test
 * suite's and the benchmark scripts' own, not settings). *out is NULL only when memory ran out.
 * Returns PFIO_OK, or PFIO_EINVAL when a PFIO_* variable is unknown or has a bad value: then
 * *out is still a usable config in which that variable was ignored (its default kept), and
 * pfio_last_error names the variable, its value and what is allowed (MPI's convention for bad
 * hints: report, and go on with the default). */
pfio_status pfio_config_create(pfio_config **out);

/* Frees a config. NULL is allowed. A context does not keep its config: destroy it any time. */
void pfio_config_destroy(pfio_config *config);

/* Sets one setting from a string. On PFIO_EINVAL (unknown key, bad value) the config is
 * unchanged, and pfio_last_error names the key, the value and what is allowed, or for an
 * unknown key the nearest valid one. Rules between keys (target_reads <= queue_depth) are
 * checked by pfio_config_validate and pfio_context_create. */
pfio_status pfio_config_set(pfio_config *config, const char *key, const char *value);

/* A front end's own default: sets `key` as pfio_config_set does unless the environment
 * (PFIO_<KEY>) or an earlier pfio_config_set named the setting, under its name or another
 * (buffer, coll_path and read_path are one setting). The ROMIO and HDF5 drivers default to
 * buffer = cache this way, below their users' hints and settings. PFIO_EINVAL for an unknown key
 * or a bad value, named, whether or not it applies. */
pfio_status pfio_config_set_default(pfio_config *config, const char *key, const char *value);

/* One setting as a front end names it, for pfio_config_apply: `name` is the front end's own name
 * ("prefetch_buffer", "settings[2] buffer"), used in messages; `key` the config key it sets. */
typedef struct pfio_named_setting {
  const char *name;
  const char *key;
  const char *value;
} pfio_named_setting;

/* Called by pfio_config_apply for each setting it does not apply: `index` into the settings,
 * `message` naming the source, the name, the value and what was expected. */
typedef void (*pfio_setting_report)(void *arg, size_t index, const char *message);

/* Applies the settings one source gives (a file's hints, an HDF5 config's list), as the
 * environment's are applied: names of one setting (buffer, coll_path, read_path; a key given
 * twice) take the value of the first in the keys' order, pfio_config_key's (for one key, the
 * first given), and another of them with a different value is refused; an unknown key or a bad
 * value is refused and the setting keeps its value; the others are applied all the same, as by
 * pfio_config_set. Each refused one goes to `report` (when not NULL) with a message starting
 * "<source> <name>". PFIO_OK when none was refused, else PFIO_EINVAL with pfio_last_error the
 * first message. */
pfio_status pfio_config_apply(pfio_config *config, const char *source,
                              const pfio_named_setting *settings, size_t count,
                              pfio_setting_report report, void *arg);

/* Writes the value in force of `key` into value[0 .. size) as a NUL-terminated string in the
 * form pfio_config_set accepts ("1G", "forestall", ""). PFIO_EINVAL for an unknown key or a
 * buffer too small for the value (value is then ""). */
pfio_status pfio_config_get(const pfio_config *config, const char *key, char *value, size_t size);

/* The value in force of a size (bytes), count, on/off (1, 0) or choice (its index in the list
 * the key allows) setting, as a number; PFIO_EINVAL for an unknown key or a text key. */
pfio_status pfio_config_get_number(const pfio_config *config, const char *key, uint64_t *value);

/* The name of key number `index` (0, 1, ...), or NULL past the last: for front ends that map
 * their own names (hints prefetch_<key>) and report the values in force. */
const char *pfio_config_key(size_t index);

/* Whether the setting `key` stands for was named (under any of its names: buffer, coll_path and
 * read_path are one setting) by the environment, pfio_config_set or an applied setting of
 * pfio_config_apply, into *named (1 or 0); a front end's default (pfio_config_set_default) and a
 * refused value do not count. For front ends that report the settings their users chose apart
 * from the defaults. PFIO_EINVAL for an unknown key. */
pfio_status pfio_config_named(const pfio_config *config, const char *key, int *named);

/* Checks every setting and the rules between them; PFIO_EINVAL names the first bad one. */
pfio_status pfio_config_validate(const pfio_config *config);

typedef struct pfio_context pfio_context;

/* One extent of the access plan: bytes [offset, offset+length) of an open file. `marked`
 * makes it a landmark for pfio_plan_replace_after_mark (libprefetch §4). */
typedef struct pfio_extent {
  int32_t file;
  int32_t marked;
  uint64_t offset;
  uint64_t length;
} pfio_extent;

/* Counters. New fields are only ever appended, and pfio_stats_get is told the size the caller
 * was compiled with, so a program built against an older header keeps working. */
typedef struct pfio_stats {
  uint64_t reads;             /* pfio_read calls */
  uint64_t hits;              /* reads served entirely from the reorder buffer */
  uint64_t passthrough_reads; /* reads of sequential runs, served through the page cache */
  uint64_t misses;            /* reads (or parts) served directly: outside the plan or failed */
  uint64_t stalls;            /* reads that waited for a prefetch still in flight (page-cache
                               * kind: pieces read before their advice had landed) */
  double stall_seconds;       /* total time spent in those waits */
  uint64_t bytes_served;      /* bytes returned to the application */
  uint64_t bytes_read;        /* bytes read from the file, prefetch and direct (page-cache
                               * kind: the bytes of its requests once they land, and direct) */
  uint64_t bytes_wasted;      /* bytes read but never served (infill gaps, dropped data;
                               * page-cache kind: advice dropped before any of it was read) */
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
  char backend[16];           /* backend in use: "aio", "sync", "uring", "sim"; "aio+sync" or
                                 "uring+sync" once a file was read through the page cache
                                 because its file system refused O_DIRECT (backend auto) */
  uint64_t evictions;         /* prefetched pieces dropped for an earlier need (Belady, do no
                                 harm) after the budget was cut; they are read again later */
  uint64_t bytes_evicted;     /* their bytes */
  uint64_t stages;            /* stage calls issued (LoadIntoDiskBuffer) */
  uint64_t stages_small;      /* reads not staged because they are below 64 KiB */
  uint64_t policy_holds;      /* times the issue policy held back a read memory allowed */
  char policy[16];            /* "aggressive", "fixed-horizon", "forestall" */
  char stage_mode[16];        /* "none", "poke", "pagecache", "ladvise", "device" */
  char stage_note[112];       /* why staging is off, when it is */
  uint64_t files_changed;     /* times a file was seen changed on disk (revalidate, or a direct
                                 read that came back short) and the prefetched bytes dropped */
  uint64_t memory_charged;    /* bytes held outside the context for its reads and charged to
                                 its budget (pfio_memory_charge) */
  uint64_t advised_now;       /* ranges pfio_advise_now was given (each advised, or dropped) */
  uint64_t advised_inline;    /* of those, advised in the calling thread (4096 waited already) */
  uint64_t advised_dropped;   /* of those, still waiting when their file closed */
  uint64_t advised_now_bytes; /* bytes of the ranges pfio_advise_now was given */
  uint64_t advice_failed;     /* advice the kernel refused (a hint: reads stay correct) */
} pfio_stats;

/* Creates a context from `config` (NULL: the defaults and the PFIO_* environment, where a bad
 * variable is an error): reserves the reorder buffer (address space only; memory is touched as
 * it is used) and starts its I/O thread. Where this process destroyed a context with exactly
 * these settings, that one is taken instead, emptied (see pfio_context_destroy): its threads and
 * reserved buffer are reused, and to its new user it is as new. *out is NULL on failure. */
pfio_status pfio_context_create(const pfio_config *config, pfio_context **out);

/* Waits (bounded) for reads in flight, writes stats if a stats path is set, frees everything.
 * The last context destroyed may be kept for the next pfio_context_create with the same settings
 * in this process, emptied: its files closed, its plan and prefetched bytes dropped, its memory
 * given back to the kernel, its counts started again; its threads wait for that creation, or
 * leave when the process exits (a front end opening many small files would otherwise start and
 * stop them for each: docs/small-calls.md, "Many small files"). NULL is allowed. Returns the
 * first error met while shutting down. */
pfio_status pfio_context_destroy(pfio_context *ctx);

/* Opens `path` read-only for prefetching and returns its id in *file. The path is opened once:
 * pfio's other descriptors of the file (O_DIRECT, advice) are reopened from the first, so a file
 * renamed over the path meanwhile is never read. */
pfio_status pfio_file_open(pfio_context *ctx, const char *path, int32_t *file);

/* Opens for prefetching the file the caller already opened as `fd` (any access mode it can read
 * with), whatever `path` names now: pfio reopens the descriptor (/proc/self/fd; a dup(2) where
 * that fails) and never opens the path, so the file read is the one the caller opened even if
 * another was renamed over the path in between. `path` names the file in messages and stats. The
 * caller keeps fd and may close it; pfio's descriptors stay until pfio_file_close. */
pfio_status pfio_file_open_fd(pfio_context *ctx, int fd, const char *path, int32_t *file);

/* Closes a file: waits (bounded) for its reads in flight, drops its buffered data and removes its
 * extents from the plan. */
pfio_status pfio_file_close(pfio_context *ctx, int32_t file);

/* Files that change while they are read. pfio reads the file it opened, as read(2) on an open
 * descriptor does: a file renamed over the path later is not seen. Bytes are served as they were
 * when prefetched, so a block written by another descriptor or process after pfio prefetched it
 * comes back as the old bytes, unless:
 *  - the application calls pfio_file_refresh after the change (the ROMIO driver and the HDF5
 *    driver do so after their own writes);
 *  - the application calls pfio_file_check before a read: when the file's size, mtime or ctime
 *    moved since pfio last looked, it is refreshed as by pfio_file_refresh (the ROMIO driver does
 *    so before every read of a file opened read-only, where MPI_File_sync is refused);
 *  - the setting revalidate = on is used: before every read call the same look is taken at every
 *    open file (one fstat each); a changed file gets its size read again and every prefetched
 *    byte of the context is dropped and read again (the plan is kept);
 *  - a direct read (a miss, a sequential run, a failed prefetch's fallback) comes back shorter
 *    than the size pfio knew: the file is taken as changed, as above, before the next read.
 * Times come from a coarse clock (the kernel's tick; on network storage the server's; whole
 * seconds on ext3, ext4 with 128-byte inodes and many network file systems), so a change within
 * the same tick as pfio's look would leave them equal: a look taken within 100 ms of the file's
 * own last change (2 s on network or user-space storage; 2.1 s where the file's ctime falls on a
 * whole second, the sign of a file system that keeps seconds) never vouches for it, and the file
 * is taken as changed at every look until one finds it older than that. Writes through mmap(2)
 * move no time on some file systems (tmpfs) and only at the first write to a clean page on
 * others: after such writes call pfio_file_refresh (docs/reliability.md, the consistency contract).
 * Every read returns one version of each byte or an error; counted in pfio_stats.files_changed. */

/* The file changed on disk (written, truncated or extended, by this process or another): drops
 * every prefetched byte of it and its extents in the plan, waits (bounded) for its reads in
 * flight, and reads its size again. The file stays open: no descriptor is closed, so POSIX
 * record locks the process holds on the file (ROMIO's atomic mode) stay held. */
pfio_status pfio_file_refresh(pfio_context *ctx, int32_t file);

/* Looks whether the file changed on disk since pfio last looked (its size, mtime and ctime, with
 * the coarse-clock rule above): if so, *changed = 1 and the file is refreshed as by
 * pfio_file_refresh; else *changed = 0 and nothing is dropped. One fstat(2). */
pfio_status pfio_file_check(pfio_context *ctx, int32_t file, int *changed);

/* Size in bytes of an open file (as seen at open, or at the last pfio_file_refresh). */
pfio_status pfio_file_size(pfio_context *ctx, int32_t file, uint64_t *size);

/* The buffer kind the file was opened with (setting `buffer`; with buffer = auto, the kind
 * chosen for this file at open): *page_cache = 1 when its plan is advised into the kernel's page
 * cache and read from there, 0 when it is read into pfio's own reorder buffer (O_DIRECT where the
 * file system allows it). */
pfio_status pfio_file_buffer(pfio_context *ctx, int32_t file, int *page_cache);

/* Appends extents to the end of the plan. Every extent is checked first (open file, length > 0,
 * inside the file); on error nothing is appended. Extents may repeat, overlap and be unsorted:
 * the plan is a consumption order, not a set.
 * The plan is stored compactly and charged to the memory budget: consecutive extents of one file
 * and one length at a constant stride (blocks in order, a column, a strided subarray) share one
 * 40-byte run however many they are; other extents cost up to 40 bytes each. A plan that would
 * hold more than half the budget is PFIO_ENOMEM naming the sizes, and nothing is appended:
 * append a long random plan in parts as reading goes on (the same bound holds for the
 * replace calls). */
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

/* Ranges of open files that the job as a whole reads densely (every page, or nearly: all ranks
 * of a collective call together, say), left to the kernel's readahead: plan entries planned from
 * now on that lie inside one are not prefetched but read directly when asked for, as sequential
 * runs of the plan are, so that the readahead those reads keep going (across processes: the page
 * cache is shared) serves them in large requests. Replaces the ranges given before; count 0
 * clears them. Checked as plan extents are (open file, length > 0, inside the file). */
pfio_status pfio_plan_readahead(pfio_context *ctx, const pfio_extent *ranges, size_t count);

/* Asks the kernel to start reading these ranges into its page cache now (POSIX_FADV_WILLNEED,
 * from the context's advice thread: the call does not wait for the kernel's page allocation),
 * for files of either buffer kind, on an open file description of the context's own (not the
 * caller's: on a FUSE file, advice through the readers' description waits for their reads).
 * Outside the plan and the budget: for the next dense runs a job will read (pfio_plan_readahead's),
 * which the kernel's readahead would start only when a reader reaches them, and for a front
 * end's own reads through the page cache (the HDF5 driver's small chunks). When 4096 ranges wait
 * already, the caller advises the next itself. Checked as plan extents are; counted in pfio_stats
 * (advised_now and after). */
pfio_status pfio_advise_now(pfio_context *ctx, const pfio_extent *ranges, size_t count);

/* Reads [offset, offset+length) of `file` into buf. Served from the reorder buffer when the read
 * follows the plan (waiting, bounded, for data in flight), else read directly. *nread is short
 * only at end of file. */
pfio_status pfio_read(pfio_context *ctx, int32_t file, void *buf, uint64_t offset, uint64_t length,
                      uint64_t *nread);

/* One piece of a vector read: bytes [offset, offset+length) of the file into buf. */
typedef struct pfio_read_piece {
  void *buf;
  uint64_t offset;
  uint64_t length;
} pfio_read_piece;

/* Reads `count` pieces of one file, in the order given, as `count` pfio_read calls would, with
 * the same guarantees (correct bytes or an error, bounded waits) and one call's overhead: for
 * ROMIO's strided reads and HDF5's chunk reads. *nread is the total of bytes delivered; it is
 * short only when a piece reaches the end of the file, and the pieces after it are not read.
 * On an error the pieces before the failing one are delivered and counted in *nread. */
pfio_status pfio_readv(pfio_context *ctx, int32_t file, const pfio_read_piece *pieces, size_t count,
                       uint64_t *nread);

/* The caller read [offset, offset+length) of `file` itself, from the page cache through a
 * descriptor of its own: the plan moves on as pfio_read would move it (entries consumed, their
 * advice released and the next advised), and nothing is read. For files opened with buffer =
 * cache, whose prefetched bytes are pages of the file (a file of the reorder-buffer kind is
 * refused by name: its bytes are in pfio's buffer). A front end that reads small extents itself
 * (the HDF5 driver's chunks) pays no read through pfio for them. *nread (may be NULL): the
 * bytes of the range inside the file. */
pfio_status pfio_read_done(pfio_context *ctx, int32_t file, uint64_t offset, uint64_t length,
                           uint64_t *nread);

/* The application no longer needs [offset, offset+length): buffered data there is dropped at once
 * and plan extents inside the range that were not read yet are removed (Mowry §2.4). */
pfio_status pfio_release(pfio_context *ctx, int32_t file, uint64_t offset, uint64_t length);

/* Memory the caller holds outside the context for the context's reads (the collective layer's
 * exchange buffers), charged to the context's budget: from now on the context counts `bytes` as
 * held and prefetches into what is left of the budget, so the two together stay within it.
 * Sets the charge (it does not add to it); 0 ends it. Raising the charge while the context's
 * buffer is full does not drop prefetched data: no new prefetch read is issued until consumption
 * brings the total under the budget. PFIO_EINVAL (the charge unchanged) when `bytes` is more than
 * half the budget's cap. */
pfio_status pfio_memory_charge(pfio_context *ctx, uint64_t bytes);

/* The most the context's budget may be (*cap, bytes): the cap its AIMD controller moves the
 * budget under, fixed at creation. What a caller sizes the buffers it charges with
 * pfio_memory_charge from (a charge may take at most half of it). */
pfio_status pfio_memory_cap(pfio_context *ctx, uint64_t *cap);

/* The context's budget now (*budget, bytes): what its AIMD controller allows under the cap at
 * this moment, cut under memory pressure and grown back after. What a front end sizes what it
 * holds or advises outside the plan from (the HDF5 driver's page-cache advice: at most half of
 * it), so that memory control covers it too. */
pfio_status pfio_memory_budget(pfio_context *ctx, uint64_t *budget);

/* Between pfio_ignore and pfio_unignore, reads do not move through the plan and do not count as
 * misses (for example a plan callback reading an index). Calls nest. */
pfio_status pfio_ignore(pfio_context *ctx);
pfio_status pfio_unignore(pfio_context *ctx);

/* A snapshot of the counters: fills the first `size` bytes of *stats (pass sizeof *stats; a
 * size larger than this library's pfio_stats leaves the rest zero). */
pfio_status pfio_stats_get(pfio_context *ctx, pfio_stats *stats, size_t size);

/* Writes the counters and the AIMD history as JSON to `path`. */
pfio_status pfio_stats_write(pfio_context *ctx, const char *path);

/* The fields of this library's pfio_stats in their order: the one list that the stats JSON is
 * written from and that a binding builds its mirror of the struct from (the Python package's
 * pfio.core and pfio.h5 do, so that they read the library they loaded, whatever its version).
 * `kind`: PFIO_STATS_U64 (uint64_t), PFIO_STATS_DOUBLE (double) or PFIO_STATS_TEXT (char[size],
 * NUL-terminated). The array is static; *count gets its length. */
enum { PFIO_STATS_U64 = 0, PFIO_STATS_DOUBLE = 1, PFIO_STATS_TEXT = 2 };
typedef struct pfio_stats_field {
  const char *name;
  size_t offset;
  size_t size;
  int kind;
} pfio_stats_field;
const pfio_stats_field *pfio_stats_fields(size_t *count);

/* The name and meaning of a status, e.g. "PFIO_EINVAL (invalid argument)". */
const char *pfio_strerror(pfio_status status);

/* The message of the last failed call on this thread, or "" if none failed. */
const char *pfio_last_error(void);

/* The library's version as PFIO_VERSION_NUMBER encodes it, and as "major.minor.patch". */
unsigned pfio_version(void);
const char *pfio_version_string(void);

#ifdef __cplusplus
}
#endif

#endif /* PFIO_PFIO_H_ */
