/* ad_prefetch: ROMIO's ADIO driver for pfio.
 *
 * Contract. A file reaches this driver when its name starts with "prefetch:", when it is opened
 * with the info key prefetch=enable (also from a ROMIO_HINTS file), or when
 * ROMIO_FSTYPE_FORCE=prefetch: is set. It is an ordinary UFS file underneath: opening, writing,
 * locking, resizing and deleting are ROMIO's generic (UFS) code. Reads of a file opened for
 * reading go through one pfio context per file (the public C API only, pfio/pfio.h):
 *   - independent reads: the extents of the request, in file-view order, become the plan when a
 *     request has several; single extents feed a history predictor (sequential and strided runs)
 *     that plans ahead of the reader, and is cleared the moment the pattern breaks;
 *   - collective reads: pfio's collective layer (pfio_coll.h): every rank's extents are
 *     exchanged, aggregator ranks read the stripes they own through their pfio context, with
 *     the calls that repeat shifted by a constant planned ahead, and ship the bytes to the ranks
 *     that asked; ROMIO's two-phase when the layer is off (hint prefetch_collective=disable,
 *     romio_cb_read=disable) or a rank cannot use pfio for the call.
 * Consistency: every write, MPI_File_sync and MPI_File_set_size drops this rank's prefetched
 * bytes of the file before it returns; on a file opened read-only, whose MPI_File_sync ROMIO
 * refuses, every read first looks at the file's size and times and drops them if it changed; reads
 * under a ROMIO write (data sieving, two-phase read-modify-write) and in atomic mode use the stock
 * path. pfio never returns bytes older than what the rank wrote or, after sync-barrier-sync, what
 * another rank wrote. Errors of pfio become MPI_ERR_IO with pfio's message (which names the thing
 * and its value).
 */
#ifndef AD_PREFETCH_H_INCLUDED
#define AD_PREFETCH_H_INCLUDED

#include <stdint.h>

#include "adio.h"
#include "pfio/pfio.h"
#include "pfio_predict.h"
#include "pfio_coll.h"

/* Per-file state, in fd->fs_ptr from SetInfo at open to Close. */
typedef struct ADIOI_PREFETCH_File {
    pfio_config *config;   /* engine settings from the PFIO_* environment and the hints */
    MPI_Info open_info;    /* the hints as given at open (MPI_INFO_NULL when none) */
    pfio_context *ctx;     /* NULL: every read takes the stock path (see `why_stock`) */
    int start_pending;     /* ctx starts at the file's first read (ADIOI_PREFETCH_Start) */
    int32_t file;          /* pfio's id of the file, valid when ctx != NULL */
    uint64_t size;         /* file size pfio saw when it opened the file */
    int broken;            /* a refresh failed: stock reads until close */
    int bypass;            /* > 0 while a ROMIO write reads holes: stock reads */
    int sieving;           /* inside ROMIO's data sieving for an independent read */
    int page_cache;        /* the file's buffer kind is the page cache (pfio_file_buffer) */
    int rank;              /* in fd->comm */
    int ranks;             /* fd->comm's size */
    int opening;           /* inside OpenColl, whose create step opens and closes once */
    int internal;          /* ROMIO's own shared-file-pointer file: stock reads, no stats */
    char mismatch[320];    /* a hint that differs between ranks ("" when none) */
    int print_hints;       /* prefetch_print_hints */
    char stats_path[1024]; /* the hint or PFIO_STATS path as given (before the rank suffix) */
    char why_stock[160];   /* why reads take the stock path, for prefetch_print_hints */
    pfio_stride *stride;   /* single-extent reads: strided runs (predict/pfio_predict.h); lazily */
    pfio_calls *calls;     /* multi-extent requests that repeat shifted; lazily */
    int planned_calls;     /* predicted requests appended to the plan and not yet read */
    pfio_judge *judge;     /* independent reads: pfio's path or ROMIO's (step_aside); lazily */
    int judge_stock;       /* the judge gave the last independent read to ROMIO's path */
    /* Collective reads through pfio's collective layer (ad_prefetch_rdcoll.c) */
    int coll_enabled;       /* prefetch_collective */
    int coll_lookahead;     /* prefetch_coll_lookahead: calls predicted ahead */
    uint64_t coll_ahead;    /* prefetch_coll_ahead: bytes of later calls planned; 0: default */
    int coll_timeout_s;     /* prefetch_coll_timeout: bound of waits for other ranks */
    int step_aside;         /* prefetch_step_aside: ROMIO's path while pfio's is slower */
    int stepping_aside;     /* inside a collective call handed to ROMIO: its reads are stock */
    int coll_state;         /* 0 before the first collective read, 1 on, -1 off (all ranks) */
    char coll_why_off[160]; /* why collective reads take ROMIO's two-phase path */
    char record_path[1024]; /* prefetch_record: rank 0 writes the job's collective plan */
    char replay_path[1024]; /* prefetch_replay: a recorded plan, declared at the first call */
    pfio_coll *coll;        /* when coll_state == 1 */
    int coll_attached;      /* coll holds ctx (made without it: pfio_coll_attach at need) */
    uint64_t stock_reads;   /* reads that took the stock path */
    uint64_t cache_reads;   /* independent reads of a file of the page-cache kind */
    uint64_t cache_sieved;  /* of those, strided requests read by ROMIO's data sieving */
    uint64_t cache_direct;  /* strided requests the stock path read a pread per extent (not
                             * through the engine, so not in cache_reads: read_direct) */
    uint64_t invalidations; /* writes, syncs and resizes that dropped prefetched bytes */
} ADIOI_PREFETCH_File;

/* ad_prefetch_select.c: nonzero when `filename` with `get(hints, key, value, size)` must go to
 * this driver (prefix, prefetch=enable in the hints or the ROMIO_HINTS file, or
 * ROMIO_FSTYPE_FORCE=prefetch:). `get` returns nonzero when the key is present. */
int ADIOI_PREFETCH_Wanted(const char *filename,
                          int (*get)(void *hints, const char *key, char *value, int size),
                          void *hints);
/* The name ROMIO resolves: "prefetch:" prepended when the file is wanted without the prefix. */
const char *ADIOI_PREFETCH_Select_name(const char *filename, MPI_Info info);

/* ad_prefetch_hints.c */
void ADIOI_PREFETCH_SetInfo(ADIO_File fd, MPI_Info users_info, int *error_code);
void ADIOI_PREFETCH_Print_hints(ADIO_File fd);

/* ad_prefetch_open.c */
void ADIOI_PREFETCH_Open(ADIO_File fd, int *error_code);
void ADIOI_PREFETCH_OpenColl(ADIO_File fd, int rank, int access_mode, int *error_code);
void ADIOI_PREFETCH_Close(ADIO_File fd, int *error_code);
void ADIOI_PREFETCH_Flush(ADIO_File fd, int *error_code);
void ADIOI_PREFETCH_Resize(ADIO_File fd, ADIO_Offset size, int *error_code);
/* Drops every prefetched byte of the file and re-reads its size (bounded wait for reads in
 * flight). Returns an MPI error code. */
int ADIOI_PREFETCH_Invalidate(ADIO_File fd, const char *caller);

/* ad_prefetch_state.c (the bottom: it calls no other part of the driver) */
/* The driver state when reads may use pfio now (started, not broken, bypassed or atomic), else
 * NULL; the stock reads are counted. */
ADIOI_PREFETCH_File *ADIOI_PREFETCH_Usable(ADIO_File fd);
/* As ADIOI_PREFETCH_Usable, but a context still pending stays so (pf->ctx NULL): an independent
 * read asks its judge first, and one the judge gives to ROMIO starts nothing. */
ADIOI_PREFETCH_File *ADIOI_PREFETCH_Usable_unstarted(ADIO_File fd);
/* 1 when pf's context runs, started now if it was pending; 0 (the read counted as stock) when
 * it could not start. */
int ADIOI_PREFETCH_Started(ADIO_File fd, ADIOI_PREFETCH_File *pf);
/* 1 when the file's buffer kind is known without its context (pf->page_cache set: the setting
 * names it), or the context runs; 0 when the setting leaves it to the engine (auto). What the
 * judges' keys need before a context starts. */
int ADIOI_PREFETCH_Kind_known(ADIOI_PREFETCH_File *pf);
/* 1 when pfio may serve the read about to be made: on a file opened read-only it first looks
 * whether the file changed on disk (MPI_File_sync is refused there; one fstat) and drops what
 * was prefetched if so. 0 when it cannot tell: the file reads through the stock path from then
 * on (counted). A read the judge hands to ROMIO needs no look: pfio serves none of its bytes. */
int ADIOI_PREFETCH_Current(ADIO_File fd, ADIOI_PREFETCH_File *pf);
/* ADIOI_PREFETCH_Usable, then ADIOI_PREFETCH_Current. */
ADIOI_PREFETCH_File *ADIOI_PREFETCH_Active(ADIO_File fd);
/* Starts pfio's handle on the file (its context, the file opened a second time, read-only) if
 * it is pending: at the first read, collective read or declared plan, so that an open the
 * program never reads through costs no context (docs/romio-driver.md, "What an open costs").
 * A refusal leaves reads on the stock path, with the reason in why_stock. */
void ADIOI_PREFETCH_Start(ADIO_File fd, ADIOI_PREFETCH_File *pf);
/* An MPI_ERR_IO error code carrying pfio's last message. */
int ADIOI_PREFETCH_Error(const char *caller, int line, pfio_status status);
/* Forgets what the independent reads predicted from (the file changed, or the view did). */
void ADIOI_PREFETCH_Forget_history(ADIOI_PREFETCH_File *pf);
/* CLOCK_MONOTONIC in nanoseconds: how stepping aside times both paths of a call alike. */
uint64_t ADIOI_PREFETCH_Now_ns(void);

/* ad_prefetch_read.c */
void ADIOI_PREFETCH_ReadContig(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                               int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                               int *error_code);
void ADIOI_PREFETCH_ReadStrided(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                                int *error_code);
/* MPI_File_iread*: the blocking reads above, completed in the call, with the byte count the read
 * returned (up to EOF; ROMIO's fake nonblocking reads miscount a read that ends inside the
 * memory type). */
void ADIOI_PREFETCH_IreadContig(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                int file_ptr_type, ADIO_Offset offset, ADIO_Request *request,
                                int *error_code);
void ADIOI_PREFETCH_IreadStrided(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                 int file_ptr_type, ADIO_Offset offset, ADIO_Request *request,
                                 int *error_code);
/* The bytes a read status counts (0 when it cannot say): what a nonblocking read completes
 * with. */
MPI_Offset ADIOI_PREFETCH_Status_bytes(ADIO_Status *status);
/* At close: the independent reads' judge carries on to the process's next file of this buffer
 * kind (pfio_judge_keep). */
void ADIOI_PREFETCH_Keep_judge(const ADIOI_PREFETCH_File *pf);
/* The byte count a read status reports (where this ROMIO can set one). */
void ADIOI_PREFETCH_Set_status(ADIO_Status *status, MPI_Datatype datatype, uint64_t bytes);
/* A read done by ROMIO's own code (`read`: ADIOI_GEN_ReadStrided or
 * ADIOI_GEN_ReadStridedColl), with its status set to the bytes before the end of the file: ROMIO
 * counts the whole request there, pfio's path what it read; and the user's memory for bytes past
 * the end left as it was (ROMIO fills it with stale bytes; an error when there is no memory to
 * keep it in). fp_ind: the individual file pointer before the call. */
typedef void (*ADIOI_PREFETCH_Blocking_read)(ADIO_File, void *, int, MPI_Datatype, int, ADIO_Offset,
                                             ADIO_Status *, int *);
void ADIOI_PREFETCH_Read_stock(ADIOI_PREFETCH_Blocking_read read, ADIO_File fd, void *buf,
                               int count, MPI_Datatype datatype, int file_ptr_type,
                               ADIO_Offset offset, ADIO_Offset fp_ind, ADIO_Status *status,
                               int *error_code);

/* ad_prefetch_rdcoll.c */
void ADIOI_PREFETCH_Coll_close(ADIOI_PREFETCH_File *pf);
/* Whether collective reads use pfio's layer (pf->coll_state), decided once on every rank;
 * first_call: this rank's extents of the first collective call (NULL with a declaration). */
void ADIOI_PREFETCH_Coll_decide(ADIO_File fd, ADIOI_PREFETCH_File *pf,
                                const pfio_extent *first_call, int nfirst);
/* MPI_File_set_info with "prefetch_plan" (pfio/pfio_mpi.h): declares the calls. Collective. */
void ADIOI_PREFETCH_Coll_declare(ADIO_File fd, ADIOI_PREFETCH_File *pf, const char *value,
                                 int *error_code);
/* why = "" when prefetch_replay may be used for this file and communicator, else why not. */
void ADIOI_PREFETCH_Check_replay(ADIO_File fd, ADIOI_PREFETCH_File *pf, char *why, size_t size);
void ADIOI_PREFETCH_ReadStridedColl(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                    int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                                    int *error_code);
void ADIOI_PREFETCH_IreadStridedColl(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                     int file_ptr_type, ADIO_Offset offset, ADIO_Request *request,
                                     int *error_code);

/* ad_prefetch_write.c */
void ADIOI_PREFETCH_WriteContig(ADIO_File fd, const void *buf, int count, MPI_Datatype datatype,
                                int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                                int *error_code);
void ADIOI_PREFETCH_WriteStrided(ADIO_File fd, const void *buf, int count, MPI_Datatype datatype,
                                 int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                                 int *error_code);
void ADIOI_PREFETCH_WriteStridedColl(ADIO_File fd, const void *buf, int count,
                                     MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset,
                                     ADIO_Status *status, int *error_code);
void ADIOI_PREFETCH_IwriteStridedColl(ADIO_File fd, const void *buf, int count,
                                      MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset,
                                      ADIO_Request *request, int *error_code);

void ADIOI_PREFETCH_Fcntl(ADIO_File fd, int flag, ADIO_Fcntl_t *fcntl_struct, int *error_code);

/* ad_prefetch_view.c: the request as file extents (in file-view order, zero lengths dropped,
 * the individual file pointer advanced as ROMIO does) and as read pieces pairing them with the
 * user's buffer through its memory datatype. *pieces is malloc'ed; free it. */
int ADIOI_PREFETCH_View_pieces(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                               int file_ptr_type, ADIO_Offset offset, pfio_read_piece **pieces,
                               int *npieces, pfio_extent **extents, int *nextents, uint64_t *total);
/* The bytes a request of `count` elements of `datatype` asks for (0 for a count or size of 0 or
 * less). */
uint64_t ADIOI_PREFETCH_Request_bytes(int count, MPI_Datatype datatype);
/* The file offset of an explicit offset in etypes through the view: disp + etype size x offset,
 * as ROMIO's contiguous reads take it. */
ADIO_Offset ADIOI_PREFETCH_View_offset(ADIO_File fd, ADIO_Offset offset);
/* The bytes of the request that lie before `eof`, the view walked from `fp_ind` (the individual
 * file pointer before the read; fd->fp_ind is left as it is); *crosses = 1 when some lie past. */
uint64_t ADIOI_PREFETCH_View_bytes_before(ADIO_File fd, int count, MPI_Datatype datatype,
                                          int file_ptr_type, ADIO_Offset offset, ADIO_Offset fp_ind,
                                          uint64_t eof, int *crosses);

#endif
