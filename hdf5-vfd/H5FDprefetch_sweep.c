/* Column sweeps without a declaration (the struct's comment in H5FDprefetch_private.h says what
 * a sweep is and what is advised for it). */
#include <stdlib.h>
#include <string.h>

#include "H5FDprefetch_private.h"

/* A column's reads are at least this far apart (closer strides are spans the stride prediction
 * advises, H5FDprefetch_predict.c) and at least two read lengths (reads one after the other are
 * a sequential pass, which the kernel's readahead reads best), and a column has at least
 * SWEEP_MIN_ROWS reads. */
#define SWEEP_MIN_STRIDE ((uint64_t)256 << 10)
#define SWEEP_MIN_ROWS 4
/* Columns of more reads than this are not followed (the per-row arrays stay small). */
#define SWEEP_MAX_ROWS 65536
/* A read continues a column when its distance from the read before it differs from the
 * column's first stride by at most this much, and it is the next column's read of a row when it
 * starts at most this much past one read length after the previous column's read of that row:
 * HDF5 allocates chunk index nodes between the chunks as it writes them (2,616 bytes each for
 * the index of the benchmark's datasets). */
#define SWEEP_NEAR ((uint64_t)64 << 10)
/* Reads ahead in each row advised first when a sweep is confirmed, and while the first column of
 * a possible sweep is read (a lone column wastes at most this many reads per row). */
#define SWEEP_NEAR_READS 2

void H5FD__prefetch_sweep_reset(H5FD_prefetch_sweep_t *s)
{
    s->rows = 0;
    s->row = 0;
    s->size = 0;
    s->active = 0;
}

void H5FD__prefetch_sweep_free(H5FD_prefetch_sweep_t *s)
{
    free(s->cur);
    free(s->last);
    free(s->first);
    free(s->ahead);
    memset(s, 0, sizeof *s);
}

/* Room for `n` reads of a column in every per-row array. 0, or -1 without memory. */
static int reserve(H5FD_prefetch_sweep_t *s, size_t n)
{
    uint64_t **arrays[] = {&s->cur, &s->last, &s->first, &s->ahead};
    size_t capacity = s->capacity ? s->capacity : 256;
    int failed = 0;
    if (n <= s->capacity)
        return 0;
    while (capacity < n)
        capacity *= 2;
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; ++i) {
        uint64_t *grown = realloc(*arrays[i], capacity * sizeof *grown);
        if (grown != NULL)
            *arrays[i] = grown; /* kept even when another fails: freed at close */
        else
            failed = 1;
    }
    if (failed)
        return -1;
    s->capacity = capacity;
    return 0;
}

/* Whether `addr` is the next column's read of a row whose read in the previous column was at
 * `prev`: one read length further, or a little more (an index node between the two). */
static int next_column(const H5FD_prefetch_sweep_t *s, uint64_t prev, uint64_t addr)
{
    return addr >= prev + s->size && addr <= prev + s->size + SWEEP_NEAR;
}

/* Advises row `r` from where its advice ended (or from `from`) to `want` bytes past `from`, not
 * past where the sweep's first column read the next row (the row's chunks end there when chunks
 * are laid out row by row), unless at least half of that is advised already. */
static void advise_row(H5FD_prefetch_t *file, size_t r, uint64_t from, uint64_t want)
{
    H5FD_prefetch_sweep_t *s = &file->sweep;
    uint64_t end = from + want, start = s->ahead[r] > from ? s->ahead[r] : from;
    if (r + 1 < s->rows && s->first[r + 1] >= from && end > s->first[r + 1])
        end = s->first[r + 1];
    if (end > file->eof)
        end = file->eof;
    if (s->ahead[r] > from && 2 * (s->ahead[r] - from) >= want)
        return; /* still at least half of it advised */
    if (end <= start)
        return;
    H5FD__prefetch_willneed(file, start, end - start);
    s->ahead[r] = end;
    file->stats.sweep_advised += end - start;
}

/* The chunk index nodes noted since the last sweep started (the children of the internal nodes
 * HDF5 read), in file order, once: HDF5 reads a column's chunks through the index leaves that
 * name them, and a pass column by column reaches new leaves in every row every few dozen
 * columns; read one at a time from the device they cost 0.1 s of a 0.4 s pass of 8 KiB chunks
 * here. */
static void advise_index(H5FD_prefetch_t *file)
{
    H5FD_prefetch_extents_t *nodes = &file->index_children;
    H5FD__prefetch_extents_sort_and_join(nodes, 0);
    for (size_t i = 0; i < nodes->count; ++i)
        H5FD__prefetch_willneed(file, nodes->items[i].offset, nodes->items[i].length);
    file->stats.index_advised += nodes->count;
    nodes->count = 0;
    nodes->failed = 0;
}

/* A confirmed sweep: every row advised ahead of the column the reader is in, in file order, in
 * two passes: the next SWEEP_NEAR_READS reads of every row first (what the reader needs next
 * waits behind nothing else in the advice thread's queue and the device's), then each row's full
 * look-ahead. */
static void start(H5FD_prefetch_t *file)
{
    H5FD_prefetch_sweep_t *s = &file->sweep;
    uint64_t per_row = H5FD__prefetch_advice_window(file) / s->rows;
    s->per_row = per_row < s->size ? s->size : per_row / s->size * s->size;
    s->active = 1;
    memcpy(s->first, s->last, s->rows * sizeof *s->first);
    for (size_t r = 0; r < s->rows; ++r) {
        s->ahead[r] = 0;
        advise_row(file, r, (r < s->row ? s->cur[r] : s->last[r]) + s->size,
                   SWEEP_NEAR_READS * s->size);
    }
    advise_index(file);
    for (size_t r = 0; r < s->rows; ++r)
        advise_row(file, r, (r < s->row ? s->cur[r] : s->last[r]) + s->size, s->per_row);
    ++file->stats.sweeps;
}

/* A new column starts with the read at addr (the one before it ended the previous). */
static void new_column(H5FD_prefetch_sweep_t *s, uint64_t addr, size_t size)
{
    if (s->active && s->row != s->rows)
        s->active = 0;              /* a column of another height: not the sweep's */
    if (s->row >= SWEEP_MIN_ROWS) { /* the column just ended is the one the next follows */
        uint64_t *t = s->last;
        s->last = s->cur;
        s->cur = t;
        s->rows = s->row;
    } else {
        s->rows = 0;
        s->active = 0;
    }
    s->row = 0;
    s->size = size;
    if (s->rows > 0 && !next_column(s, s->last[0], addr)) {
        s->rows = 0; /* not one read length to the right of the column before */
        s->active = 0;
    }
}

void H5FD__prefetch_sweep_observe(H5FD_prefetch_t *file, haddr_t addr, size_t size)
{
    H5FD_prefetch_sweep_t *s = &file->sweep;
    int continues = 0;
    if (s->row > 0 && size == s->size && s->row < SWEEP_MAX_ROWS) {
        uint64_t prev = s->cur[s->row - 1];
        if (s->rows > 0 && s->row < s->rows) { /* inside a column that follows another */
            continues = next_column(s, s->last[s->row], addr);
        } else if (s->rows == 0 && addr >= prev + SWEEP_MIN_STRIDE && addr >= prev + 2 * size) {
            uint64_t stride = s->row > 1 ? s->cur[1] - s->cur[0] : addr - prev;
            uint64_t delta = addr - prev;
            continues = delta + SWEEP_NEAR >= stride && delta <= stride + SWEEP_NEAR;
        }
    }
    if (!continues)
        new_column(s, addr, size);
    if (reserve(s, s->row + 1) < 0) {
        H5FD__prefetch_sweep_reset(s); /* no memory: no sweep, reads are as they were */
        return;
    }
    s->cur[s->row++] = addr;
    if (s->rows == 0) {
        if (s->row >= SWEEP_MIN_ROWS) { /* a column: maybe a sweep's first */
            H5FD__prefetch_willneed(file, addr + size, SWEEP_NEAR_READS * (uint64_t)size);
            file->stats.sweep_advised += SWEEP_NEAR_READS * (uint64_t)size;
        }
        return;
    }
    if (!s->active && s->row == 2)
        start(file); /* two reads of a row one column on from the column before */
    else if (s->active)
        advise_row(file, s->row - 1, addr + size, s->per_row);
}
