/* Reliability round 3 of the ad_prefetch ROMIO driver: each case is a defect a hostile user
 * found, every byte checked against the self-verifying pattern.
 *   stale        a read-only handle reads (and prefetches), another handle or process rewrites
 *                the file, sync-barrier-sync (the reader's sync is refused: read-only): every
 *                byte read afterwards is new; with the file older than pfio's racy window (its
 *                times tell) and younger (a look that close to a change never vouches)
 *   iread-eof    MPI_File_iread_at / MPI_File_iread past EOF into a noncontiguous memory type:
 *                the bytes up to EOF, holes untouched, the count right (MPICH aborted in MPI_Wait)
 *   coll-eof     (round 5) MPI_File_read_at_all past EOF into a noncontiguous memory type, 60
 *                calls: the calls the driver gives ROMIO's two-phase (stepping aside, from the
 *                25th on) filled the places past EOF with stale bytes (1,000 a call); every
 *                call: the bytes up to EOF, the places past it and the holes untouched
 *   plan-info    the info key prefetch_plan with values an application might put there (abc,
 *                0x10, -1, a stack address) at open and in set_info: no crash, refused with a
 *                message; get_info never returns an address; a declaration still works
 *   record       prefetch_record or prefetch_stats naming the file being read, or another
 *                file that is not pfio's of that kind: refused, the file intact, the close a
 *                success; an old record is replaced whole
 *   truncate     another process truncates a read-only file, then grows it: collective and
 *                independent reads return what the file holds (they failed for good before)
 *   hint-names   a prefetch* hint pfio does not know, and prefetch=maybe: named on rank 0's
 *                stderr with the nearest hint (they were ignored without a word)
 *   changes      (round 4) the change matrix: each change kind (same-size rewrite, rewrite with
 *                its mtime put back, partial rewrite, truncate, extend, a new file renamed over
 *                the path, cut and regrown) made by another process at a random call of each
 *                read kind (collective, independent sequential, strided), sync-barrier-sync:
 *                every byte read before is the old file's and every byte after the new one's
 *                (the old file's after a rename: the reader's handle keeps its inode)
 *   coarse       (round 4; only when named, DIR on a file system with whole-second times:
 *                tests/scripts/coarse-fs.sh) a same-size rewrite by another process within
 *                the second of the file's last change, after the reader looked: every byte read
 *                afterwards is new (all were old: 130,599 of 131,072 bytes, Open MPI, engine)
 * usage: reliability_test prefix|engine DIR [CASE]    (engine: hints prefetch_read_path and
 *                                                     prefetch_coll_path = engine; CASE: one
 *                                                     of the names above, else all)
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pattern.h"
#include "pfio/pfio_mpi.h"
#include "test_common.h"

#include "reliability_util.h"

/* ---- stale bytes on a read-only handle ------------------------------------------------- */

#define STALE_SIZE (8LL << 20)
#define STALE_BLOCK (64 << 10)

/* Collective reads of interleaved blocks (each call one block per rank), calls [from, to):
 * repetition the collective layer plans ahead. */
static void read_blocks_all(const char *test, MPI_File fh, int from, int to, uint64_t seed)
{
    unsigned char *buf = malloc(STALE_BLOCK);
    MPI_Status st;
    int k;
    for (k = from; k < to; ++k) {
        long long off = ((long long)k * nprocs + rank) * STALE_BLOCK;
        MPI_File_read_at_all(fh, off, buf, STALE_BLOCK, MPI_BYTE, &st);
        check_count(test, &st, MPI_BYTE, STALE_BLOCK);
        check_range(test, buf, off, STALE_BLOCK, seed);
    }
    free(buf);
}

/* Independent sequential reads of this rank's quarter (the history predictor plans ahead). */
static void read_run(const char *test, MPI_File fh, int from, int to, uint64_t seed)
{
    unsigned char *buf = malloc(STALE_BLOCK / 4);
    long long base = (long long)rank * (STALE_SIZE / nprocs);
    MPI_Status st;
    int k;
    for (k = from; k < to; ++k) {
        long long off = base + (long long)k * (STALE_BLOCK / 4);
        MPI_File_read_at(fh, off, buf, STALE_BLOCK / 4, MPI_BYTE, &st);
        check_count(test, &st, MPI_BYTE, STALE_BLOCK / 4);
        check_range(test, buf, off, STALE_BLOCK / 4, seed);
    }
    free(buf);
}

static void stale_case(const char *test, int old_file, int by_mpi)
{
    char path[1024];
    MPI_File fh;
    const int calls = (int)(STALE_SIZE / STALE_BLOCK / nprocs);
    path_of(path, sizeof path, "stale.dat");
    make_file(path, STALE_SIZE, SEED);
    if (old_file)
        wait_past_racy_window(); /* pfio's look vouches for the file: only its times can tell */
    must_open(test, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    read_blocks_all(test, fh, 0, calls / 2, SEED);
    read_run(test, fh, 0, 16, SEED);
    /* Every rank is done with the old bytes before the file changes: without this barrier rank 0
     * rewrote the file while ranks that ran late (a loaded machine) still read their run, which
     * then rightly saw the new bytes (strace: rank 0's open for writing 11 ms before rank 1's
     * last read of the old content). */
    MPI_Barrier(MPI_COMM_WORLD);
    if (by_mpi)
        rewrite_mpi(path, STALE_SIZE, SEED2);
    else
        rewrite_posix(path, STALE_SIZE, SEED2);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh); /* refused on a read-only handle (MPI_ERR_READ_ONLY): ignored */
    read_blocks_all(test, fh, calls / 2, calls, SEED2);
    read_blocks_all(test, fh, 0, calls / 2, SEED2);
    read_run(test, fh, 16, 32, SEED2);
    read_run(test, fh, 0, 16, SEED2);
    MPI_File_close(&fh);
}

static void test_stale(void)
{
    const char *test = "stale: another handle's rewrite seen by a read-only handle";
    int before = failures;
    stale_case(test, 1, 1);
    stale_case(test, 1, 0);
    stale_case(test, 0, 1);
    report(test, before);
}

/* ---- iread past EOF into a noncontiguous memory type ----------------------------------- */

static void check_holey(const char *test, const unsigned char *buf, long long file_off,
                        int got_bytes, int blocks)
{
    int b, j, seen = 0;
    for (b = 0; b < blocks; ++b)
        for (j = 0; j < 5; ++j) {
            unsigned char want = SENTINEL;
            if (j < 3 && seen < got_bytes)
                want = pattern_byte((uint64_t)(file_off + seen), SEED);
            if (buf[b * 5 + j] != want) {
                fail(test, "memory byte %d is 0x%02x, expected 0x%02x", b * 5 + j, buf[b * 5 + j],
                     want);
                return;
            }
            if (j < 3 && seen < got_bytes)
                ++seen;
        }
}

static void test_iread_eof(void)
{
    const char *test = "iread-eof: iread past EOF into a noncontiguous memory type";
    int before = failures;
    char path[1024];
    const int blocks = 1000;
    unsigned char *buf = malloc((size_t)blocks * 5);
    MPI_Datatype holey;
    MPI_File fh;
    MPI_Request rq;
    MPI_Status st;
    int got = -1;
    path_of(path, sizeof path, "iread-eof.dat");
    make_file(path, 10000, SEED);
    MPI_Type_vector(blocks, 3, 5, MPI_BYTE, &holey);
    MPI_Type_commit(&holey);
    must_open(test, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    memset(buf, SENTINEL, (size_t)blocks * 5);
    MPI_File_iread_at(fh, 8000, buf, 1, holey, &rq);
    MPI_Wait(&rq, &st);
    MPI_Get_elements(&st, MPI_BYTE, &got);
    if (got != 2000)
        fail(test, "iread_at: MPI_Get_elements = %d, expected 2000", got);
    check_holey(test, buf, 8000, 2000, blocks);
    memset(buf, SENTINEL, (size_t)blocks * 5);
    MPI_File_seek(fh, 9000 + rank, MPI_SEEK_SET);
    MPI_File_iread(fh, buf, 1, holey, &rq);
    MPI_Wait(&rq, &st);
    MPI_Get_elements(&st, MPI_BYTE, &got);
    if (got != 1000 - rank)
        fail(test, "iread: MPI_Get_elements = %d, expected %d", got, 1000 - rank);
    check_holey(test, buf, 9000 + rank, 1000 - rank, blocks);
    /* wholly past EOF: nothing read, nothing touched */
    memset(buf, SENTINEL, (size_t)blocks * 5);
    MPI_File_iread_at(fh, 20000, buf, 1, holey, &rq);
    MPI_Wait(&rq, &st);
    MPI_Get_elements(&st, MPI_BYTE, &got);
    if (got != 0)
        fail(test, "iread_at past EOF: MPI_Get_elements = %d, expected 0", got);
    check_holey(test, buf, 20000, 0, blocks);
    MPI_File_close(&fh);
    MPI_Type_free(&holey);
    free(buf);
    report(test, before);
}

static void test_coll_eof(void)
{
    const char *test = "coll-eof: collective reads past EOF into a noncontiguous memory type";
    int before = failures, call, got = -1;
    char path[1024];
    const int blocks = 1000, calls = 60;
    unsigned char *buf = malloc((size_t)blocks * 5);
    MPI_Datatype holey;
    MPI_File fh;
    MPI_Status st;
    path_of(path, sizeof path, "coll-eof.dat");
    make_file(path, 10000, SEED);
    MPI_Type_vector(blocks, 3, 5, MPI_BYTE, &holey);
    MPI_Type_commit(&holey);
    must_open(test, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    for (call = 0; call < calls && failures == before; ++call) {
        const long long at = 8000 + 100LL * rank;
        memset(buf, SENTINEL, (size_t)blocks * 5);
        if (MPI_File_read_at_all(fh, at, buf, 1, holey, &st) != MPI_SUCCESS) {
            fail(test, "call %d: MPI_File_read_at_all failed", call);
            break;
        }
        MPI_Get_elements(&st, MPI_BYTE, &got);
        if (got != 2000 - 100 * rank)
            fail(test, "call %d: MPI_Get_elements = %d, expected %d", call, got, 2000 - 100 * rank);
        check_holey(test, buf, at, 2000 - 100 * rank, blocks);
    }
    MPI_File_close(&fh);
    MPI_Type_free(&holey);
    free(buf);
    report(test, before);
}

/* ---- prefetch_plan in info objects ----------------------------------------------------- */

/* After a declaration, MPI_File_get_info shows no prefetch_plan, or the one pfio_mpi_file_plan
 * passed (never an address). */
static void expect_no_address(const char *test, MPI_File fh)
{
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    if (MPI_File_get_info(fh, &info) != MPI_SUCCESS)
        return;
    MPI_Info_get(info, "prefetch_plan", MPI_MAX_INFO_VAL, value, &flag);
    if (flag && strncmp(value, "fd=", 3) != 0)
        fail(test, "MPI_File_get_info returns prefetch_plan = %s", value);
    MPI_Info_free(&info);
}

/* A declaration of 4 calls, one block per rank each, and the reads: right bytes. */
static void declare_and_read(const char *test, MPI_File fh, long long base)
{
    int counts[4] = {1, 1, 1, 1}, k;
    MPI_Offset offs[4], lens[4];
    unsigned char buf[4096];
    MPI_Status st;
    for (k = 0; k < 4; ++k) {
        offs[k] = base + ((MPI_Offset)k * nprocs + rank) * 4096;
        lens[k] = 4096;
    }
    if (pfio_mpi_file_plan(fh, 4, counts, offs, lens) != MPI_SUCCESS)
        fail(test, "pfio_mpi_file_plan of 4 calls refused");
    expect_no_address(test, fh);
    for (k = 0; k < 4; ++k) {
        MPI_File_read_at_all(fh, offs[k], buf, 4096, MPI_BYTE, &st);
        check_range(test, buf, offs[k], 4096, SEED);
    }
}

static void test_plan_info(void)
{
    const char *test = "plan-info: prefetch_plan values in info objects";
    int before = failures;
    static const char *values[] = {"abc", "0x10", "-1", "fd=0 ino=1 dev=2", "fd=-5"};
    char path[1024], stack_value[64];
    unsigned char buf[4096];
    MPI_File fh, other;
    MPI_Info info, copied;
    MPI_Status st;
    size_t i;
    path_of(path, sizeof path, "plan-info.dat");
    make_file(path, 1 << 20, SEED);
    snprintf(stack_value, sizeof stack_value, "%p", (void *)stack_value);
    for (i = 0; i <= sizeof values / sizeof *values; ++i) {
        const char *v = i < sizeof values / sizeof *values ? values[i] : stack_value;
        MPI_Info_create(&info);
        MPI_Info_set(info, "prefetch_plan", (char *)v);
        if (open_selected(path, MPI_MODE_RDONLY, info, &fh) == MPI_SUCCESS) {
            /* ignored at open with a message, or refused: either way no crash */
            MPI_File_read_at_all(fh, 4096LL * rank, buf, 4096, MPI_BYTE, &st);
            check_range(test, buf, 4096LL * rank, 4096, SEED);
            MPI_File_set_info(fh, info); /* refused with a message (Open MPI: ignored) */
            MPI_File_read_at_all(fh, 8192LL * rank, buf, 4096, MPI_BYTE, &st);
            check_range(test, buf, 8192LL * rank, 4096, SEED);
            declare_and_read(test, fh, 65536); /* a real declaration still works after it */
            MPI_File_close(&fh);
        }
        MPI_Info_free(&info);
    }
    /* the info of a file after a declaration, copied into another open and set_info later: the
     * descriptor it names is closed by then */
    must_open(test, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    declare_and_read(test, fh, 0);
    MPI_File_get_info(fh, &copied);
    if (open_selected(path, MPI_MODE_RDONLY, copied, &other) == MPI_SUCCESS) {
        MPI_File_read_at_all(other, 4096LL * rank, buf, 4096, MPI_BYTE, &st);
        check_range(test, buf, 4096LL * rank, 4096, SEED);
        MPI_File_set_info(other, copied);
        declare_and_read(test, other, 131072);
        MPI_File_close(&other);
    } else {
        fail(test, "an open with the info of a file after a declaration failed");
    }
    MPI_Info_free(&copied);
    MPI_File_close(&fh);
    report(test, before);
}

/* ---- prefetch_record naming a file that is not a record -------------------------------- */

static void test_record(void)
{
    const char *test = "record: prefetch_record and prefetch_stats never overwrite what is not "
                       "pfio's";
    int before = failures;
    char path[1024], other[1024], rec[1024];
    unsigned char buf[4096];
    MPI_File fh;
    MPI_Info info;
    MPI_Status st;
    struct stat sb;
    int rc, k, j;
    path_of(path, sizeof path, "record-data.dat");
    path_of(other, sizeof other, "record-other.txt");
    path_of(rec, sizeof rec, "record.plan");
    make_file(path, 1 << 20, SEED);
    if (rank == 0) {
        FILE *f = fopen(other, "w");
        fputs("precious\n", f);
        fclose(f);
        unlink(rec);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    {
        /* Round 4: the job summary (prefetch_stats) follows the rule of the record; the close
         * that cannot write it still succeeds (the data file became 734 bytes of JSON). */
        const char *targets[2] = {path, other}, *keys[2] = {"prefetch_record", "prefetch_stats"};
        for (j = 0; j < 2; ++j)
            for (k = 0; k < 2; ++k) {
                MPI_Info_create(&info);
                MPI_Info_set(info, (char *)keys[j], (char *)targets[k]);
                /* the hint is refused with a message on rank 0; the file opens and reads */
                must_open(test, path, MPI_MODE_RDONLY, info, &fh);
                for (rc = 0; rc < 4; ++rc) {
                    long long off = ((long long)rc * nprocs + rank) * 4096;
                    MPI_File_read_at_all(fh, off, buf, 4096, MPI_BYTE, &st);
                    check_range(test, buf, off, 4096, SEED);
                }
                rc = MPI_File_close(&fh);
                if (rc != MPI_SUCCESS)
                    fail(test, "MPI_File_close with %s = %s returned %d", keys[j], targets[k], rc);
                MPI_Info_free(&info);
            }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        if (stat(path, &sb) != 0 || sb.st_size != (1 << 20))
            fail(test, "the data file is %lld bytes after prefetch_record and _stats named it",
                 (long long)sb.st_size);
        if (stat(other, &sb) != 0 || sb.st_size != 9)
            fail(test, "%s is %lld bytes after prefetch_record and _stats named it", other,
                 (long long)sb.st_size);
    }
    /* a record, then a second one over it: the old record is replaced */
    for (k = 0; k < 2; ++k) {
        int calls = 3 + k, c;
        MPI_Info_create(&info);
        MPI_Info_set(info, "prefetch_record", rec);
        must_open(test, path, MPI_MODE_RDONLY, info, &fh);
        for (c = 0; c < calls; ++c) {
            long long off = ((long long)c * nprocs + rank) * 4096;
            MPI_File_read_at_all(fh, off, buf, 4096, MPI_BYTE, &st);
            check_range(test, buf, off, 4096, SEED);
        }
        MPI_File_close(&fh);
        MPI_Info_free(&info);
    }
    if (rank == 0 && (stat(rec, &sb) != 0 || sb.st_size == 0))
        fail(test, "no record at %s after two recording runs", rec);
    /* the second record replays */
    MPI_Info_create(&info);
    MPI_Info_set(info, "prefetch_replay", rec);
    rc = open_selected(path, MPI_MODE_RDONLY, info, &fh);
    if (rc != MPI_SUCCESS) {
        fail(test, "prefetch_replay of the record written over an old one refused");
    } else {
        for (k = 0; k < 4; ++k) {
            long long off = ((long long)k * nprocs + rank) * 4096;
            MPI_File_read_at_all(fh, off, buf, 4096, MPI_BYTE, &st);
            check_range(test, buf, off, 4096, SEED);
        }
        MPI_File_close(&fh);
    }
    MPI_Info_free(&info);
    report(test, before);
}

/* ---- another process truncates, then grows, a read-only file --------------------------- */

static void test_truncate(void)
{
    const char *test = "truncate: reads after another process shrinks and grows the file";
    int before = failures;
    char path[1024];
    const long long big = 1 << 20, small = 300001, block = 16384;
    unsigned char *buf = malloc((size_t)block);
    MPI_File fh;
    MPI_Status st;
    int k;
    path_of(path, sizeof path, "truncate.dat");
    make_file(path, (uint64_t)big, SEED);
    must_open(test, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    for (k = 0; k < 8; ++k) { /* a repeating pattern: planned ahead past the coming end */
        long long off = ((long long)k * nprocs + rank) * block;
        MPI_File_read_at_all(fh, off, buf, (int)block, MPI_BYTE, &st);
        check_range(test, buf, off, (size_t)block, SEED);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* a collective call need not wait for every rank's bytes */
    if (rank == 0 && truncate(path, small) != 0)
        fail(test, "truncate(%s) failed", path);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh); /* refused: read-only */
    for (k = 0; k < 3; ++k) {
        /* across the new end on rank 0, wholly past it on the others, then within it */
        long long off = k == 2 ? block * rank : small - 1000 + block * rank;
        long long want = off >= small ? 0 : (small - off < block ? small - off : block);
        int rc;
        memset(buf, SENTINEL, (size_t)block);
        rc = MPI_File_read_at_all(fh, off, buf, (int)block, MPI_BYTE, &st);
        if (rc != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(rc, msg, &len);
            fail(test, "read_at_all at %lld after the truncate: %s", off, msg);
            continue;
        }
        expect_count(test, "read_at_all", off, &st, (int)want);
        check_range(test, buf, off, (size_t)want, SEED);
        rc = MPI_File_read_at(fh, off, buf, (int)block, MPI_BYTE, &st);
        if (rc != MPI_SUCCESS)
            fail(test, "read_at at %lld after the truncate failed", off);
        expect_count(test, "read_at", off, &st, (int)want);
        check_range(test, buf, off, (size_t)want, SEED);
    }
    /* grown again by another process (once every rank is done): the new bytes are read */
    MPI_Barrier(MPI_COMM_WORLD);
    make_file(path, (uint64_t)big, SEED2);
    {
        long long off = small + block * rank;
        MPI_File_read_at_all(fh, off, buf, (int)block, MPI_BYTE, &st);
        expect_count(test, "read_at_all after the file grew", off, &st, (int)block);
        check_range(test, buf, off, (size_t)block, SEED2);
    }
    MPI_File_close(&fh);
    free(buf);
    report(test, before);
}

/* ---- hints pfio does not know --------------------------------------------------------- */

static void test_hint_names(void)
{
    const char *test = "hint-names: prefetch* hints pfio does not know are named";
    int before = failures;
    char path[1024], said[4096];
    path_of(path, sizeof path, "hints.dat");
    make_file(path, 65536, SEED);
    stderr_of_open(path, "prefetch_budgte", "1G", said, sizeof said);
    if (rank == 0 && (strstr(said, "prefetch_budgte is not a pfio hint") == NULL ||
                      strstr(said, "nearest: prefetch_budget") == NULL))
        fail(test, "prefetch_budgte: stderr said \"%s\"", said);
    stderr_of_open(path, "prefetch", "maybe", said, sizeof said);
    if (rank == 0 && strstr(said, "hint prefetch = \"maybe\": expected enable") == NULL)
        fail(test, "prefetch=maybe: stderr said \"%s\"", said);
    stderr_of_open(path, "prefetch", "stock", said, sizeof said); /* the benchmarks' value */
    if (rank == 0 && strstr(said, "expected enable") != NULL)
        fail(test, "prefetch=stock was reported: \"%s\"", said);
    stderr_of_open(path, "prefetch_collective", "enable", said, sizeof said);
    if (rank == 0 && strstr(said, "not a pfio hint") != NULL)
        fail(test, "a known hint was reported: \"%s\"", said);
    { /* PFIO_RECORD longer than the driver keeps: named, not dropped without a word */
        char longer[1500];
        memset(longer, 'r', sizeof longer - 1);
        longer[0] = '/';
        longer[sizeof longer - 1] = '\0';
        setenv("PFIO_RECORD", longer, 1);
        stderr_of_open(path, "prefetch_collective", "enable", said, sizeof said);
        unsetenv("PFIO_RECORD");
        if (rank == 0 && (strstr(said, "setting record:") == NULL ||
                          strstr(said, "no record is written") == NULL))
            fail(test, "a 1499-byte PFIO_RECORD: stderr said \"%.300s\"", said);
    }
    report(test, before);
}

/* ---- the change matrix ---------------------------------------------------------------- */

#define CHANGE_SIZE (4LL << 20)
#define CHANGE_BLOCK (64 << 10)

/* What a file holds: [0, split) the pattern of seed_lo, [split, size) that of seed_hi, or zeros
 * where seed_hi is 0. */
typedef struct version_t {
    long long size, split;
    uint64_t seed_lo, seed_hi;
} version_t;

static unsigned char version_byte(const version_t *v, long long off)
{
    if (off < v->split)
        return pattern_byte((uint64_t)off, v->seed_lo);
    return v->seed_hi == 0 ? 0 : pattern_byte((uint64_t)off, v->seed_hi);
}

/* A read of `want` bytes at `off` that returned `got` into buf must be the version's bytes. */
static void expect_version(const char *test, const char *what, const version_t *v,
                           const unsigned char *buf, long long off, int want, int got)
{
    long long left = v->size - off;
    int expect = left <= 0 ? 0 : left < want ? (int)left : want, i;
    if (got != expect) {
        fail(test, "%s: read of %d at %lld gave %d bytes, expected %d", what, want, off, got,
             expect);
        return;
    }
    for (i = 0; i < got; ++i)
        if (buf[i] != version_byte(v, off + i)) {
            fail(test, "%s: byte at %lld is 0x%02x, expected 0x%02x", what, off + i, buf[i],
                 version_byte(v, off + i));
            return;
        }
}

enum { READ_COLLECTIVE, READ_SEQUENTIAL, READ_STRIDED, READ_KINDS };
static const char *const read_kinds[] = {"collective", "sequential", "strided"};

/* Call k of read kind `kind`: where this rank reads and how much. */
static long long read_offset(int kind, int k, int *length)
{
    *length = kind == READ_COLLECTIVE ? CHANGE_BLOCK : kind == READ_SEQUENTIAL ? 16 << 10 : 8 << 10;
    if (kind == READ_COLLECTIVE)
        return ((long long)k * nprocs + rank) * CHANGE_BLOCK;
    if (kind == READ_SEQUENTIAL)
        return (long long)rank * (CHANGE_SIZE / nprocs) + (long long)k * (16 << 10);
    return ((long long)k * nprocs * 3 + rank) * (8 << 10);
}

static int read_calls(int kind)
{
    int length;
    (void)read_offset(kind, 0, &length);
    return kind == READ_COLLECTIVE   ? (int)(CHANGE_SIZE / CHANGE_BLOCK / nprocs)
           : kind == READ_SEQUENTIAL ? (int)(CHANGE_SIZE / nprocs / length)
                                     : (int)(CHANGE_SIZE / ((long long)nprocs * 3 * length));
}

static void read_and_expect(const char *test, const char *what, MPI_File fh, int kind, int from,
                            int to, const version_t *v)
{
    unsigned char *buf = malloc(CHANGE_BLOCK);
    MPI_Status st;
    int k;
    for (k = from; k < to; ++k) {
        int length, got = -1;
        long long off = read_offset(kind, k, &length);
        memset(buf, SENTINEL, (size_t)length);
        if (kind == READ_COLLECTIVE)
            MPI_File_read_at_all(fh, off, buf, length, MPI_BYTE, &st);
        else
            MPI_File_read_at(fh, off, buf, length, MPI_BYTE, &st);
        MPI_Get_count(&st, MPI_BYTE, &got);
        expect_version(test, what, v, buf, off, length, got);
    }
    free(buf);
}

enum {
    CHANGE_REWRITE,
    CHANGE_MTIME_KEPT,
    CHANGE_PARTIAL,
    CHANGE_TRUNCATE,
    CHANGE_EXTEND,
    CHANGE_RENAME,
    CHANGE_CUT_REGROW,
    CHANGE_KINDS
};
static const char *const change_kinds[] = {
    "same-size rewrite",    "rewrite, mtime put back", "partial rewrite", "truncate", "extend",
    "rename over the path", "cut and regrown"};

static void write_pattern(int fd, long long from, long long to, uint64_t seed)
{
    unsigned char *buf = malloc(1 << 20);
    long long off;
    for (off = from; off < to; off += 1 << 20) {
        long long n = to - off < (1 << 20) ? to - off : (1 << 20);
        pattern_fill(buf, (uint64_t)off, (uint64_t)n, seed);
        if (pwrite(fd, buf, (size_t)n, (off_t)off) != (ssize_t)n)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    free(buf);
}

/* Rank 0 changes the file as another process would; every rank gets the version it now holds
 * for a reader that opened it before. */
static void make_change(const char *path, int change, version_t *v)
{
    const long long size = CHANGE_SIZE;
    version_t next = {size, 0, SEED, SEED2};
    switch (change) {
    case CHANGE_PARTIAL:
        next.split = size / 2;
        break;
    case CHANGE_TRUNCATE:
        next.size = next.split = size / 3;
        next.seed_hi = 0;
        break;
    case CHANGE_EXTEND:
        next.size = next.split = size + size / 2;
        break;
    case CHANGE_RENAME:
        next = *v; /* the reader's handle keeps the inode it opened */
        break;
    case CHANGE_CUT_REGROW:
        next.split = size / 2;
        next.seed_hi = 0;
        break;
    }
    if (rank == 0) {
        char other[1100];
        struct stat before;
        int fd = -1;
        stat(path, &before);
        if (change == CHANGE_RENAME) {
            snprintf(other, sizeof other, "%s.new", path);
            fd = open(other, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        } else {
            fd = open(path, O_WRONLY);
        }
        if (fd < 0)
            MPI_Abort(MPI_COMM_WORLD, 2);
        if (change == CHANGE_REWRITE || change == CHANGE_MTIME_KEPT || change == CHANGE_RENAME)
            write_pattern(fd, 0, size, SEED2);
        else if (change == CHANGE_PARTIAL)
            write_pattern(fd, size / 2, size, SEED2);
        else if (change == CHANGE_TRUNCATE && ftruncate(fd, (off_t)(size / 3)) != 0)
            MPI_Abort(MPI_COMM_WORLD, 2);
        else if (change == CHANGE_EXTEND)
            write_pattern(fd, size, size + size / 2, SEED);
        else if (change == CHANGE_CUT_REGROW &&
                 (ftruncate(fd, (off_t)(size / 2)) != 0 || ftruncate(fd, (off_t)size) != 0))
            MPI_Abort(MPI_COMM_WORLD, 2);
        if (change == CHANGE_MTIME_KEPT) {
            struct timespec times[2] = {before.st_atim, before.st_mtim};
            futimens(fd, times);
        }
        if (fsync(fd) != 0)
            MPI_Abort(MPI_COMM_WORLD, 2);
        close(fd);
        if (change == CHANGE_RENAME && rename(other, path) != 0)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    *v = next;
}

static void test_changes(void)
{
    const char *test = "changes: every change kind at a random call of every read kind";
    int before = failures, change, kind;
    unsigned seed = 12345;
    for (change = 0; change < CHANGE_KINDS; ++change) {
        for (kind = 0; kind < READ_KINDS; ++kind) {
            char path[1024], name[64], what[128];
            const int calls = read_calls(kind);
            int at;
            version_t v = {CHANGE_SIZE, CHANGE_SIZE, SEED, 0};
            MPI_File fh;
            seed = seed * 1103515245u + 12345u; /* the same on every rank */
            at = 1 + (int)((seed >> 8) % (unsigned)(calls - 1));
            snprintf(name, sizeof name, "changes-%d-%d.dat", change, kind);
            snprintf(what, sizeof what, "%s during %s reads (call %d of %d)", change_kinds[change],
                     read_kinds[kind], at, calls);
            path_of(path, sizeof path, name);
            make_file(path, CHANGE_SIZE, SEED);
            must_open(test, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
            read_and_expect(test, what, fh, kind, 0, at, &v);
            MPI_Barrier(MPI_COMM_WORLD); /* every rank is done with the old bytes */
            make_change(path, change, &v);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_File_sync(fh); /* refused on a read-only handle: the driver's look sees it */
            MPI_Barrier(MPI_COMM_WORLD);
            read_and_expect(test, what, fh, kind, at, calls, &v);
            read_and_expect(test, what, fh, kind, 0, at, &v);
            MPI_File_close(&fh);
            if (rank == 0)
                unlink(path);
        }
    }
    report(test, before);
}

/* ---- a rewrite within the second, on a file system that keeps whole seconds ------------ */

static double second_fraction(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return now.tv_nsec / 1e9;
}

/* Every rank leaves at `fraction` of a second past a whole second of rank 0's clock. */
static void until_fraction(double fraction)
{
    double wait = 0;
    if (rank == 0) {
        wait = fraction - second_fraction();
        if (wait < 0)
            wait += 1.0;
    }
    MPI_Bcast(&wait, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    usleep((useconds_t)(wait * 1e6));
    MPI_Barrier(MPI_COMM_WORLD);
}

static void test_coarse(void)
{
    const char *test = "coarse: a rewrite within the second of the last change is seen";
    const int calls = (int)(STALE_SIZE / STALE_BLOCK / nprocs);
    int before = failures, attempt, same_second = 0;
    char path[1024];
    path_of(path, sizeof path, "coarse.dat");
    for (attempt = 0; attempt < 5 && !same_second; ++attempt) {
        struct stat made, now;
        MPI_File fh;
        until_fraction(0.05);
        if (rank == 0)
            unlink(path);
        make_file(path, STALE_SIZE, SEED);
        if (stat(path, &made) != 0 || made.st_mtim.tv_nsec != 0) {
            fail(test, "%s: mtime %ld.%09ld: expected a file system with whole-second times", path,
                 (long)made.st_mtim.tv_sec, made.st_mtim.tv_nsec);
            break;
        }
        must_open(test, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
        until_fraction(0.3); /* older than a fine clock's window when the reads look */
        read_blocks_all(test, fh, 0, calls / 2, SEED);
        MPI_Barrier(MPI_COMM_WORLD);
        rewrite_posix(path, STALE_SIZE, SEED2);
        if (rank == 0)
            same_second = stat(path, &now) == 0 && now.st_mtim.tv_sec == made.st_mtim.tv_sec &&
                          now.st_mtim.tv_nsec == 0 && second_fraction() < 0.95;
        MPI_Bcast(&same_second, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (same_second) {
            read_blocks_all(test, fh, calls / 2, calls, SEED2);
            read_blocks_all(test, fh, 0, calls / 2, SEED2);
        }
        MPI_File_close(&fh);
    }
    if (!same_second && failures == before)
        fail(test, "five tries never rewrote the file within its second");
    report(test, before);
}

static const char *only; /* one case by name, or NULL for all */

static int wanted(const char *name)
{
    return only == NULL || strcmp(only, name) == 0;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    if (argc < 3 || argc > 4 || (strcmp(argv[1], "prefix") && strcmp(argv[1], "engine"))) {
        if (rank == 0)
            fprintf(stderr, "usage: %s prefix|engine DIR [CASE]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    mode = "prefix";
    if (strcmp(argv[1], "engine") == 0)
        read_path = "engine";
    dir = argv[2];
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    only = argc == 4 ? argv[3] : NULL;
    if (wanted("stale"))
        test_stale();
    if (wanted("iread-eof"))
        test_iread_eof();
    if (wanted("coll-eof"))
        test_coll_eof();
    if (wanted("plan-info"))
        test_plan_info();
    if (wanted("record"))
        test_record();
    if (wanted("truncate"))
        test_truncate();
    if (wanted("hint-names"))
        test_hint_names();
    if (wanted("changes"))
        test_changes();
    if (only != NULL && strcmp(only, "coarse") == 0)
        test_coarse();
    return finish();
}
