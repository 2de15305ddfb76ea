/* H5FDprefetch_btree.c: the chunk index while declaring.
 *
 * Declaring chunks makes HDF5 search the dataset's chunk index (HDF5 1.10's default for chunked
 * datasets: a version 1 B-tree). Its nodes lie between the chunks, so in a file that is not
 * cached every node HDF5 meets is a small random read, one at a time: 6,240 node reads, 0.1 s of
 * the 0.17 s it took to declare 65,536 chunks of 8 KiB in random order here (HDF5's metadata
 * cache does not hold the whole index and reads nodes again). An internal node names all its
 * children, so when HDF5 reads one, the driver advises the kernel to read the children at once:
 * they arrive together instead of one search at a time. For the driver's own plan of a call only
 * the children that can name the call's chunks: the others are later calls' (child_wanted). A
 * leaf names its chunks (their coordinates, stored sizes and addresses): they are kept in the
 * dataset's chunk map, and declaring a chunk found there costs no search
 * (H5FDprefetch_declare.c). While nothing is declared, the children of the internal nodes HDF5
 * reads are noted instead, for a column sweep to advise when it starts (H5FDprefetch_sweep.c).
 *
 * A node, as the HDF5 file format specification lays it out (8-byte addresses, which is what the
 * checks below accept): "TREE", node type (1: raw data chunks), level (0: leaf), entries used
 * (16 bits, little-endian), left and right sibling addresses, then key 0, child 0, key 1, ...,
 * key N. A chunk key is the chunk's stored size (32 bits), its filter mask (32 bits) and one
 * 64-bit offset per dimension of the dataset plus one (the element size). Children of an
 * internal node are nodes of the same size as the node itself. Anything that does not parse as
 * such a node is left alone: the advice is a hint, and a wrong one costs a read, never a value. */
#include <fcntl.h>
#include <pthread.h>
#include <string.h>

#include "H5FDprefetch_private.h"

#define NODE_HEADER 24 /* signature, type, level, entries used, two sibling addresses */

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The node's entries when `node` is a node of a version 1 B-tree of chunks with keys of
 * `key` bytes that fits in `size` bytes, else 0. */
static size_t entries_of(const unsigned char *node, size_t size, size_t key)
{
    size_t entries;
    if (size < NODE_HEADER || memcmp(node, "TREE", 4) != 0 || node[4] != 1)
        return 0;
    entries = (size_t)node[6] | (size_t)node[7] << 8;
    if (entries == 0 || NODE_HEADER + (entries + 1) * key + entries * 8 > size)
        return 0;
    return entries;
}

/* Child i of a node whose keys are `key` bytes. */
static uint64_t child_of(const unsigned char *node, size_t key, size_t i)
{
    return le64(node + NODE_HEADER + key + i * (key + 8));
}

/* Whether every child of the node is an address of this file with room for a node of `size`
 * bytes (one that is not means the node is not what it looked like). */
static int children_in_file(const H5FD_prefetch_t *file, const unsigned char *node, size_t size,
                            size_t key, size_t entries)
{
    for (size_t i = 0; i < entries; ++i) {
        uint64_t child = child_of(node, key, i);
        if (child == 0 || child >= file->eoa || file->eoa - child < size)
            return 0;
    }
    return 1;
}

/* Compares key i of a node (the offset of a chunk, in elements) with `offset`, over `rank`
 * dimensions in row-major order, as the index orders its keys: <0, 0 or >0. */
static int key_cmp(const unsigned char *node, size_t key, size_t i, const hsize_t *offset, int rank)
{
    const unsigned char *k = node + NODE_HEADER + i * (key + 8) + 8;
    for (int d = 0; d < rank; ++d) {
        const uint64_t at = le64(k + 8 * (size_t)d);
        if (at != offset[d])
            return at < offset[d] ? -1 : 1;
    }
    return 0;
}

/* Whether child i of an internal node is advised: always for a declared plan; for the driver's
 * own plan of a call, when its keys (the child holds the chunks from key i up to key i + 1) can
 * name a chunk between the selection's first and last. */
static int child_wanted(const H5FD_prefetch_t *file, const unsigned char *node, size_t key,
                        size_t i)
{
    const int rank = file->declaring_info->rank;
    return !file->declaring_own || (key_cmp(node, key, i, file->declaring_last, rank) <= 0 &&
                                    key_cmp(node, key, i + 1, file->declaring_first, rank) >= 0);
}

/* An internal node: advises its children (child_wanted), none when any is not an address of the
 * file. Before the file's pfio context runs (a dataset being opened) the reader advises them
 * itself: starting the context here would choose the file's buffer kind before the program could
 * declare its plan (H5FD__prefetch_engine; a declared file's kind is the engine's rule). */
static void advise_children(H5FD_prefetch_t *file, const unsigned char *node, size_t size,
                            size_t key, size_t entries)
{
    int started;
    if (!children_in_file(file, node, size, key, entries))
        return;
    pthread_mutex_lock(&file->plan_lock);
    started = file->ctx != NULL;
    pthread_mutex_unlock(&file->plan_lock);
    for (size_t i = 0; i < entries; ++i) {
        if (!child_wanted(file, node, key, i))
            continue;
        if (started)
            H5FD__prefetch_willneed(file, child_of(node, key, i), size);
        else
            posix_fadvise(file->fd, (off_t)child_of(node, key, i), (off_t)size,
                          POSIX_FADV_WILLNEED);
        ++file->stats.index_advised;
    }
}

/* A leaf: key i names chunk i (stored size, filter mask, the chunk's offset in elements in
 * each dimension, then 0 for the element size) and child i is its address. Kept in the
 * dataset's chunk map; none of them when any entry does not fit the dataset. */
static void keep_chunks(H5FD_prefetch_t *file, H5FD_prefetch_dataset_t *info,
                        const unsigned char *node, size_t key, size_t entries)
{
    uint64_t index[1024], stored[1024];
    haddr_t addr[1024];
    if (entries > sizeof index / sizeof index[0])
        return;
    for (size_t i = 0; i < entries; ++i) {
        const unsigned char *k = node + NODE_HEADER + i * (key + 8);
        hsize_t offset[H5S_MAX_RANK];
        for (int d = 0; d < info->rank; ++d)
            offset[d] = (hsize_t)le64(k + 8 + 8 * (size_t)d);
        index[i] = H5FD__prefetch_chunk_index(info, offset);
        stored[i] = le32(k);
        addr[i] = (haddr_t)le64(k + key);
        if (index[i] == UINT64_MAX || stored[i] == 0 || addr[i] >= file->eoa ||
            file->eoa - addr[i] < stored[i] || le64(k + 8 + 8 * (size_t)info->rank) != 0)
            return;
    }
    for (size_t i = 0; i < entries; ++i)
        H5FD__prefetch_chunkmap_put(&info->chunks, index[i], addr[i], stored[i], info->nchunks);
    file->stats.index_chunks += entries;
}

/* The children of an internal node whose keys are `key` bytes (for a dataset of rank
 * key / 8 - 2), pushed onto `list` (as extents of the node's size), when every key ends with the
 * 0 of the element-size dimension and every child is an address of the file: 1, else 0 and
 * nothing pushed. */
static int note_children(H5FD_prefetch_t *file, H5FD_prefetch_extents_t *list,
                         const unsigned char *node, size_t size, size_t key)
{
    const size_t entries = entries_of(node, size, key);
    if (entries == 0 || node[5] == 0)
        return 0;
    for (size_t i = 0; i <= entries; ++i)
        if (le64(node + NODE_HEADER + i * (key + 8) + key - 8) != 0)
            return 0;
    if (!children_in_file(file, node, size, key, entries))
        return 0;
    for (size_t i = 0; i < entries; ++i)
        H5FD__prefetch_extents_push(list, -1, child_of(node, key, i), size);
    return 1;
}

void H5FD__prefetch_btree_note_node(H5FD_prefetch_t *file, const unsigned char *node, size_t size)
{
    if (file->index_children.count >= H5FD_PREFETCH_INDEX_CHILDREN_MAX)
        return;
    for (size_t rank = 1; rank <= H5S_MAX_RANK; ++rank)
        if (note_children(file, &file->index_children, node, size, 8 + 8 * (rank + 1)))
            return;
}

void H5FD__prefetch_btree_node_read(H5FD_prefetch_t *file, const unsigned char *node, size_t size)
{
    H5FD_prefetch_dataset_t *info = file->declaring_info;
    size_t key, entries;
    if (info == NULL)
        return;
    key = 8 + 8 * ((size_t)info->rank + 1);
    entries = entries_of(node, size, key);
    if (entries == 0)
        return;
    if (node[5] > 0)
        advise_children(file, node, size, key, entries);
    else
        keep_chunks(file, info, node, key, entries);
}
