/* The file views of matrix_test.c, and the reference a read through one of them must give,
 * computed without MPI-IO (MPI_Pack of position planes; see matrix_test.c). Included once, after
 * test_common.h (rank, nprocs) and with FILE_SIZE, SEED and HOLEY_FILL defined. */
#ifndef PFIO_TESTS_MPI_MATRIX_VIEWS_H
#define PFIO_TESTS_MPI_MATRIX_VIEWS_H

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"

/* ---- views ------------------------------------------------------------------------------ */

typedef struct view {
    const char *name;
    MPI_Offset disp;
    MPI_Datatype etype, filetype; /* filetype freed by free_view */
    MPI_Offset offset;            /* where this rank reads, in etypes */
    int items;                    /* etypes this rank reads (0 on some ranks) */
} view;

static int view_index; /* the view being made: which ranks read nothing varies with it */

/* Items per rank: some ranks read nothing (which ones depends on the view, so that with 2 ranks
 * each of them is sometimes the one). */
static int items_for(int base)
{
    return (rank + view_index) % 3 == 2 ? 0 : base + 6 * rank;
}

static MPI_Datatype resized(MPI_Datatype t, MPI_Aint extent)
{
    MPI_Datatype r;
    MPI_Type_create_resized(t, 0, extent, &r);
    MPI_Type_free(&t);
    return r;
}

static void make_view(int which, view *v)
{
    MPI_Datatype t;
    memset(v, 0, sizeof *v);
    v->etype = MPI_BYTE;
    view_index = which;
    switch (which) {
    case 0:
        v->name = "contiguous at an odd displacement";
        v->disp = 13 + 7LL * rank;
        MPI_Type_contiguous(1, MPI_BYTE, &v->filetype);
        v->offset = 1001LL * rank + 3;
        v->items = items_for(70001);
        break;
    case 1:
        v->name = "interleaved 47,008-byte blocks";
        v->disp = 47008LL * rank;
        MPI_Type_contiguous(47008, MPI_BYTE, &t);
        v->filetype = resized(t, 47008LL * nprocs);
        v->offset = 4999;
        v->items = items_for(120001);
        break;
    case 2:
        v->name = "interleaved 1-byte blocks";
        v->disp = rank;
        MPI_Type_contiguous(1, MPI_BYTE, &t);
        v->filetype = resized(t, nprocs);
        v->offset = 17;
        v->items = items_for(20001);
        break;
    case 3:
        v->name = "vector of ints";
        v->etype = MPI_INT;
        v->disp = 12LL * rank;
        MPI_Type_vector(4, 3, 3 * nprocs, MPI_INT, &t);
        v->filetype = resized(t, 4LL * 3 * nprocs * 4);
        v->offset = 5;
        v->items = items_for(3001);
        break;
    case 4: {
        int lens[5] = {2, 0, 5, 0, 1}, displs[5] = {0, 3, 3, 9, 11};
        v->name = "indexed with zero-length blocks";
        v->etype = MPI_SHORT;
        v->disp = 2LL * 12 * rank;
        MPI_Type_indexed(5, lens, displs, MPI_SHORT, &t);
        v->filetype = resized(t, 2LL * 12 * nprocs);
        v->offset = 3;
        v->items = items_for(4001);
        break;
    }
    case 5: {
        int sizes[3] = {24, 10, 9}, subs[3] = {24 / nprocs, 7, 5},
            starts[3] = {rank * (24 / nprocs), 2, 3};
        v->name = "3-D subarray of doubles";
        v->etype = MPI_DOUBLE;
        MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &v->filetype);
        v->offset = 1;
        v->items = items_for(700);
        break;
    }
    case 6: {
        int gsizes[2] = {30, 17}, distribs[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
            dargs[2] = {2, MPI_DISTRIBUTE_DFLT_DARG}, psizes[2] = {nprocs, 1};
        v->name = "darray of ints (cyclic(2) x block)";
        v->etype = MPI_INT;
        MPI_Type_create_darray(nprocs, rank, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C,
                               MPI_INT, &v->filetype);
        v->offset = 2;
        v->items = items_for(900);
        break;
    }
    case 7: {
        int lens[3] = {1, 1, 3};
        MPI_Aint displs[3] = {0, 8, 20};
        MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, one;
        v->name = "struct with holes";
        MPI_Type_create_struct(3, lens, displs, types, &t);
        one = resized(t, 32);
        MPI_Type_contiguous(4, one, &t);
        MPI_Type_free(&one);
        v->filetype = resized(t, 32LL * 4 * nprocs);
        v->disp = 32LL * 4 * rank;
        v->offset = 9;
        v->items = items_for(9001);
        break;
    }
    case 8: {
        int lens[4] = {17, 1, 4096, 333};
        MPI_Aint displs[4] = {0, 5000, 123457, 400000};
        v->name = "sparse hindexed";
        MPI_Type_create_hindexed(4, lens, displs, MPI_BYTE, &t);
        v->filetype = resized(t, 500000);
        v->disp = 100003LL * rank;
        v->offset = 11;
        v->items = items_for(10001);
        break;
    }
    case 9:
        v->name = "the same view on every rank (overlapping reads)";
        MPI_Type_vector(64, 700, 1000, MPI_BYTE, &t);
        v->filetype = t;
        v->disp = 333;
        v->offset = 250LL * rank;
        v->items = items_for(30001);
        break;
    default:
        v->name = "contiguous across the end of the file";
        MPI_Type_contiguous(1, MPI_BYTE, &v->filetype);
        v->offset = FILE_SIZE - 1001 - 50LL * rank; /* odd: the end falls inside an item */
        v->items = items_for(4001);
        break;
    }
    MPI_Type_commit(&v->filetype);
}
#define VIEWS 11

/* ---- the reference ---------------------------------------------------------------------- */

/* pos[k] for k < n: the byte offset (from the start of the buffer) of the k-th byte `count`
 * items of `type` pack from, found with MPI_Pack of position planes. */
static MPI_Aint *positions(MPI_Datatype type, int count, size_t n)
{
    MPI_Aint lb, extent, tlb, textent, span;
    unsigned char *plane, *packed;
    MPI_Aint *pos = calloc(n + 1, sizeof *pos);
    int b, at, size = 0;
    size_t i;
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &tlb, &textent);
    span = (count > 0 ? (count - 1) * extent : 0) + tlb + textent;
    plane = malloc((size_t)span + 1);
    MPI_Pack_size(count, type, MPI_COMM_SELF, &size);
    packed = malloc((size_t)size + 1);
    for (b = 0; b < 4; ++b) {
        MPI_Aint j;
        for (j = 0; j < span; ++j)
            plane[j] = (unsigned char)(j >> (8 * b));
        at = 0;
        MPI_Pack(plane, count, type, packed, size, &at, MPI_COMM_SELF);
        for (i = 0; i < n && (int)i < at; ++i)
            pos[i] |= (MPI_Aint)packed[i] << (8 * b);
    }
    free(plane);
    free(packed);
    return pos;
}

typedef struct expected {
    size_t got;           /* stream bytes delivered (up to the end of the file) */
    size_t asked;         /* bytes asked for */
    MPI_Aint buffer_size; /* bytes of the buffer the read touches at most (its span) */
    unsigned char *image; /* the buffer as it must be after the read */
    unsigned char *mask;  /* 1: a byte the read delivers; 0: never touched; 2: past EOF */
} expected;

/* What reading `count` items of `memtype` at etype offset `offset` of view `v` must give. */
static void expect(const view *v, MPI_Offset offset, int count, MPI_Datatype memtype, expected *e)
{
    MPI_Aint lb, extent, tlb, textent;
    MPI_Count fsize = 0, esize = 0;
    int msize = 0, tiles;
    MPI_Aint *fpos, *mpos;
    size_t skip, k;
    MPI_Type_size(memtype, &msize);
    MPI_Type_size_x(v->filetype, &fsize);
    MPI_Type_size_x(v->etype, &esize);
    e->asked = (size_t)count * (size_t)msize;
    skip = (size_t)(offset * esize);
    tiles = (int)((skip + e->asked) / (size_t)fsize) + 2;
    fpos = positions(v->filetype, tiles, skip + e->asked);
    mpos = positions(memtype, count, e->asked);
    MPI_Type_get_extent(memtype, &lb, &extent);
    MPI_Type_get_true_extent(memtype, &tlb, &textent);
    e->buffer_size = (count > 0 ? (count - 1) * extent : 0) + tlb + textent + 64;
    e->image = malloc((size_t)e->buffer_size);
    e->mask = calloc((size_t)e->buffer_size, 1);
    memset(e->image, HOLEY_FILL, (size_t)e->buffer_size);
    for (e->got = 0; e->got < e->asked && v->disp + fpos[skip + e->got] < FILE_SIZE; ++e->got)
        ;
    for (k = 0; k < e->asked; ++k) {
        e->mask[mpos[k]] = k < e->got ? 1 : 2; /* 2: past the end, left as the MPI leaves it */
        if (k < e->got)
            e->image[mpos[k]] = pattern_byte((uint64_t)(v->disp + fpos[skip + k]), SEED);
    }
    free(fpos);
    free(mpos);
}

#endif
