/* The ROMIO driver's correctness matrix: file views x access methods x memory types, with
 * counts that differ per rank (some zero), on one read path; then the file-change cases.
 *
 * The reference is computed without MPI-IO: the file's bytes are an in-memory image (the
 * position pattern), and where each byte of a read comes from and lands is found with MPI_Pack
 * of position planes (byte b of every position index, packed with the file type and with the
 * memory type): stream byte k of the view comes from file offset disp + fpos[skip + k] and lands
 * at memory offset mpos[k]. A read past the end of the file delivers the stream bytes before the
 * first one at or past it. Every delivered byte is checked, and every byte of the buffer that
 * the memory type does not touch (holes, and what follows the data) must keep its sentinel.
 *
 *   views    contiguous at odd displacements, interleaved 47,008-byte and 1-byte blocks, vector
 *            of ints, indexed with zero-length blocks, 3-D subarray of doubles, darray of ints
 *            (cyclic x block), struct with holes, sparse hindexed, every rank the same view
 *            (overlapping), contiguous reads across the end of the file
 *   methods  read_at, read, read_at_all, read_all, iread_at, iread, iread_at_all, iread_all,
 *            read_at_all_begin/end, read_all_begin/end, read_ordered, read_shared
 *   memory   contiguous, and holey (each item two etypes with a one-etype hole between and after)
 *   changes  rewritten by another handle (sync-barrier-sync), by another process on a read-only
 *            handle, written through the same handle, truncated and grown with set_size, a
 *            look-ahead that is wrong, 200 files open at once
 *
 * usage: matrix_test PATH DIR    PATH: default (the page cache), engine (prefetch_read_path and
 *                                prefetch_coll_path = engine) or tiny (engine with the smallest
 *                                budget, 2 MiB, and 64 KiB collective buffers)
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pattern.h"
#include "test_common.h"

#define FILE_SIZE (4LL << 20)
#define HOLEY_FILL 0xA5 /* in the buffer where the memory type has holes */

static const char *path_kind;

#include "matrix_views.h"

/* ---- methods ---------------------------------------------------------------------------- */

static const char *const kMethods[] = {"read_at",        "read",         "read_at_all",
                                       "read_all",       "iread_at",     "iread",
                                       "iread_at_all",   "iread_all",    "read_at_all_begin",
                                       "read_all_begin", "read_ordered", "read_shared"};
#define METHODS 12

/* Every rank's item count (for the shared-pointer methods' offsets). */
static MPI_Offset shared_offset(int items_in_etypes)
{
    MPI_Offset mine = items_in_etypes, before = 0;
    MPI_Exscan(&mine, &before, 1, MPI_OFFSET, MPI_SUM, MPI_COMM_WORLD);
    return rank == 0 ? 0 : before;
}

/* Reads with method m; returns the MPI error code and fills *st. */
static int read_with(MPI_File fh, int m, MPI_Offset offset, void *buf, int count,
                     MPI_Datatype memtype, MPI_Status *st)
{
    MPI_Request rq;
    int rc = MPI_SUCCESS, r;
    switch (m) {
    case 0:
        return MPI_File_read_at(fh, offset, buf, count, memtype, st);
    case 1:
        MPI_File_seek(fh, offset, MPI_SEEK_SET);
        return MPI_File_read(fh, buf, count, memtype, st);
    case 2:
        return MPI_File_read_at_all(fh, offset, buf, count, memtype, st);
    case 3:
        MPI_File_seek(fh, offset, MPI_SEEK_SET);
        return MPI_File_read_all(fh, buf, count, memtype, st);
    case 4:
        rc = MPI_File_iread_at(fh, offset, buf, count, memtype, &rq);
        break;
    case 5:
        MPI_File_seek(fh, offset, MPI_SEEK_SET);
        rc = MPI_File_iread(fh, buf, count, memtype, &rq);
        break;
    case 6:
        rc = MPI_File_iread_at_all(fh, offset, buf, count, memtype, &rq);
        break;
    case 7:
        MPI_File_seek(fh, offset, MPI_SEEK_SET);
        rc = MPI_File_iread_all(fh, buf, count, memtype, &rq);
        break;
    case 8:
        rc = MPI_File_read_at_all_begin(fh, offset, buf, count, memtype);
        return rc != MPI_SUCCESS ? rc : MPI_File_read_at_all_end(fh, buf, st);
    case 9:
        MPI_File_seek(fh, offset, MPI_SEEK_SET);
        rc = MPI_File_read_all_begin(fh, buf, count, memtype);
        return rc != MPI_SUCCESS ? rc : MPI_File_read_all_end(fh, buf, st);
    case 10:
        MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
        return MPI_File_read_ordered(fh, buf, count, memtype, st);
    default:
        /* in rank order, so where each rank's bytes come from is known */
        MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
        for (r = 0; r < nprocs; ++r) {
            if (r == rank)
                rc = MPI_File_read_shared(fh, buf, count, memtype, st);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        return rc;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    return MPI_Wait(&rq, st);
}

/* One cell: the view already set on fh. */
static void cell(MPI_File fh, const view *v, int m, int holey)
{
    char test[256];
    MPI_Datatype memtype = v->etype;
    int count = v->items, rc;
    MPI_Offset offset = v->offset;
    expected e;
    unsigned char *buf;
    MPI_Status st;
    MPI_Count got_bytes = -1;
    MPI_Aint i;
    snprintf(test, sizeof test, "%s | %s | %s memory | %s path", v->name, kMethods[m],
             holey ? "holey" : "contiguous", path_kind);
    if (holey) {
        MPI_Datatype two;
        MPI_Type_vector(2, 1, 2, v->etype, &two);
        {
            MPI_Count esize = 0;
            MPI_Type_size_x(v->etype, &esize);
            memtype = resized(two, 4 * (MPI_Aint)esize);
        }
        MPI_Type_commit(&memtype);
        count = v->items / 2;
    }
    if (m >= 10) /* the shared file pointer: ranks read one after the other from 0 */
        offset = shared_offset(holey ? 2 * count : count);
    expect(v, offset, count, memtype, &e);
    buf = malloc((size_t)e.buffer_size);
    memset(buf, HOLEY_FILL, (size_t)e.buffer_size);
    rc = read_with(fh, m, offset, buf, count, memtype, &st);
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        fail(test, "failed: %s", msg);
    } else {
        MPI_Get_elements_x(&st, MPI_BYTE, &got_bytes);
        /* ROMIO's two-phase counts the whole request at EOF; pfio counts what was read */
        if ((size_t)got_bytes != e.got &&
            !(m >= 2 && m != 4 && m != 5 && e.got < e.asked && (size_t)got_bytes == e.asked))
            fail(test, "the status counts %lld bytes, expected %zu (of %zu asked)",
                 (long long)got_bytes, e.got, e.asked);
        for (i = 0; i < e.buffer_size; ++i) {
            if (e.mask[i] != 2 && buf[i] != e.image[i]) {
                fail(test, "buffer byte %lld is 0x%02x, expected 0x%02x (%s)", (long long)i, buf[i],
                     e.image[i], e.mask[i] ? "read" : "never to be touched");
                break;
            }
        }
    }
    free(buf);
    free(e.image);
    free(e.mask);
    if (holey)
        MPI_Type_free(&memtype);
}

static MPI_Info path_info(void)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (strcmp(path_kind, "default") != 0) {
        MPI_Info_set(info, "prefetch_read_path", "engine");
        MPI_Info_set(info, "prefetch_coll_path", "engine");
    }
    if (strcmp(path_kind, "tiny") == 0) {
        MPI_Info_set(info, "prefetch_budget", "2M");
        MPI_Info_set(info, "cb_buffer_size", "65536");
    }
    return info;
}

static void test_matrix(void)
{
    char path[1024];
    MPI_File fh;
    MPI_Info info = path_info();
    int w, m, holey, before = failures, cells = 0;
    path_of(path, sizeof path, "matrix.dat");
    make_file(path, FILE_SIZE, SEED);
    must_open("matrix", path, MPI_MODE_RDONLY, info, &fh);
    for (w = 0; w < VIEWS; ++w) {
        view v;
        int view_before = failures;
        make_view(w, &v);
        MPI_File_set_view(fh, v.disp, v.etype, v.filetype, "native", MPI_INFO_NULL);
        for (m = 0; m < METHODS; ++m)
            for (holey = 0; holey < 2; ++holey, ++cells)
                cell(fh, &v, m, holey);
        report(v.name, view_before);
        MPI_Type_free(&v.filetype);
    }
    MPI_File_close(&fh);
    MPI_Info_free(&info);
    if (rank == 0)
        printf("matrix: %d cells (%d views x %d methods x 2 memory types), %s path\n", cells, VIEWS,
               METHODS, path_kind);
    report("matrix", before);
}

/* ---- file changes ----------------------------------------------------------------------- */

/* This rank's 64 KiB blocks, read in a sequential run (so they are planned ahead), checked. */
static void read_mine(const char *test, MPI_File fh, int blocks, uint64_t seed, int all)
{
    const int B = 1 << 16;
    unsigned char *buf = malloc(B);
    MPI_Status st;
    int k;
    for (k = 0; k < blocks; ++k) {
        MPI_Offset off = ((MPI_Offset)k * nprocs + rank) * B;
        int got = -1;
        if (all)
            MPI_File_read_at_all(fh, off, buf, B, MPI_BYTE, &st);
        else
            MPI_File_read_at(fh, off, buf, B, MPI_BYTE, &st);
        MPI_Get_count(&st, MPI_BYTE, &got);
        if (got != B) {
            fail(test, "block %d: %d bytes, expected %d", k, got, B);
            break;
        }
        check_range(test, buf, off, (size_t)B, seed);
    }
    free(buf);
}

static void test_changes(void)
{
    char path[1024];
    MPI_Info info = path_info();
    MPI_File fh, other;
    MPI_Status st;
    const int B = 1 << 16, blocks = 16;
    unsigned char *w = malloc(B), *r = malloc(B);
    int before, k;
    path_of(path, sizeof path, "changes.dat");

    /* another handle rewrites; the reader syncs, barrier, syncs (MPI's way) */
    before = failures;
    make_file(path, (uint64_t)B * blocks * nprocs, SEED);
    must_open("changes", path, MPI_MODE_RDWR, info, &fh);
    read_mine("rewritten by another handle", fh, blocks / 2, SEED, 1);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &other);
    for (k = 0; k < blocks; ++k) {
        MPI_Offset off = ((MPI_Offset)k * nprocs + rank) * B;
        pattern_fill(w, (uint64_t)off, (uint64_t)B, SEED2);
        MPI_File_write_at(other, off, w, B, MPI_BYTE, &st);
    }
    MPI_File_sync(other);
    MPI_File_close(&other);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    read_mine("rewritten by another handle", fh, blocks, SEED2, 1);
    read_mine("rewritten by another handle", fh, blocks, SEED2, 0);
    report("rewritten by another handle, sync-barrier-sync", before);

    /* written through the same handle, then read back (same rank, then the neighbour's) */
    before = failures;
    for (k = 0; k < blocks; ++k) {
        MPI_Offset off = ((MPI_Offset)k * nprocs + rank) * B;
        pattern_fill(w, (uint64_t)off, (uint64_t)B, SEED);
        MPI_File_write_at(fh, off, w, B, MPI_BYTE, &st);
    }
    read_mine("written through the same handle", fh, blocks, SEED, 0);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    read_mine("written through the same handle", fh, blocks, SEED, 1);
    report("written through the same handle", before);

    /* truncated and grown with set_size */
    before = failures;
    MPI_File_set_size(fh, (MPI_Offset)B * nprocs * 3 + 100);
    {
        MPI_Offset off = (MPI_Offset)B * nprocs * 3 + 50 - rank;
        int got = -1;
        MPI_File_read_at_all(fh, off, r, B, MPI_BYTE, &st);
        MPI_Get_count(&st, MPI_BYTE, &got);
        if (got != 50 + rank && got != B)
            fail("set_size", "read across the new end: %d bytes, expected %d", got, 50 + rank);
        check_range("set_size", r, off, (size_t)(50 + rank), SEED);
        MPI_File_read_at(fh, off, r, B, MPI_BYTE, &st);
        MPI_Get_count(&st, MPI_BYTE, &got);
        if (got != 50 + rank)
            fail("set_size", "independent read across the new end: %d bytes", got);
    }
    MPI_File_set_size(fh, (MPI_Offset)B * blocks * nprocs);
    {
        MPI_Offset off = (MPI_Offset)B * nprocs * 3 + 100 + 1000LL * rank;
        int got = -1, i;
        MPI_File_read_at(fh, off, r, 500, MPI_BYTE, &st);
        MPI_Get_count(&st, MPI_BYTE, &got);
        for (i = 0; i < got && i < 500; ++i)
            if (r[i] != 0) {
                fail("set_size", "grown byte %lld is 0x%02x, expected 0", (long long)(off + i),
                     r[i]);
                break;
            }
        if (got != 500)
            fail("set_size", "read of the grown part: %d bytes, expected 500", got);
    }
    report("truncated and grown with set_size", before);
    MPI_File_close(&fh);

    /* a look-ahead that is wrong: a strided run, then a jump; bytes stay right */
    before = failures;
    make_file(path, (uint64_t)B * blocks * nprocs, SEED);
    must_open("changes", path, MPI_MODE_RDONLY, info, &fh);
    for (k = 0; k < 24; ++k) {
        MPI_Offset off = k < 16 ? (MPI_Offset)k * 3 * 4096 + 8 * rank : 777777 - 4096LL * k;
        MPI_File_read_at(fh, off, r, 4096, MPI_BYTE, &st);
        check_range("mispredicted", r, off, 4096, SEED);
        MPI_File_read_at_all(fh, off + 100000, r, 4096, MPI_BYTE, &st);
        check_range("mispredicted", r, off + 100000, 4096, SEED);
    }
    MPI_File_close(&fh);
    report("a look-ahead that is wrong", before);

    /* 200 files open at once, each read */
    before = failures;
    {
        MPI_File *many = malloc(200 * sizeof *many);
        char name[1100];
        int f;
        if (rank == 0)
            for (f = 0; f < 200; ++f) {
                FILE *out;
                snprintf(name, sizeof name, "%s/many-%03d.dat", dir, f);
                out = fopen(name, "wb");
                pattern_fill(w, 0, 8192, (uint64_t)f);
                fwrite(w, 1, 8192, out);
                fclose(out);
            }
        MPI_Barrier(MPI_COMM_WORLD);
        for (f = 0; f < 200; ++f) {
            snprintf(name, sizeof name, "%s/many-%03d.dat", dir, f);
            must_open("200 files", name, MPI_MODE_RDONLY, info, &many[f]);
        }
        for (f = 0; f < 200; ++f) {
            MPI_File_read_at_all(many[f], 100 * rank, r, 4000, MPI_BYTE, &st);
            check_range("200 files", r, 100 * rank, 4000, (uint64_t)f);
        }
        for (f = 0; f < 200; ++f)
            MPI_File_close(&many[f]);
        free(many);
    }
    report("200 files open at once", before);
    MPI_Info_free(&info);
    free(w);
    free(r);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    if (argc != 3 ||
        (strcmp(argv[1], "default") && strcmp(argv[1], "engine") && strcmp(argv[1], "tiny"))) {
        if (rank == 0)
            fprintf(stderr, "usage: %s default|engine|tiny DIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    mode = "prefix";
    path_kind = argv[1];
    dir = argv[2];
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    test_matrix();
    test_changes();
    return finish();
}
