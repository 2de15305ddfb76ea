/* pfio across MPI's nodes: two emulated nodes on one machine (tests/mpi/emulated-node.sh, Open
 * MPI's plm_rsh_agent: each node's ranks in a UTS and mount namespace of their own, named after
 * the node, with a /dev/shm of their own), 2 x 2 ranks.
 *   collective   interleaved and shuffled collective reads through the prefetch driver, in both
 *                buffer kinds (cache, engine): every byte checked on every rank
 *   registry     the node registry (/dev/shm/pfio-node-<uid>) is one per node: ranks of one node
 *                share it, ranks of two nodes never do, and each node has its own ranks
 * usage: two_nodes_test DIR    (DIR on a file system every node sees)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_common.h"

#define FILE_SIZE (16LL << 20)
#define BLOCK 47008
#define HOST_MAX 64

/* Collective reads of blocks, each call one block per rank: in file order, then shuffled. */
static void read_collectively(const char *test, const char *path, const char *kind)
{
    const int blocks = (int)(FILE_SIZE / BLOCK), calls = blocks / nprocs;
    unsigned char *buf = malloc(BLOCK);
    MPI_Info info;
    MPI_File fh;
    MPI_Status st;
    int pass, k;
    MPI_Info_create(&info);
    MPI_Info_set(info, "prefetch_buffer", (char *)kind);
    must_open(test, path, MPI_MODE_RDONLY, info, &fh);
    for (pass = 0; pass < 2; ++pass) {
        for (k = 0; k < calls; ++k) {
            /* pass 1: the calls in a fixed shuffled order (every rank the same) */
            int call = pass == 0 ? k : (int)(((long long)k * 7919) % calls);
            long long off = ((long long)call * nprocs + rank) * BLOCK;
            memset(buf, SENTINEL, BLOCK);
            MPI_File_read_at_all(fh, off, buf, BLOCK, MPI_BYTE, &st);
            check_count(test, &st, MPI_BYTE, BLOCK);
            check_range(test, buf, off, BLOCK, SEED);
        }
    }
    MPI_File_close(&fh);
    MPI_Info_free(&info);
    free(buf);
}

static void test_collective(const char *path)
{
    const char *test = "collective: reads across two nodes, both buffer kinds";
    int before = failures;
    read_collectively(test, path, "cache");
    read_collectively(test, path, "engine");
    report(test, before);
}

/* Which node each rank is on (its host name) and which registry it sees (device and inode). */
static void test_registry(const char *path)
{
    const char *test = "registry: one node registry per node";
    int before = failures, i, j, hosts = 0;
    char host[HOST_MAX] = "", *all_hosts = malloc((size_t)nprocs * HOST_MAX), registry[128];
    unsigned long long mine[2] = {0, 0}, *all = malloc((size_t)nprocs * sizeof mine);
    struct stat sb;
    MPI_File fh;
    gethostname(host, sizeof host - 1);
    /* An open file keeps this rank's slot in the registry while every rank looks. */
    must_open(test, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    snprintf(registry, sizeof registry, "/dev/shm/pfio-node-%u", (unsigned)getuid());
    if (stat(registry, &sb) != 0)
        fail(test, "rank %d on %s: no node registry at %s", rank, host, registry);
    else {
        mine[0] = (unsigned long long)sb.st_dev;
        mine[1] = (unsigned long long)sb.st_ino;
    }
    MPI_Allgather(host, HOST_MAX, MPI_CHAR, all_hosts, HOST_MAX, MPI_CHAR, MPI_COMM_WORLD);
    MPI_Allgather(mine, 2, MPI_UNSIGNED_LONG_LONG, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD);
    for (i = 0; i < nprocs; ++i) {
        int first = 1;
        for (j = 0; j < i; ++j)
            first = first &&
                    strcmp(all_hosts + (size_t)i * HOST_MAX, all_hosts + (size_t)j * HOST_MAX) != 0;
        hosts += first;
        for (j = 0; j < nprocs; ++j) {
            int same_node =
                strcmp(all_hosts + (size_t)i * HOST_MAX, all_hosts + (size_t)j * HOST_MAX) == 0;
            int same_registry = all[2 * i] == all[2 * j] && all[2 * i + 1] == all[2 * j + 1];
            if (rank == 0 && same_node != same_registry)
                fail(test, "ranks %d (%s) and %d (%s) %s one registry", i,
                     all_hosts + (size_t)i * HOST_MAX, j, all_hosts + (size_t)j * HOST_MAX,
                     same_registry ? "share" : "do not share");
        }
    }
    if (rank == 0 && hosts != 2)
        fail(test, "the ranks ran on %d nodes: expected 2 (the emulated nodes)", hosts);
    if (rank == 0)
        printf("ranks on %d nodes: %s", hosts, all_hosts);
    for (i = 1; rank == 0 && i < nprocs; ++i)
        printf(", %s", all_hosts + (size_t)i * HOST_MAX);
    if (rank == 0)
        printf("\n");
    MPI_File_close(&fh);
    free(all_hosts);
    free(all);
    report(test, before);
}

int main(int argc, char **argv)
{
    char path[1024];
    start(&argc, &argv);
    if (argc != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    mode = "prefix";
    dir = argv[1];
    path_of(path, sizeof path, "nodes.dat");
    make_file(path, (uint64_t)FILE_SIZE, SEED);
    test_collective(path);
    test_registry(path);
    return finish();
}
