/* H5FDprefetch_chunkmap.c: where a dataset's chunks are, as the leaves of its chunk index said.
 *
 * An open-addressing hash table from a chunk's linear index (its coordinates in chunks,
 * row-major) to its address and stored size. It grows at half full and never shrinks; it is
 * cleared when the file is written (chunks may have moved) and freed with its dataset's slot. */
#include <stdlib.h>

#include "H5FDprefetch_private.h"

struct H5FD_prefetch_chunkmap_t {
    struct slot {
        uint64_t key; /* linear index + 1; 0: empty */
        haddr_t addr;
        uint64_t stored;
    } * slots;
    size_t capacity, count; /* capacity: a power of two */
};

static size_t home(uint64_t key, size_t capacity)
{
    key ^= key >> 33; /* mix: neighbouring chunks must not crowd one run of slots */
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (capacity - 1);
}

static int grow(H5FD_prefetch_chunkmap_t *map)
{
    size_t capacity = map->capacity ? 2 * map->capacity : 1024;
    struct slot *slots = calloc(capacity, sizeof *slots);
    if (slots == NULL)
        return -1;
    for (size_t i = 0; i < map->capacity; ++i) {
        size_t j;
        if (map->slots[i].key == 0)
            continue;
        for (j = home(map->slots[i].key, capacity); slots[j].key != 0; j = (j + 1) & (capacity - 1))
            ;
        slots[j] = map->slots[i];
    }
    free(map->slots);
    map->slots = slots;
    map->capacity = capacity;
    return 0;
}

void H5FD__prefetch_chunkmap_put(H5FD_prefetch_chunkmap_t **mapp, uint64_t chunk, haddr_t addr,
                                 uint64_t stored, uint64_t chunks)
{
    H5FD_prefetch_chunkmap_t *map = *mapp;
    const uint64_t key = chunk + 1;
    size_t i;
    if (map == NULL) { /* sized for every chunk at once: growing rehashes */
        if ((map = *mapp = calloc(1, sizeof *map)) == NULL)
            return; /* a chunk not kept is a chunk looked up by a search: slower, not wrong */
        map->capacity = 512;
        while (map->capacity < 2 * chunks && map->capacity < ((size_t)1 << 22))
            map->capacity *= 2;
        if ((map->slots = calloc(map->capacity, sizeof *map->slots)) == NULL) {
            map->capacity = 0;
            return;
        }
    }
    if (2 * (map->count + 1) > map->capacity && grow(map) < 0)
        return;
    for (i = home(key, map->capacity); map->slots[i].key != 0 && map->slots[i].key != key;
         i = (i + 1) & (map->capacity - 1))
        ;
    map->count += map->slots[i].key == 0;
    map->slots[i].key = key;
    map->slots[i].addr = addr;
    map->slots[i].stored = stored;
}

int H5FD__prefetch_chunkmap_get(const H5FD_prefetch_chunkmap_t *map, uint64_t chunk, haddr_t *addr,
                                uint64_t *stored)
{
    const uint64_t key = chunk + 1;
    if (map == NULL || map->count == 0)
        return 0;
    for (size_t i = home(key, map->capacity); map->slots[i].key != 0;
         i = (i + 1) & (map->capacity - 1))
        if (map->slots[i].key == key) {
            *addr = map->slots[i].addr;
            *stored = map->slots[i].stored;
            return 1;
        }
    return 0;
}

void H5FD__prefetch_chunkmap_clear(H5FD_prefetch_chunkmap_t *map)
{
    if (map == NULL)
        return;
    for (size_t i = 0; i < map->capacity; ++i)
        map->slots[i].key = 0;
    map->count = 0;
}

void H5FD__prefetch_chunkmap_free(H5FD_prefetch_chunkmap_t *map)
{
    if (map != NULL)
        free(map->slots);
    free(map);
}
