/* What the parts of the driver share: the per-file struct, the stride prediction and the error
 * helper. Not installed. */
#ifndef H5FDprefetch_private_H
#define H5FDprefetch_private_H

#include <pthread.h>
#include <sys/types.h>

#include "H5FDprefetch.h"
#include "pfio_predict.h"

/* Prediction of raw-data reads while nothing is declared: after three reads of one length at a
 * constant stride (sequential is stride = length) the next ones, up to a look-ahead, are planned.
 * A read off the pattern drops what was predicted (a break). A break after which the recent runs
 * dropped more predicted bytes than the program read is a miss; after MISSES_OFF misses in a row
 * the prediction switches itself off for a number of reads that doubles each time (DiskSeen's
 * mis-prefetch control), so a random reader pays for a few wrong guesses, not for one per read. The
 * run, its scoring and its switch-off are pfio's stride predictor (predict/pfio_predict.h), shared
 * with the ROMIO driver; where the predicted bytes go is the driver's (H5FDprefetch_predict.c). */
typedef struct H5FD_prefetch_predictor_t {
    pfio_stride *run; /* NULL when it could not be made: no prediction */
    int via_pfio;     /* the prediction is in pfio's plan (else in the page cache) */
    /* An unplanned H5Dread under way had its span advised at its start (H5FDprefetch_call.c):
     * nothing is predicted inside it, nor past its end unless runs go on into the next call
     * (crosses_calls, decided at each such call's first read): a random tile's rows are a stride
     * that the next tile does not continue. */
    int call_advised;
    int call_first_read;
    int crosses_calls;
    /* An unplanned H5Dread under way reads a contiguous dataset's short runs within a span too
     * small to advise (H5FDprefetch_call.c, call_sieved): as sec2 reads them, through HDF5's sieve
     * on a read-only file, with nothing predicted inside it. */
    int call_sieved;
} H5FD_prefetch_predictor_t;

/* A column sweep without a declaration: a pass over a chunked dataset column by column, chunks
 * stored row by row (HDF5 reads a column strip as one chunk from every row of chunks). pfio's
 * sweep predictor (predict/pfio_predict.h, pfio_sweep) follows the reads and says what to advise:
 * when a sweep is confirmed every row ahead of the reader, H5FD__prefetch_advice_window bytes in
 * all, and each row again as the reader passes it. Nothing is read through pfio, and a wrong
 * guess costs advised bytes, never a wrong value (H5FDprefetch_sweep.c). */
typedef struct H5FD_prefetch_sweep_t {
    pfio_sweep *sweep; /* made at the first undeclared read; NULL without memory: no sweep */
} H5FD_prefetch_sweep_t;

/* A growing list of extents. */
typedef struct H5FD_prefetch_extents_t {
    pfio_extent *items;
    size_t count, capacity;
    int failed; /* an allocation failed: the list is incomplete */
} H5FD_prefetch_extents_t;

/* How far advice outside the plan (predictions, sweeps) reaches ahead of the reader at most
 * (H5FDprefetch_advise.c): less when half the pfio budget is less (H5FD__prefetch_advice_window).
 */
#define H5FD_PREFETCH_ADVISE_AHEAD ((uint64_t)64 << 20)

/* One open file. The descriptor is the file as sec2 would see it (metadata, writes, truncation,
 * H5Fget_vfd_handle); the pfio context reads raw data ahead, through its own descriptor. */
typedef struct H5FD_prefetch_t {
    H5FD_t pub; /* public stuff, must be first */

    /* The file's descriptor, opened with the access HDF5 asked for; H5Fget_vfd_handle returns its
     * address (H5FD_FEAT_POSIX_COMPAT_HANDLE). */
    int fd;

    /* The file's page-cache advice goes out from the advice thread of its pfio context
     * (pfio_advise_now; the context started at the first advice), unless that failed once (no
     * context, a forked child): then the reader advises, and this is 1. */
    int advise_inline;

    /* End of allocated space as HDF5 sets it, and end of file (the size at open, grown by
     * writes, set by truncate). Reads past eof return zeros, as with sec2. */
    haddr_t eoa;
    haddr_t eof;

    /* Device and inode, so that opening one file twice is seen by cmp. */
    dev_t device;
    ino_t inode;

    /* The config this file was opened with (a copy of the fapl's). */
    H5FD_prefetch_config_t config;

    /* The name it was opened by, and pfio's context and file id for it (ctx NULL until
     * something is read through pfio). pfio_size is the size pfio read when it opened the file
     * or at the last refresh (before that, the size at open): raw reads past it go to fd. */
    char *name;
    pfio_context *ctx;
    pid_t ctx_owner; /* the process that made ctx: a child of fork() leaves it to its parent */
    int32_t pfio_file;
    uint64_t pfio_size;

    /* A write happened since pfio last looked at the file: before the next raw read pfio drops
     * everything it fetched of it (pfio_file_refresh), so no byte older than the write is served.
     */
    int stale;

    /* Something was declared: the prediction stays off, the plan is the application's. */
    int declared;
    /* An H5Dread under way whose selection is the plan (H5FD_prefetch_auto_read): its raw reads
     * are served as declared ones, and what it left unread is dropped when it returns. */
    int call_plan;
    uint64_t call_plan_planned, call_plan_read; /* its bytes, and those HDF5 read of them */
    /* The call foreseen whose extents are in pfio's plan while the program is between calls:
     * its dataset (ahead_info NULL: none; ahead_dset its id, as the slot may be reused), its
     * selection's box and its bytes (H5FDprefetch_call.c). */
    struct H5FD_prefetch_dataset_t *ahead_info;
    hid_t ahead_dset;
    hsize_t ahead_lo[H5S_MAX_RANK], ahead_hi[H5S_MAX_RANK];
    uint64_t ahead_bytes;

    /* Opened without H5F_ACC_RDWR: HDF5's data sieve may be switched on and off while the file
     * is open (H5FD__prefetch_sieve_follow), since no write can leave a sieve buffer stale. */
    int read_only;
    int page_cache_kind; /* the engine holds the file in its page-cache kind (buffer = cache) */

    /* Guards what plans share between a thread planning an H5Dread (H5FDprefetch_call.c) or
     * declaring, outside HDF5's lock, and the raw reads HDF5 makes in another thread: pending,
     * call_plan and ahead_*, the predictor. Held by the raw read path for its whole read, and by
     * a planner only around work that calls no HDF5 function (pushing an error takes HDF5's
     * lock: a planner holding this one while a raw read holds HDF5's would deadlock). Recursive:
     * the raw read path may start the file's pfio context, which takes it too. */
    pthread_mutex_t plan_lock;

    /* Declared extents not yet handed to pfio: they go in one pfio_plan_append at the next raw
     * read, so an application that declares one small selection at a time pays pfio's per-call
     * planning cost once per batch, not once per selection. */
    H5FD_prefetch_extents_t pending;

    /* While a thread looks up the chunks of a selection (H5FD__prefetch_declaring is this file on
     * that thread), the pages of the index nodes HDF5 reads for it are noted in index_pages (the
     * first index_pages_sorted of them sorted and joined), to be dropped from the page cache
     * where they lie inside a dense declared run left to readahead (H5FDprefetch_extents.c). */
    /* The children of the chunk index's internal nodes HDF5 read while nothing was declared
     * (H5FD__prefetch_btree_note_node), advised when a column sweep starts. */
    H5FD_prefetch_extents_t index_children;
    struct H5FD_prefetch_dataset_t *declaring_info; /* the dataset being declared */
    /* Which children of an index node read for declaring_info are advised: all of them for a
     * declared plan (its searches go on through the index); for the driver's own plan of a call
     * (declaring_own) only those whose keys can name a chunk from declaring_first to
     * declaring_last (element offsets of the selection's first and last chunk, row-major): the
     * others are the index of later calls, read as sec2 reads them (docs/hdf5-driver.md,
     * "Per-call plans"). */
    int declaring_own;
    hsize_t declaring_first[H5S_MAX_RANK], declaring_last[H5S_MAX_RANK];
    H5FD_prefetch_extents_t index_pages;
    size_t index_pages_sorted;

    unsigned char *probe_buffer; /* H5Dread_chunk's buffer: never written while probing */
    size_t probe_buffer_size;

    H5FD_prefetch_predictor_t predictor;
    H5FD_prefetch_sweep_t sweep;
    H5FD_prefetch_stats_t stats;
    /* The key "stats_path" (PFIO_STATS_PATH, ...): when set, the driver's counters are written
     * to it + ".hdf5" at close (H5FDprefetch_report.c); NULL when not set. */
    char *stats_path;
} H5FD_prefetch_t;

/* A chunk lookup of H5FD_prefetch_declare (chunk_address): H5Dread_chunk finds the chunk through
 * its index (a B-tree search) and reads it raw at its address; the driver records that address
 * and size here instead of reading. Per thread: HDF5 built thread-safe (Debian's serial build)
 * runs another thread's H5Dread between the declare's calls, and a flag on the file swallowed
 * that thread's raw reads too, leaving its buffer unfilled (docs/reliability.md, round 4). */
typedef struct H5FD_prefetch_probe_t {
    const H5FD_prefetch_t *file; /* the file probed on this thread, or NULL */
    haddr_t addr;
    size_t size;
} H5FD_prefetch_probe_t;
extern _Thread_local H5FD_prefetch_probe_t H5FD__prefetch_probe;
/* The file whose chunks this thread is looking up (set by H5FDprefetch_declare.c, defined and read
 * in H5FDprefetch_raw.c), or NULL: per thread,
 * so that another thread's metadata reads are not taken for index nodes of the lookup. */
extern _Thread_local const H5FD_prefetch_t *H5FD__prefetch_declaring;

/* The driver's id while registered, else H5I_INVALID_HID; H5FDprefetch.c records it when it
 * registers the driver (H5FDprefetch_registered.c). */
hid_t H5FD__prefetch_registered_id(void);
void H5FD__prefetch_set_registered_id(hid_t id);

/* Whether `config` is one this release understands (magic, version, fields, every setting
 * accepted by pfio); 0 after pushing an error that names the field (H5FDprefetch_config.c). */
int H5FD__prefetch_config_ok(const H5FD_prefetch_config_t *config, const char *func);

/* Pushes one formatted line onto HDF5's default error stack under the class "pfio", with HDF5's
 * major error `major` (H5E_VFL, H5E_ARGS, ...) and minor `minor`. */
void H5FD__prefetch_error(const char *func, hid_t major, hid_t minor, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* pfio's config for a file: the PFIO_* environment, then `config`'s settings, validated; NULL
 * after pushing an error that names the first setting pfio refuses (H5FDprefetch_config.c). */
pfio_config *H5FD__prefetch_engine_config(const H5FD_prefetch_config_t *config, const char *func);
/* An open file's config settled: pfio's config built as above (-1 after pushing its error),
 * predict and engine_min taken from its keys where *config's fields are at their defaults,
 * *stats_path a copy of the key "stats_path" (NULL when it is empty), and *page_cache_kind 1
 * unless the key "buffer" is engine (until pfio opens the file: H5FD__prefetch_engine sets it to
 * the kind pfio gave the file, which buffer = auto chooses at open). */
int H5FD__prefetch_settle_config(H5FD_prefetch_config_t *config, char **stats_path,
                                 int *page_cache_kind, const char *func);

/* Writes the file's counters as JSON to its stats path + ".hdf5" when it has one, by the rule of
 * every file pfio writes; what prevents it is said on stderr (close is total: the file closes). */
void H5FD__prefetch_write_report(const H5FD_prefetch_t *file);

/* Closes the ids given (a file, property list, dataspace or datatype; negative ones skipped),
 * keeping the error stack as it was when `failed` (every HDF5 call clears it). */
void H5FD__prefetch_close_ids(int failed, hid_t a, hid_t b, hid_t c);

/* The driver's file struct behind obj_id (any id inside a file opened with the driver), or NULL
 * after pushing an error that says why. */
H5FD_prefetch_t *H5FD__prefetch_file_of(hid_t obj_id, const char *func);

/* Starts pfio's context for the file if it has none yet (H5FDprefetch_engine.c), for the
 * program's declared plan (`declared` 1) or for the driver's own plans and advice (0): under
 * buffer = auto the second opens the file in the page-cache kind wherever it is. 0, or -1 after
 * pushing an error. */
int H5FD__prefetch_engine(H5FD_prefetch_t *file, int declared, const char *func);
/* Whether the file's pfio context was made by another process (this is a child of fork(), where
 * pfio refuses the parent's context): the child reads and advises without it. */
int H5FD__prefetch_engine_inherited(const H5FD_prefetch_t *file);

/* Makes pfio drop what it fetched of the file and its plan (after a write), and read the size
 * again. 0, or -1 after pushing pfio's error. */
int H5FD__prefetch_refresh(H5FD_prefetch_t *file, const char *func);

/* Calls to pass on before trying something again (H5FDprefetch_call.c), and how many the next
 * failure makes it: 1, 2, 4 ... 64, back to 1 after a success. */
typedef struct H5FD_prefetch_backoff_t {
    unsigned skip, backoff;
} H5FD_prefetch_backoff_t;

/* What declare needs to know of a dataset. Finding it costs a dozen HDF5 calls that copy
 * property lists, as much as declaring a small selection itself, so it is found once per dataset
 * id and kept (HDF5 1.10 does not reuse the id of a closed object). */
typedef struct H5FD_prefetch_dataset_t {
    hid_t id; /* the dataset, 0 for an empty slot */
    H5FD_prefetch_t *file;
    int rank;
    hsize_t dims[H5S_MAX_RANK];
    size_t elem;
    H5D_layout_t layout;
    haddr_t base; /* contiguous: where the elements start (HADDR_UNDEF: not written yet) */
    hsize_t cdims[H5S_MAX_RANK];
    uint64_t chunk_bytes;
    hsize_t across[H5S_MAX_RANK]; /* chunks along each dimension (edge chunks included) */
    uint64_t nchunks;             /* their product: the chunks of the dataset */
    int filtered;                 /* chunks pass through filters (compression): stored sizes vary */
    int whole; /* chunks are read whole: filtered, or small enough for the chunk cache */
    /* The chunks the leaves of its chunk index named, read while declaring, and the chunks
     * looked up one by one (NULL: none yet). */
    struct H5FD_prefetch_chunkmap_t *chunks;
    /* Per-call plans (H5FDprefetch_call.c): calls to pass on unplanned after an unread plan. */
    H5FD_prefetch_backoff_t plans;
    /* Calls of one box shape (stream_lo/hi's) that mapped to one stream in the file: calls of that
     * shape to pass on without mapping. */
    H5FD_prefetch_backoff_t stream;
    hsize_t stream_lo[H5S_MAX_RANK], stream_hi[H5S_MAX_RANK];
    /* The call after next, foreseen: the last call's selection as one box (box_known), the shift
     * from the box before it and how many calls in a row moved by it; planned calls to pass
     * before foreseeing again after a miss. */
    int box_known;
    hsize_t box_lo[H5S_MAX_RANK], box_hi[H5S_MAX_RANK];
    int64_t shift[H5S_MAX_RANK];
    unsigned shifts_in_row;
    H5FD_prefetch_backoff_t ahead;
} H5FD_prefetch_dataset_t;

/* Chunk maps (H5FDprefetch_chunkmap.c): a chunk's linear index (row-major, in chunks) to its
 * address and stored size. put creates the map at *mapp if needed, sized for `chunks` chunks
 * (a put that finds no memory keeps nothing); get is 1 and fills *addr and *stored when the chunk
 * is kept, else 0; clear forgets every chunk; free frees (NULL: nothing). */
typedef struct H5FD_prefetch_chunkmap_t H5FD_prefetch_chunkmap_t;
void H5FD__prefetch_chunkmap_put(H5FD_prefetch_chunkmap_t **mapp, uint64_t chunk, haddr_t addr,
                                 uint64_t stored, uint64_t chunks);
int H5FD__prefetch_chunkmap_get(const H5FD_prefetch_chunkmap_t *map, uint64_t chunk, haddr_t *addr,
                                uint64_t *stored);
void H5FD__prefetch_chunkmap_clear(H5FD_prefetch_chunkmap_t *map);
void H5FD__prefetch_chunkmap_free(H5FD_prefetch_chunkmap_t *map);

/* The linear index of the chunk at element offset `offset` of `info`'s dataset, or UINT64_MAX
 * when the offset is not a chunk's first element inside the dataset (H5FDprefetch_dataset.c). */
uint64_t H5FD__prefetch_chunk_index(const H5FD_prefetch_dataset_t *info, const hsize_t *offset);

/* Forgets the chunk maps of every dataset of `file` (after a write: chunks may have moved). */
void H5FD__prefetch_dataset_forget_chunks(const H5FD_prefetch_t *file);

/* The kept facts of dataset dset_id, whose dataspace is rank x dims now; found again when the
 * dataset was extended since (H5FDprefetch_dataset.c). NULL after pushing an error. */
H5FD_prefetch_dataset_t *H5FD__prefetch_dataset(hid_t dset_id, int rank, const hsize_t *dims);

/* The raw-data read path (H5FDprefetch_raw.c). read_raw: [addr, addr+size) of raw data, through
 * pfio where it was planned and the rest from the descriptor; read_direct: from the descriptor,
 * zeros past the end of the file. 0, or -1 after pushing an error. */
int H5FD__prefetch_read_raw(H5FD_prefetch_t *file, haddr_t addr, size_t size, unsigned char *buf,
                            const char *func);
int H5FD__prefetch_read_direct(H5FD_prefetch_t *file, haddr_t addr, size_t size, unsigned char *buf,
                               const char *func);
/* A metadata read (H5FDprefetch_raw.c): from the descriptor, never through pfio. While declaring,
 * its pages are noted (read_index); while nothing is declared, a chunk index node's children are
 * noted for column sweeps (H5FD__prefetch_btree_note_node). 0, or -1 after pushing an error. */
int H5FD__prefetch_read_metadata(H5FD_prefetch_t *file, H5FD_mem_t type, haddr_t addr, size_t size,
                                 unsigned char *buf, const char *func);
/* The chunk index while declaring (H5FDprefetch_btree.c): a node HDF5 read while declaring
 * file->declaring_info's chunks. An internal node of its version 1 B-tree: its children are
 * advised; a leaf: the chunks it names go into the dataset's chunk map. Anything else is left
 * alone. */
void H5FD__prefetch_btree_node_read(H5FD_prefetch_t *file, const unsigned char *node, size_t size);

/* A metadata read made while nothing is declared (H5FDprefetch_btree.c): when it is an internal
 * node of a version 1 B-tree of chunks (of any rank), its children are noted in
 * file->index_children (up to H5FD_PREFETCH_INDEX_CHILDREN_MAX of them), for a column sweep to
 * advise when it starts: HDF5 reads the leaves of a chunk index one at a time as a column pass
 * reaches them. */
#define H5FD_PREFETCH_INDEX_CHILDREN_MAX ((size_t)1 << 16)
void H5FD__prefetch_btree_note_node(H5FD_prefetch_t *file, const unsigned char *node, size_t size);

/* A metadata read made while declaring: read_direct, and the pages it touched noted in
 * index_pages. 0, or -1 after pushing an error. */
int H5FD__prefetch_read_index(H5FD_prefetch_t *file, haddr_t addr, size_t size, unsigned char *buf,
                              const char *func);

/* The file extents HDF5 will read for the selection of file_space_id (H5S_ALL: all of it) in
 * dataset dset_id, in the order it reads them (H5FDprefetch_declare.c has what that is for each
 * layout), appended to *list and cut to the size pfio saw; *file is the driver's file, whose pfio
 * context is started when there is something to read (for a `declared` plan or a call's:
 * H5FD__prefetch_engine). 0, or -1 after pushing an error that names
 * `func` (nothing appended). */
int H5FD__prefetch_selection_extents(hid_t dset_id, hid_t file_space_id, int declared,
                                     const char *func, H5FD_prefetch_extents_t *list,
                                     H5FD_prefetch_t **file);

/* Extent lists (H5FDprefetch_extents.c): append *e as it is; push [offset, offset+length),
 * joined to the last extent when adjacent to it; sort items[from ..] by offset and join
 * adjacent ones. An allocation failure sets list->failed and leaves the list as it was. */
void H5FD__prefetch_extents_append(H5FD_prefetch_extents_t *list, const pfio_extent *e);
void H5FD__prefetch_extents_push(H5FD_prefetch_extents_t *list, int32_t file, uint64_t offset,
                                 uint64_t length);
void H5FD__prefetch_extents_sort_and_join(H5FD_prefetch_extents_t *list, size_t from);

/* Switches HDF5's data sieve (H5FD_FEAT_DATA_SIEVE, which HDF5 looks at on every contiguous
 * read) on while the prediction is switched off for missing, on a read-only file, and off
 * otherwise (H5FDprefetch_predict.c). */
void H5FD__prefetch_sieve_follow(H5FD_prefetch_t *file);

/* Whether `list`, in the order HDF5 reads it, is one stream: each extent at most DENSE_JOIN_GAP
 * past the end of the one before, the gaps at most 1/16 of the whole (H5FDprefetch_extents.c).
 * The kernel's readahead follows such a read by itself. */
int H5FD__prefetch_one_stream(const H5FD_prefetch_extents_t *list);

/* Hands the pending declared extents to pfio. flush_pending: 0, or -1 after pushing pfio's
 * error; hand_pending: PFIO_OK or pfio's status, pushing nothing (for code that holds
 * plan_lock outside HDF5's lock). */
int H5FD__prefetch_flush_pending(H5FD_prefetch_t *file, const char *func);
pfio_status H5FD__prefetch_hand_pending(H5FD_prefetch_t *file);

/* Drops from the page cache the pages of index nodes read while declaring that lie in
 * [start, end) (H5FDprefetch_extents.c has the why). */
void H5FD__prefetch_drop_index_pages(H5FD_prefetch_t *file, uint64_t start, uint64_t end);
/* The bytes advice outside the plan may hold advised and unread: H5FD_PREFETCH_ADVISE_AHEAD, or
 * half the pfio budget now when that is less; and posix_fadvise(WILLNEED) of
 * [offset, offset + length) by the advice thread of the file's pfio context
 * (H5FDprefetch_advise.c). */
uint64_t H5FD__prefetch_advice_window(H5FD_prefetch_t *file);
void H5FD__prefetch_willneed(H5FD_prefetch_t *file, uint64_t offset, uint64_t length);

/* Prediction: forget everything (at open, after a refresh), and observe one raw read before it
 * is served (which may predict the next ones). observe returns 0 for a read nobody predicted,
 * 1 for one predicted into the page cache, 2 for one predicted into pfio's plan: only those are
 * read through pfio; the others go through the page cache. */
/* Makes the file's predictor at the first call (none when out of memory), forgets its run and
 * the sweep after; _free frees both at close. */
void H5FD__prefetch_predictor_reset(H5FD_prefetch_t *file);
void H5FD__prefetch_predictor_free(H5FD_prefetch_t *file);
/* Copies the prediction's byte counts into file->stats (predicted_bytes and the two after it). */
void H5FD__prefetch_predictor_count(H5FD_prefetch_t *file);
int H5FD__prefetch_predictor_observe(H5FD_prefetch_t *file, haddr_t addr, size_t size);

/* Column sweeps (H5FDprefetch_sweep.c): observe one undeclared raw read (which may advise rows
 * ahead of the sweep it continues); forget the sweep (keeping the arrays); free the arrays. */
void H5FD__prefetch_sweep_observe(H5FD_prefetch_t *file, haddr_t addr, size_t size);
void H5FD__prefetch_sweep_reset(H5FD_prefetch_sweep_t *sweep);
void H5FD__prefetch_sweep_free(H5FD_prefetch_sweep_t *sweep);

#endif /* H5FDprefetch_private_H */
