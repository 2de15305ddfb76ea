/* A request through the file view, as pfio sees it: the file extents in the order the view
 * visits them (ROMIO's own flattening of the view), and read pieces that pair each stretch of
 * the file with its place in the user's buffer (ROMIO's flattening of the memory type). */
#include <stdlib.h>

#include "ad_prefetch.h"
#include "ad_prefetch_romio.h"
#include "adioi.h"

uint64_t ADIOI_PREFETCH_Request_bytes(int count, MPI_Datatype datatype)
{
    MPI_Count size = 0;
    MPI_Type_size_x(datatype, &size);
    return count > 0 && size > 0 ? (uint64_t)count * (uint64_t)size : 0;
}

ADIO_Offset ADIOI_PREFETCH_View_offset(ADIO_File fd, ADIO_Offset offset)
{
    return fd->disp + (ADIO_Offset)fd->etype_size * offset;
}

/* One contiguous block of the user's buffer. */
typedef struct {
    char *addr;
    ADIO_Offset length;
} MemBlock;

/* The buffer's blocks for `count` elements of `datatype`, zero lengths dropped. */
static int memory_blocks(void *buf, int count, MPI_Datatype datatype, ADIO_Offset total,
                         MemBlock **out, int *nout)
{
    int contig = 0, j;
    MPI_Count b;
    ADIOI_Flatlist_node *flat;
    MPI_Aint lb, extent;
    MemBlock *blocks;
    int n = 0;
    ADIOI_Datatype_iscontig(datatype, &contig);
    if (contig) {
        blocks = malloc(sizeof *blocks);
        if (blocks == NULL)
            return 0;
        blocks[0].addr = buf;
        blocks[0].length = total;
        *out = blocks;
        *nout = 1;
        return 1;
    }
    flat = ADIOI_Flatten_and_find(datatype);
    MPI_Type_get_extent(datatype, &lb, &extent);
    blocks = malloc(((size_t)count * (size_t)flat->count + 1) * sizeof *blocks);
    if (blocks == NULL)
        return 0;
    for (j = 0; j < count; ++j) {
        for (b = 0; b < flat->count; ++b) {
            if (flat->blocklens[b] == 0)
                continue;
            blocks[n].addr = (char *)buf + (ADIO_Offset)j * extent + flat->indices[b];
            blocks[n].length = flat->blocklens[b];
            ++n;
        }
    }
#if PFIO_ROMIO_MAJOR < 4
    ADIOI_Delete_flattened(datatype); /* 3.2.1 keeps one global list; 4.x caches per type */
#endif
    *out = blocks;
    *nout = n;
    return 1;
}

int ADIOI_PREFETCH_View_pieces(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                               int file_ptr_type, ADIO_Offset offset, pfio_read_piece **pieces,
                               int *npieces, pfio_extent **extents, int *nextents, uint64_t *total)
{
    ADIO_Offset *off_list = NULL, *len_list = NULL, start = 0, end = 0;
    MemBlock *mem = NULL;
    int nfile = 0, nmem = 0, i, m, k;
    ADIO_Offset file_used = 0, mem_used = 0;

    *pieces = NULL;
    *extents = NULL;
    *npieces = *nextents = 0;
    *total = ADIOI_PREFETCH_Request_bytes(count, datatype);
    if (*total == 0)
        return 1;
    ADIOI_Calc_my_off_len(fd, count, datatype, file_ptr_type, offset, &off_list, &len_list, &start,
                          &end, &nfile);
    if (!memory_blocks(buf, count, datatype, (ADIO_Offset)*total, &mem, &nmem))
        goto fail;
    *extents = malloc(((size_t)nfile + 1) * sizeof **extents);
    *pieces = malloc(((size_t)nfile + (size_t)nmem + 1) * sizeof **pieces);
    if (*extents == NULL || *pieces == NULL)
        goto fail;
    for (i = 0; i < nfile; ++i) {
        if (len_list[i] <= 0)
            continue;
        (*extents)[*nextents].file = 0;
        (*extents)[*nextents].marked = 0;
        (*extents)[*nextents].offset = (uint64_t)off_list[i];
        (*extents)[*nextents].length = (uint64_t)len_list[i];
        ++*nextents;
    }
    /* walk the file extents and the memory blocks together */
    for (i = 0, m = 0, k = 0; i < *nextents && m < nmem;) {
        ADIO_Offset f_left = (ADIO_Offset)(*extents)[i].length - file_used;
        ADIO_Offset m_left = mem[m].length - mem_used;
        ADIO_Offset n = f_left < m_left ? f_left : m_left;
        (*pieces)[k].buf = mem[m].addr + mem_used;
        (*pieces)[k].offset = (*extents)[i].offset + (uint64_t)file_used;
        (*pieces)[k].length = (uint64_t)n;
        ++k;
        file_used += n;
        mem_used += n;
        if (file_used == (ADIO_Offset)(*extents)[i].length) {
            ++i;
            file_used = 0;
        }
        if (mem_used == mem[m].length) {
            ++m;
            mem_used = 0;
        }
    }
    *npieces = k;
    free(mem);
    ADIOI_Free(off_list);
#if PFIO_ROMIO_MAJOR < 4
    ADIOI_Free(len_list); /* 4.x allocates both lists in one block */
#endif
    return 1;

fail:
    free(mem);
    free(*extents);
    free(*pieces);
    *extents = NULL;
    *pieces = NULL;
    if (off_list != NULL) {
        ADIOI_Free(off_list);
#if PFIO_ROMIO_MAJOR < 4
        ADIOI_Free(len_list);
#endif
    }
    return 0;
}

uint64_t ADIOI_PREFETCH_View_bytes_before(ADIO_File fd, int count, MPI_Datatype datatype,
                                          int file_ptr_type, ADIO_Offset offset, ADIO_Offset fp_ind,
                                          uint64_t eof, int *crosses)
{
    ADIO_Offset *off_list = NULL, *len_list = NULL, start = 0, end = 0, kept = fd->fp_ind;
    int n = 0, i, filetype_is_contig = 0;
    uint64_t bytes = 0;
    *crosses = 0;
    if (count <= 0)
        return 0;
    ADIOI_Datatype_iscontig(fd->filetype, &filetype_is_contig);
    if (filetype_is_contig) { /* one run, found as Calc_my_off_len would, without its lists */
        const uint64_t at =
            (uint64_t)(file_ptr_type == ADIO_INDIVIDUAL ? fp_ind
                                                        : ADIOI_PREFETCH_View_offset(fd, offset));
        const uint64_t length = ADIOI_PREFETCH_Request_bytes(count, datatype);
        if (length > 0 && at + length > eof)
            *crosses = 1;
        return at >= eof ? 0 : at + length > eof ? eof - at : length;
    }
    fd->fp_ind = fp_ind; /* Calc_my_off_len walks the view from here, and moves the pointer */
    ADIOI_Calc_my_off_len(fd, count, datatype, file_ptr_type, offset, &off_list, &len_list, &start,
                          &end, &n);
    fd->fp_ind = kept;
    for (i = 0; i < n; ++i) {
        uint64_t o = (uint64_t)off_list[i], l = len_list[i] > 0 ? (uint64_t)len_list[i] : 0;
        if (o + l > eof)
            *crosses = 1;
        if (o < eof)
            bytes += o + l > eof ? eof - o : l;
    }
    ADIOI_Free(off_list);
#if PFIO_ROMIO_MAJOR < 4
    ADIOI_Free(len_list);
#endif
    return bytes;
}
