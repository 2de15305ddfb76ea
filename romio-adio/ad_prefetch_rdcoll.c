/* Collective reads through pfio's collective layer (romio-adio/collective, pfio_coll.h).
 *
 * Each MPI_File_read_all (read_at_all, read_ordered) hands the layer this rank's request as
 * read pieces (file extents paired with the memory type, ad_prefetch_view.c); the layer
 * exchanges every rank's extents, lets the aggregator ranks read the stripe units they own
 * through their pfio context, with the calls predicted from repetition planned ahead so the
 * engine reads across calls, and ships the bytes to the ranks that asked.
 * The first collective read of a file decides, with one MPI_Allreduce, whether the layer is
 * used: every rank must have a pfio context and the hints must allow it (prefetch_collective,
 * romio_cb_read). After that every call votes inside the layer: a rank that cannot use pfio for
 * this call (atomic mode, a refresh that failed, a file grown past the size pfio knows, no
 * memory for its pieces) sends every rank to ROMIO's two-phase for the call. Requests past the
 * end of the file get the bytes up to it, and the status counts those (ROMIO's two-phase
 * counts the whole request). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ad_prefetch.h"
#include "ad_prefetch_romio.h"
#include "adioi.h"
#include "pfio/pfio_mpi.h"

/* Whether this rank can use the layer, and if so its pfio_coll (why_off says why not). */
static int coll_local_setup(ADIO_File fd, ADIOI_PREFETCH_File *pf, const pfio_extent *first_call,
                            int nfirst)
{
    pfio_coll_options o;
    int flag = 0;
    char value[32];
    if (!pf->coll_enabled) {
        snprintf(pf->coll_why_off, sizeof pf->coll_why_off, "hint prefetch_collective=disable");
        return 0;
    }
    if (fd->hints->cb_read == ADIOI_HINT_DISABLE) {
        snprintf(pf->coll_why_off, sizeof pf->coll_why_off, "hint romio_cb_read=disable");
        return 0;
    }
    /* The context waits for a call through the layer (pfio_coll_attach) where the buffer kind
     * is known without it, so a file whose calls the judge gives to ROMIO or to reading alone
     * starts none (docs/small-calls.md, "Many small files"); a record or a replay needs it. */
    if (pf->record_path[0] || pf->replay_path[0] || !ADIOI_PREFETCH_Kind_known(pf) ||
        !pf->start_pending) {
        ADIOI_PREFETCH_Start(fd, pf);
        if (pf->ctx == NULL) {
            snprintf(pf->coll_why_off, sizeof pf->coll_why_off,
                     "rank %d has no pfio context (%.100s)", pf->rank, pf->why_stock);
            return 0;
        }
    }
    o.round_bytes = fd->hints->cb_buffer_size > 0 ? (uint64_t)fd->hints->cb_buffer_size : 16 << 20;
    o.unit = fd->hints->striping_unit > 0 ? (uint64_t)fd->hints->striping_unit : 1 << 20;
    o.targets = fd->hints->striping_factor > 0 ? (uint32_t)fd->hints->striping_factor : 0;
    o.aggregators = 0; /* every rank, unless the application chose cb_nodes */
    if (pf->open_info != MPI_INFO_NULL)
        ADIOI_Info_get(pf->open_info, "cb_nodes", (int)sizeof value - 1, value, &flag);
    if (flag)
        o.aggregators = fd->hints->cb_nodes;
    o.lookahead_calls = (uint32_t)pf->coll_lookahead;
    o.lookahead_bytes = pf->coll_ahead;
    o.timeout_ms = pf->coll_timeout_s * 1000;
    o.bound_name = "hint prefetch_coll_timeout (seconds)";
    o.file_name = fd->filename;
    o.record_path = pf->record_path[0] ? pf->record_path : NULL;
    o.replay_path = pf->replay_path[0] ? pf->replay_path : NULL;
    /* Files these ranks read one after another are judged as one run of calls; not with a
     * deferred open, whose ranks do not all reach the close that keeps the judge. */
    o.carry_judge = !fd->hints->deferred_open;
    o.first_call = first_call;
    o.first_call_count = first_call != NULL ? (size_t)nfirst : 0;
    o.page_cache = pf->page_cache;
    pf->coll_attached = pf->ctx != NULL;
    if (pfio_coll_create(fd->comm, pf->ctx, pf->ctx != NULL ? pf->file : -1, &o, &pf->coll) !=
        PFIO_OK) {
        snprintf(pf->coll_why_off, sizeof pf->coll_why_off, "rank %d: %.140s", pf->rank,
                 pfio_last_error());
        return 0;
    }
    return 1;
}

/* At the first collective read or declaration: every rank on, or every rank off; and what the
 * ranks carried from their last file the same on every rank, or forgotten on every rank (see
 * pfio_coll_carried). One reduction. Collective. */
void ADIOI_PREFETCH_Coll_decide(ADIO_File fd, ADIOI_PREFETCH_File *pf,
                                const pfio_extent *first_call, int nfirst)
{
    int all;
    unsigned long long mine[3], most[3];
    mine[0] = !coll_local_setup(fd, pf, first_call, nfirst);
    mine[1] = pf->coll != NULL ? pfio_coll_carried(pf->coll) : 0;
    mine[2] = ~mine[1];
    MPI_Allreduce(mine, most, 3, MPI_UNSIGNED_LONG_LONG, MPI_MAX, fd->comm);
    all = most[0] == 0;
    if (all && most[1] != ~most[2])
        pfio_coll_forget_carried(pf->coll);
    if (!all && pf->coll != NULL) {
        pfio_coll_destroy(pf->coll);
        pf->coll = NULL;
        if (pf->coll_why_off[0] == '\0')
            snprintf(pf->coll_why_off, sizeof pf->coll_why_off,
                     "another rank cannot use pfio's collective layer");
    }
    pf->coll_state = all ? 1 : -1;
    if (pf->print_hints && pf->rank == 0)
        fprintf(
            stderr, "pfio: file %s: collective reads: %s%s\n", fd->filename,
            all ? "pfio's collective layer" : "ROMIO's two-phase: ", all ? "" : pf->coll_why_off);
}

/* Pieces past the end of the file are cut there (MPI reads return the bytes up to the end),
 * when the file really ends where pfio saw it; 0 when it grew since (the stock path reads it). */
static int clip_to_file(ADIO_File fd, ADIOI_PREFETCH_File *pf, pfio_read_piece *pieces, int n,
                        uint64_t *total)
{
    struct stat sb;
    int i, crosses = 0;
    for (i = 0; i < n; ++i)
        if (pieces[i].offset + pieces[i].length > pf->size)
            crosses = 1;
    if (!crosses)
        return 1;
    if (fd->fd_sys < 0 || fstat(fd->fd_sys, &sb) != 0 || (uint64_t)sb.st_size > pf->size)
        return 0;
    *total = 0;
    for (i = 0; i < n; ++i) {
        if (pieces[i].offset >= pf->size)
            pieces[i].length = 0;
        else if (pieces[i].offset + pieces[i].length > pf->size)
            pieces[i].length = pf->size - pieces[i].offset;
        *total += pieces[i].length;
    }
    return 1;
}

void ADIOI_PREFETCH_Check_replay(ADIO_File fd, ADIOI_PREFETCH_File *pf, char *why, size_t size)
{
    struct stat sb;
    int nprocs = 0;
    why[0] = '\0';
    MPI_Comm_size(fd->comm, &nprocs);
    if (stat(fd->filename, &sb) != 0) {
        snprintf(why, size, "%s cannot be replayed for %s: the file does not exist",
                 pf->replay_path, fd->filename);
        return;
    }
    if (pfio_coll_check_replay(pf->replay_path, fd->filename, (uint64_t)sb.st_size, nprocs) !=
        PFIO_OK)
        snprintf(why, size, "%s", pfio_last_error());
}

/* Reads exactly `size` bytes at `offset` of fd; 0 when the file ends first or fails. */
static int pread_all(int fd, void *buf, size_t size, off_t offset)
{
    size_t done = 0;
    while (done < size) {
        ssize_t r = pread(fd, (char *)buf + done, size - done, offset + (off_t)done);
        if (r <= 0)
            return 0;
        done += (size_t)r;
    }
    return 1;
}

/* The calls pfio_mpi_file_plan wrote to its temporary file, named by `value` ("fd=N ino=I
 * dev=D", pfio/pfio_mpi.h). Every field is checked before it is used, and a plan whose extents
 * would hold more than `allowance` bytes (half the budget, as the collective layer holds them) is
 * refused before anything is read; on success the caller frees *counts, *offsets and *lengths,
 * else *err says what was wrong (naming the value). */
static int read_declared(const char *value, uint64_t allowance, int *ncalls, int **counts,
                         int64_t **offsets, int64_t **lengths, char *err, size_t size)
{
    int fd = -1, end = 0, k;
    unsigned long long ino = 0, dev = 0;
    struct stat sb;
    pfio_mpi_plan_head head;
    int64_t sum = 0;
    size_t bytes;
    *counts = NULL;
    *offsets = *lengths = NULL;
    if (sscanf(value, "fd=%d ino=%llu dev=%llu%n", &fd, &ino, &dev, &end) != 3 ||
        value[end] != '\0' || fd < 0) {
        snprintf(err, size,
                 "hint prefetch_plan = \"%.200s\": expected what pfio_mpi_file_plan passes "
                 "(pfio/pfio_mpi.h, version %d: \"fd=N ino=I dev=D\"); declare plans with it, "
                 "never with MPI_Info_set",
                 value, PFIO_MPI_PLAN_VERSION);
        return 0;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (unsigned long long)sb.st_ino != ino ||
        (unsigned long long)sb.st_dev != dev) {
        snprintf(err, size,
                 "hint prefetch_plan = \"%.200s\": descriptor %d is not the plan file "
                 "pfio_mpi_file_plan made (closed, or another file): a stale copy of the value?",
                 value, fd);
        return 0;
    }
    if (!pread_all(fd, &head, sizeof head, 0) || head.magic != PFIO_MPI_PLAN_MAGIC ||
        head.version != PFIO_MPI_PLAN_VERSION) {
        snprintf(err, size,
                 "hint prefetch_plan = \"%.200s\": the file is not a pfio plan of version %d "
                 "(pfio/pfio_mpi.h from another pfio?)",
                 value, PFIO_MPI_PLAN_VERSION);
        return 0;
    }
    if (head.ncalls < 0 || head.total < 0 || head.total > (int64_t)1 << 40) {
        snprintf(err, size, "declared plan: ncalls = %d, extents = %lld: expected both >= 0",
                 head.ncalls, (long long)head.total);
        return 0;
    }
    if ((uint64_t)head.total > allowance / 16) {
        snprintf(err, size,
                 "declared plan: %lld extents would hold %llu bytes: expected at most %llu (half "
                 "the budget); nothing is declared (declare fewer calls at a time, or raise "
                 "prefetch_budget)",
                 (long long)head.total, (unsigned long long)head.total * 16,
                 (unsigned long long)allowance);
        return 0;
    }
    bytes = sizeof head + 4 * (size_t)head.ncalls + 16 * (size_t)head.total;
    if ((uint64_t)sb.st_size != (uint64_t)bytes) {
        snprintf(err, size,
                 "declared plan: the file holds %lld bytes, expected %zu for %d calls "
                 "and %lld extents",
                 (long long)sb.st_size, bytes, head.ncalls, (long long)head.total);
        return 0;
    }
    *counts = malloc(((size_t)head.ncalls + 1) * sizeof **counts);
    *offsets = malloc(((size_t)head.total + 1) * sizeof **offsets);
    *lengths = malloc(((size_t)head.total + 1) * sizeof **lengths);
    if (*counts == NULL || *offsets == NULL || *lengths == NULL) {
        snprintf(err, size, "no memory for a declared plan of %lld extents", (long long)head.total);
        return 0;
    }
    if (!pread_all(fd, *counts, 4 * (size_t)head.ncalls, sizeof head) ||
        !pread_all(fd, *offsets, 8 * (size_t)head.total,
                   (off_t)(sizeof head + 4 * (size_t)head.ncalls)) ||
        !pread_all(fd, *lengths, 8 * (size_t)head.total,
                   (off_t)(sizeof head + 4 * (size_t)head.ncalls + 8 * (size_t)head.total))) {
        snprintf(err, size, "declared plan: reading its file failed");
        return 0;
    }
    for (k = 0; k < head.ncalls; ++k) {
        if ((*counts)[k] < 0) {
            snprintf(err, size, "declared plan: counts[%d] = %d: expected >= 0", k, (*counts)[k]);
            return 0;
        }
        sum += (*counts)[k];
    }
    if (sum != head.total) {
        snprintf(err, size, "declared plan: counts sum to %lld, the file holds %lld extents",
                 (long long)sum, (long long)head.total);
        return 0;
    }
    *ncalls = head.ncalls;
    return 1;
}

void ADIOI_PREFETCH_Coll_declare(ADIO_File fd, ADIOI_PREFETCH_File *pf, const char *value,
                                 int *error_code)
{
    char err[1024] = "", verdict[MPI_MAX_INFO_VAL];
    int ncalls = 0, rc, *counts = NULL;
    int64_t *offsets = NULL, *lengths = NULL;
    uint64_t cap = 0;
    ADIOI_PREFETCH_Start(fd, pf);
    if (pf->ctx == NULL || pfio_memory_cap(pf->ctx, &cap) != PFIO_OK || cap == 0)
        cap = UINT64_MAX;
    if (!read_declared(value, cap / 2, &ncalls, &counts, &offsets, &lengths, err, sizeof err) &&
        err[0] == '\0')
        snprintf(err, sizeof err, "declared plan refused");
    if (pf->coll_state == 0)
        ADIOI_PREFETCH_Coll_decide(fd, pf, NULL, 0);
    if (pf->coll_state < 0) {
        snprintf(verdict, sizeof verdict,
                 "ignored: collective reads use ROMIO's two-phase (%.200s)", pf->coll_why_off);
        ADIOI_Info_set(fd->info, "prefetch_plan_result", verdict);
        free(counts);
        free(offsets);
        free(lengths);
        return;
    }
    /* Every rank takes part in the exchange; a rank with a bad plan declares none, so the call
     * counts differ and every rank refuses. */
    if (err[0]) {
        (void)pfio_coll_declare(pf->coll, 0, NULL, NULL, NULL); /* err keeps this rank's reason */
        rc = PFIO_EINVAL;
    } else {
        rc = pfio_coll_declare(pf->coll, ncalls, counts, offsets, lengths);
        if (rc != PFIO_OK)
            snprintf(err, sizeof err, "%s", pfio_last_error());
    }
    free(counts);
    free(offsets);
    free(lengths);
    if (rc == PFIO_OK) {
        snprintf(verdict, sizeof verdict, "declared %d calls", ncalls);
        ADIOI_Info_set(fd->info, "prefetch_plan_result", verdict);
        return;
    }
    snprintf(verdict, sizeof verdict, "refused: %.230s", err);
    ADIOI_Info_set(fd->info, "prefetch_plan_result", verdict);
#if PFIO_ROMIO_MAJOR < 4
    fprintf(stderr, "pfio: file %s: rank %d: declared plan refused: %s\n", fd->filename, pf->rank,
            err);
#endif
    *error_code =
        MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, "ADIOI_PREFETCH_Coll_declare",
                             __LINE__, MPI_ERR_ARG, "**io", "**io %s", err);
}

void ADIOI_PREFETCH_Coll_close(ADIOI_PREFETCH_File *pf)
{
    if (pf->coll != NULL)
        pfio_coll_destroy(pf->coll);
    pf->coll = NULL;
}

/* A failed collective call of pfio's layer as an MPI error carrying pfio's message. */
static void coll_failed(ADIO_File fd, ADIOI_PREFETCH_File *pf, int *error_code)
{
#if PFIO_ROMIO_MAJOR < 4
    /* Open MPI's ROMIO glue keeps only the error class: the reason goes to stderr. */
    fprintf(stderr, "pfio: file %s: rank %d: collective read failed: %s\n", fd->filename, pf->rank,
            pfio_last_error());
#else
    (void)fd;
    (void)pf;
#endif
    *error_code =
        MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, "ADIOI_PREFETCH_ReadStridedColl",
                             __LINE__, MPI_ERR_IO, "**io", "**io %s", pfio_last_error());
}

/* Set by ROMIO's MPI_File_read_ordered and read_ordered_begin around their collective read
 * (a hook add-to-romio.py adds to mpi-io/read_ord.c and read_ordb.c): the call's offsets come
 * from the shared file pointer. ROMIO holds its lock across the call. */
int ADIOI_PREFETCH_ordered = 0;

/* A collective call this rank reads alone (pfio_coll_begin's 2: every rank reads its own
 * request, no exchange): an independent read through the driver's own path, which predicts and
 * plans this rank's reads, as ROMIO's two-phase reads with romio_cb_read = disable. In
 * MPI_File_read_ordered every rank takes its offset from the shared file pointer before this
 * call, and a rank that left at once could move the pointer (the next MPI_File_seek_shared or
 * read_ordered) before a later rank took its offset (tests/mpi/matrix_test.c, read_ordered, saw
 * wrong bytes so): there the call returns once every rank has entered it, as ROMIO's collective
 * reads do. Other calls wait for no rank: a barrier per call cost IOR's one block per rank per
 * call, 4 ranks with the page cache hot, a fifth of its rate (docs/romio-driver.md). */
static void read_alone(ADIO_File fd, void *buf, int count, MPI_Datatype datatype, int file_ptr_type,
                       ADIO_Offset offset, int entered, ADIO_Status *status, int *error_code)
{
    int buftype_is_contig = 0, filetype_is_contig = 0;
    /* entered: this call's agreement (Coll_decide) showed every rank inside it */
    if (ADIOI_PREFETCH_ordered && !entered)
        MPI_Barrier(fd->comm);
    ADIOI_Datatype_iscontig(datatype, &buftype_is_contig);
    ADIOI_Datatype_iscontig(fd->filetype, &filetype_is_contig);
    if (buftype_is_contig && filetype_is_contig) {
        if (file_ptr_type == ADIO_EXPLICIT_OFFSET)
            ADIO_ReadContig(fd, buf, count, datatype, ADIO_EXPLICIT_OFFSET,
                            ADIOI_PREFETCH_View_offset(fd, offset), status, error_code);
        else
            ADIO_ReadContig(fd, buf, count, datatype, ADIO_INDIVIDUAL, 0, status, error_code);
    } else {
        ADIO_ReadStrided(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
    }
}

/* Coll_decide at the file's first collective call, with the call's extents (the individual
 * file pointer left where it was: the call walks the view again). */
static void first_call_decide(ADIO_File fd, ADIOI_PREFETCH_File *pf, void *buf, int count,
                              MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset)
{
    pfio_read_piece *pieces = NULL;
    pfio_extent *extents = NULL;
    int npieces = 0, nextents = 0;
    uint64_t total = 0;
    ADIO_Offset fp_ind = fd->fp_ind;
    if (!ADIOI_PREFETCH_View_pieces(fd, buf, count, datatype, file_ptr_type, offset, &pieces,
                                    &npieces, &extents, &nextents, &total))
        nextents = 0;
    fd->fp_ind = fp_ind;
    ADIOI_PREFETCH_Coll_decide(fd, pf, extents, nextents);
    free(pieces);
    free(extents);
}

void ADIOI_PREFETCH_ReadStridedColl(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                    int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                                    int *error_code)
{
    ADIOI_PREFETCH_File *pf = fd->fs_ptr;
    pfio_read_piece *pieces = NULL;
    pfio_extent *extents = NULL;
    int npieces = 0, nextents = 0, have_pieces, want_stock, stock = 0, entered = 0;
    pfio_status rc;
    uint64_t total = 0, nread = 0, started;
    ADIO_Offset fp_ind = fd->fp_ind;
    if (pf == NULL || pf->internal) {
        ADIOI_GEN_ReadStridedColl(fd, buf, count, datatype, file_ptr_type, offset, status,
                                  error_code);
        return;
    }
    if (pf->coll_state == 0) {
        first_call_decide(fd, pf, buf, count, datatype, file_ptr_type, offset);
        entered = 1;
    }
    if (pf->coll_state < 0) {
        ADIOI_GEN_ReadStridedColl(fd, buf, count, datatype, file_ptr_type, offset, status,
                                  error_code);
        return;
    }
    started = ADIOI_PREFETCH_Now_ns();
    if (pf->step_aside) {
        rc = pfio_coll_begin(pf->coll, &stock);
        if (rc != PFIO_OK) {
            coll_failed(fd, pf, error_code);
            return;
        }
        if (stock == 2) {
            read_alone(fd, buf, count, datatype, file_ptr_type, offset, entered, status,
                       error_code);
            if (*error_code == MPI_SUCCESS)
                pfio_coll_end(pf->coll, ADIOI_PREFETCH_Request_bytes(count, datatype),
                              ADIOI_PREFETCH_Now_ns() - started);
            return;
        }
        if (stock) { /* pfio does not pay for this file's calls now: ROMIO's two-phase, and
                      * its reads ROMIO's own */
            pf->stepping_aside = 1;
            ADIOI_PREFETCH_Read_stock(ADIOI_GEN_ReadStridedColl, fd, buf, count, datatype,
                                      file_ptr_type, offset, fp_ind, status, error_code);
            pf->stepping_aside = 0;
            if (*error_code == MPI_SUCCESS)
                pfio_coll_end(pf->coll, ADIOI_PREFETCH_Request_bytes(count, datatype),
                              ADIOI_PREFETCH_Now_ns() - started);
            return;
        }
    }
    have_pieces = ADIOI_PREFETCH_View_pieces(fd, buf, count, datatype, file_ptr_type, offset,
                                             &pieces, &npieces, &extents, &nextents, &total);
    want_stock = !have_pieces || ADIOI_PREFETCH_Active(fd) == NULL ||
                 !clip_to_file(fd, pf, pieces, npieces, &total);
    if (!want_stock && !pf->coll_attached) { /* the first call this rank reads through the layer */
        pfio_coll_attach(pf->coll, pf->ctx, pf->file);
        pf->coll_attached = 1;
    }
    rc = pfio_coll_read(pf->coll, pieces, have_pieces ? (size_t)npieces : 0, want_stock, &nread,
                        &stock);
    free(pieces);
    free(extents);
    if (rc == PFIO_OK && stock) {
        fd->fp_ind = fp_ind; /* two-phase walks the view again from the same place */
        ++pf->stock_reads;
        ADIOI_PREFETCH_Read_stock(ADIOI_GEN_ReadStridedColl, fd, buf, count, datatype,
                                  file_ptr_type, offset, fp_ind, status, error_code);
        return;
    }
    if (rc != PFIO_OK) {
        coll_failed(fd, pf, error_code);
        return;
    }
    fd->fp_sys_posn = -1;
    ADIOI_PREFETCH_Set_status(status, datatype, nread);
    *error_code = MPI_SUCCESS;
    if (pf->step_aside)
        pfio_coll_end(pf->coll, ADIOI_PREFETCH_Request_bytes(count, datatype),
                      ADIOI_PREFETCH_Now_ns() - started);
}

/* MPI_File_iread_all: ROMIO's nonblocking two-phase where ROMIO has it (MPICH) and pfio's
 * collective layer is off; otherwise the read completes inside the call (Open MPI's ROMIO 3.2.1
 * is built without generalized-request extensions, and its stock romio321 crashes on a NULL
 * slot there). */
void ADIOI_PREFETCH_IreadStridedColl(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                     int file_ptr_type, ADIO_Offset offset, ADIO_Request *request,
                                     int *error_code)
{
    ADIO_Status status;
    MPI_Offset nbytes = 0;
#ifdef HAVE_MPI_GREQUEST_EXTENSIONS
    ADIOI_PREFETCH_File *pf = fd->fs_ptr;
    if (pf == NULL || pf->internal || pf->coll_state < 0) {
        ADIOI_GEN_IreadStridedColl(fd, buf, count, datatype, file_ptr_type, offset, request,
                                   error_code);
        return;
    }
#endif
    ADIOI_PREFETCH_ReadStridedColl(fd, buf, count, datatype, file_ptr_type, offset, &status,
                                   error_code);
    if (*error_code == MPI_SUCCESS)
        nbytes = ADIOI_PREFETCH_Status_bytes(&status);
    MPIO_Completed_request_create(&fd, nbytes, error_code, request);
}
