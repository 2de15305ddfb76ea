/* H5FDprefetch — pfio's HDF5 virtual file driver.
 *
 * Contract of this header:
 *  - An HDF5 application that replaces H5Pset_fapl_sec2(fapl) by H5Pset_fapl_prefetch(fapl, NULL)
 *    reads the same bytes: raw data (dataset elements, chunks) through pfio, metadata (object
 *    headers, B-trees, heaps) straight from the file. Writes, truncation and flushes behave as
 *    with sec2. With nothing declared, runs of raw-data reads of one length at a constant stride
 *    (row and column passes) are predicted and read ahead; a prediction that keeps missing
 *    switches itself off.
 *  - H5FD_prefetch_declare(dset, file_space) says which elements the application will read next:
 *    the file extents HDF5 will read for them (the chunks the selection touches, or the runs of a
 *    contiguous dataset) are appended to the file's plan, in the order of the calls. A declared
 *    plan the application does not follow costs time, never correctness.
 *  - Every call returns a negative value on failure and pushes a message onto HDF5's error stack
 *    (class "pfio") that names the argument or field, its value and what was expected.
 *  - Built against HDF5 1.10 (no vector reads: every chunk reaches the driver as its own read).
 */
#ifndef H5FDprefetch_H
#define H5FDprefetch_H

#include <stdint.h>

#include <hdf5.h>
#include <pfio/pfio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The driver's id, registered on first use (and again after H5close). */
#define H5FD_PREFETCH (H5FD_prefetch_init())
#define H5FD_PREFETCH_NAME "prefetch"

/* The configuration a file access property list carries. Fill it with H5FD_prefetch_config_init,
 * then add engine settings with H5FD_prefetch_config_set under pfio's key names ("budget",
 * "backend", "infill_max", ...: the keys of pfio_config_set). Settings not given come from the
 * PFIO_* environment variables, then pfio's defaults. The struct is copied into the property
 * list; magic and version let the driver refuse a struct from another release. */
#define H5FD_PREFETCH_CONFIG_MAGIC 0x70664844 /* "pfHD" */
#define H5FD_PREFETCH_CONFIG_VERSION 1
#define H5FD_PREFETCH_SETTINGS_MAX 16
#define H5FD_PREFETCH_KEY_MAX 32
#define H5FD_PREFETCH_VALUE_MAX 96
#define H5FD_PREFETCH_ENGINE_NEVER UINT64_MAX

typedef struct H5FD_prefetch_setting_t {
    char key[H5FD_PREFETCH_KEY_MAX];     /* a pfio key, NUL-terminated */
    char value[H5FD_PREFETCH_VALUE_MAX]; /* its value as pfio_config_set takes it */
} H5FD_prefetch_setting_t;

typedef struct H5FD_prefetch_config_t {
    int32_t magic;     /* H5FD_PREFETCH_CONFIG_MAGIC */
    int32_t version;   /* H5FD_PREFETCH_CONFIG_VERSION */
    int32_t predict;   /* 1 (default): predict strided raw-data reads while nothing is declared;
                          at 1 the key "predict" (settings, PFIO_PREDICT) decides */
    int32_t nsettings; /* settings[0 .. nsettings) are in force */
    H5FD_prefetch_setting_t settings[H5FD_PREFETCH_SETTINGS_MAX];
    /* Every declared extent is in pfio's plan. Where the engine holds the file in the page
     * cache (the key "buffer" = cache; buffer = auto, the default, on a local file system), the
     * driver reads declared extents smaller than engine_min itself from the page cache and tells
     * pfio (pfio_read_done), and pfio reads (copies) those of at least engine_min; with buffer =
     * engine (O_DIRECT reads into pfio's reorder buffer) pfio reads them all. The default,
     * H5FD_PREFETCH_ENGINE_NEVER: the driver reads every one itself, which saves pfio's copy and
     * its cost per read (docs/hdf5-driver.md has the numbers). At the default the key "engine_min"
     * (settings, PFIO_ENGINE_MIN: a size or "never") decides. */
    uint64_t engine_min;
} H5FD_prefetch_config_t;

/* Counters of one open file: pfio's own, and the driver's. Fields are only ever added at the
 * end (sieve_switches and sieved_reads came with pfio 0.2's sieve for random readers; the
 * index_* fields and chunk_map_hits with 0.3.1, sweeps and sweep_advised with 0.3.2; `engine`
 * grows with pfio_stats, by advised_now and the fields after it with 0.4.0, when the driver's
 * advice went through its pfio context; call_spans and the fields that follow it came after
 * 0.4.0), and the driver fills the struct of its own header: a
 * program built against an older header must be rebuilt before it runs with a newer libpfio_hdf5
 * (the soname stays 0 while pfio is below 1.0). In a child of fork() `engine` is all zeros (the
 * context is the parent's). */
typedef struct H5FD_prefetch_stats_t {
    pfio_stats engine;             /* the file's pfio context (hits, misses, bytes, budget) */
    uint64_t raw_reads;            /* raw-data reads that reached the driver */
    uint64_t metadata_reads;       /* metadata reads, served straight from the file */
    uint64_t writes;               /* writes of any kind */
    uint64_t refreshes;            /* times written data made pfio drop what it had fetched */
    uint64_t declared_extents;     /* extents appended by H5FD_prefetch_declare */
    uint64_t declared_bytes;       /* their bytes */
    uint64_t skipped_chunks;       /* chunks a declared selection touches that are not allocated */
    uint64_t chunk_lookups;        /* chunk index searches made to declare them */
    uint64_t predicted_extents;    /* extents appended by the stride prediction */
    uint64_t prediction_breaks;    /* times a prediction was dropped because reads left it */
    uint64_t prediction_offs;      /* times the prediction switched itself off for missing */
    uint64_t prediction_shifts;    /* times a run went on at a new phase (a gap between chunks) */
    uint64_t advised_extents;      /* declared extents handed to pfio's page-cache kind (or, in a
                                      child of fork(), advised by the child itself) */
    uint64_t advised_reads;        /* raw reads of declared extents the driver read itself from
                                      the page cache */
    uint64_t unplanned_reads;      /* raw reads nothing declared or predicted, served as sec2
                                      would serve them (page cache), not through pfio */
    uint64_t sieve_switches;       /* times HDF5's data sieve was switched on or off (read-only
                                      files: on while the prediction is off for missing) */
    uint64_t sieved_reads;         /* raw reads that reached the driver while the sieve was on */
    uint64_t index_reads;          /* metadata reads made while declaring (chunk index nodes) */
    uint64_t index_drops;          /* runs of their pages dropped from the page cache inside a
                                      dense declared run, where they break the kernel's readahead */
    uint64_t index_advised;        /* index nodes advised while declaring, named by their parent */
    uint64_t index_chunks;         /* chunks named by index leaves read while declaring, kept */
    uint64_t chunk_map_hits;       /* chunks declared from those, without an index search */
    uint64_t sweeps;               /* column sweeps followed without a declaration */
    uint64_t sweep_advised;        /* bytes advised ahead of them, row by row */
    uint64_t call_plans;           /* H5Dread calls whose selection was their own plan
                                      (H5FD_prefetch_auto_read) */
    uint64_t call_plan_extents;    /* the extents of those plans */
    uint64_t call_plan_bytes;      /* their bytes */
    uint64_t calls_unplanned;      /* H5Dread calls of the file passed on without a plan: one chunk
                                      or one run, a file with a declaration, or a dataset whose
                                      plans went unread */
    uint64_t call_plans_unread;    /* plans of which HDF5 read less than half (it had the chunks in
                                      its chunk cache): the dataset's next calls go unplanned, 1,
                                      2, 4 ... 64 of them, until a plan is read again */
    uint64_t calls_ahead;          /* calls foreseen (the last three planned calls of a dataset
                                      selected one box each, moved by one shift) whose extents
                                      were handed to pfio when the call before them returned */
    uint64_t calls_ahead_bytes;    /* their bytes */
    uint64_t calls_ahead_used;     /* calls that were as foreseen: planned before they were made */
    uint64_t calls_ahead_missed;   /* calls foreseen and not made: dropped, and the dataset's next
                                     1, 2, 4 ... 64 planned calls foresee nothing */
    uint64_t call_spans;           /* unplanned H5Dread calls of a contiguous dataset whose runs
                                      lay close enough to advise as one span at the call's start */
    uint64_t call_span_bytes;      /* the bytes of those spans */
    uint64_t calls_unmapped;       /* unplanned H5Dread calls of a chunked dataset not mapped to
                                      their chunks: the dataset's last mapped call of that shape
                                      was one stream in the file, left to the kernel's readahead
                                      (1, 2, 4 ... 64 calls after each such mapped call) */
    uint64_t predicted_bytes;      /* bytes of the predicted_extents */
    uint64_t prediction_hit_bytes; /* of those, read by the program */
    uint64_t prediction_dropped_bytes; /* ... and dropped unread when a run broke; the rest
                                          (predicted - hit - dropped) is still ahead. The
                                          prediction switches itself off while the dropped
                                          bytes of its recent runs pass the read ones */
} H5FD_prefetch_stats_t;

/* Registers the driver if needed; returns its id, or H5I_INVALID_HID. */
hid_t H5FD_prefetch_init(void);

/* Fills *config with the magic, the version, predict = 1, no settings and
 * engine_min = H5FD_PREFETCH_ENGINE_NEVER. */
herr_t H5FD_prefetch_config_init(H5FD_prefetch_config_t *config);

/* Adds (or replaces) one engine setting. The key and value are checked by pfio at once: an
 * unknown key or bad value fails with pfio's message, and *config is unchanged. */
herr_t H5FD_prefetch_config_set(H5FD_prefetch_config_t *config, const char *key, const char *value);

/* Makes fapl_id use the driver. config NULL: the defaults and the PFIO_* environment. A config
 * with a wrong magic or version, or a setting pfio refuses, fails naming the field. */
herr_t H5Pset_fapl_prefetch(hid_t fapl_id, const H5FD_prefetch_config_t *config);

/* Copies the config of a fapl that uses the driver into *config. */
herr_t H5Pget_fapl_prefetch(hid_t fapl_id, H5FD_prefetch_config_t *config /*out*/);

/* Appends to the plan of the file holding dset_id the file extents HDF5 will read for the
 * elements selected in file_space_id (H5S_ALL: the whole dataset), in the order it reads them:
 * a chunked dataset's chunks that the selection touches in chunk order (stored size, so
 * compressed chunks are whole; unallocated chunks skipped), or a contiguous dataset's runs in
 * file order. Fails (nothing appended) if the file is not open with this driver. */
herr_t H5FD_prefetch_declare(hid_t dset_id, hid_t file_space_id);

/* The counters of the file holding obj_id (a file, dataset or group id). */
herr_t H5FD_prefetch_get_stats(hid_t obj_id, H5FD_prefetch_stats_t *stats /*out*/);

/* The driver's counters of H5FD_prefetch_stats_t after `engine` (each a uint64_t), in order: the
 * list the driver's report is written from and that a binding builds its mirror of the struct
 * from (python/pfio/h5.py, with pfio_stats_fields for `engine`). The array is static; *count
 * gets its length. */
typedef struct H5FD_prefetch_stats_field {
    const char *name;
    size_t offset; /* from the start of H5FD_prefetch_stats_t */
} H5FD_prefetch_stats_field;
const H5FD_prefetch_stats_field *H5FD_prefetch_stats_fields(size_t *count);

/* Reads as hdf5_read (HDF5's own H5Dread) would. When dset_id's file is open with this driver,
 * nothing is declared on it and the selection touches two chunks or more (a chunked dataset) or
 * two runs or more (a contiguous one), the extents HDF5 will read for it are this call's plan:
 * handed to pfio before HDF5 reads them, so that they are fetched many at a time while HDF5
 * reads them one by one, and what the call leaves unread (chunks in HDF5's chunk cache) is
 * dropped when it returns. Every other call is passed on. Any failure to plan is silent and the
 * call is passed on. This is what libpfio_hdf5_preload.so calls for an unmodified program's
 * H5Dread (docs/hdf5-driver.md, "No code change"), and what this library's own H5Dread calls
 * with HDF5's H5Dread behind it: a program linked with the driver ahead of HDF5 binds H5Dread to
 * the driver's (H5Dread@PFIO_HDF5_0) and has each call planned the same way, without the preload
 * (docs/hdf5-driver.md, "Per-call plans"). */
herr_t H5FD_prefetch_auto_read(hid_t dset_id, hid_t mem_type_id, hid_t mem_space_id,
                               hid_t file_space_id, hid_t dxpl_id, void *buf,
                               herr_t (*hdf5_read)(hid_t, hid_t, hid_t, hid_t, hid_t, void *));

/* HDF5's own H5Dread. A program linked with this driver ahead of HDF5 calls the driver's H5Dread
 * when it names H5Dread (each call its own plan, above); this is how it reads one call without
 * (the benchmark's sec2 method and the driver's tests read so). -1 after one message on stderr if
 * HDF5's H5Dread cannot be found beside the driver's HDF5. */
herr_t H5FD_prefetch_hdf5_read(hid_t dset_id, hid_t mem_type_id, hid_t mem_space_id,
                               hid_t file_space_id, hid_t dxpl_id, void *buf);

/* Opens `name` as hdf5_open (HDF5's own H5Fopen) would, but through this driver when fapl uses
 * the default driver (sec2) and the open is not a SWMR reader's; every other open is passed on
 * unchanged. If the driver cannot serve the file, the file is opened with fapl itself after one
 * message on stderr that names it and the reason: the program sees an error only when that open
 * fails too. PFIO_HDF5=off passes every open on. This is what libpfio_hdf5_preload.so calls for
 * an unmodified program's H5Fopen (docs/hdf5-driver.md, "No code change"). */
hid_t H5FD_prefetch_auto_open(const char *name, unsigned flags, hid_t fapl,
                              hid_t (*hdf5_open)(const char *name, unsigned flags, hid_t fapl));

#ifdef __cplusplus
}
#endif

#endif /* H5FDprefetch_H */
