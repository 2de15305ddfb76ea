/* Parallel HDF5 (Debian's libhdf5-openmpi 1.10) over MPI-IO with the prefetch hint: a 2-D
 * dataset of self-verifying values written collectively, then read back through the driver
 * (H5Pset_fapl_mpio with info prefetch=enable) by column blocks, collectively and
 * independently. The job summary of the driver's stats must count the reads, which shows the
 * file went through ad_prefetch and not through OMPIO.
 *
 * usage: hdf5_mpio_test DIR        exit status: failures on any rank
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"

#define ROWS 512
#define COLS_PER_RANK 96
#define SEED 5

static int rank, nprocs, failures;

static void fail(const char *what)
{
    fprintf(stderr, "FAIL hdf5 (rank %d of %d): %s\n", rank, nprocs, what);
    ++failures;
}

/* The value stored at (row, col): the pattern word of its element index. */
static unsigned long long value_at(size_t row, size_t col, size_t cols)
{
    return (unsigned long long)pattern_word((uint64_t)(row * cols + col) * 8, SEED);
}

static hid_t file_access(const char *stats)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "prefetch", "enable");
    if (stats != NULL)
        MPI_Info_set(info, "prefetch_stats", stats);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, info);
    MPI_Info_free(&info);
    return fapl;
}

int main(int argc, char **argv)
{
    char path[1024], stats[1024];
    size_t cols, r, c;
    hsize_t dims[2], start[2], count[2];
    unsigned long long *buf;
    hid_t file, space, mem, dset, dxpl;
    int all = 0, pass;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: %s DIR\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    snprintf(path, sizeof path, "%s/matrix.h5", argv[1]);
    snprintf(stats, sizeof stats, "%s/h5stats.json", argv[1]);
    cols = (size_t)COLS_PER_RANK * nprocs;
    dims[0] = ROWS;
    dims[1] = cols;
    start[0] = 0;
    start[1] = (hsize_t)COLS_PER_RANK * rank;
    count[0] = ROWS;
    count[1] = COLS_PER_RANK;
    buf = malloc(sizeof *buf * ROWS * COLS_PER_RANK);

    /* write: each rank its column block, collectively */
    {
        hid_t fapl = file_access(NULL);
        file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        H5Pclose(fapl);
        space = H5Screate_simple(2, dims, NULL);
        dset =
            H5Dcreate2(file, "m", H5T_NATIVE_ULLONG, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        for (r = 0; r < ROWS; ++r)
            for (c = 0; c < COLS_PER_RANK; ++c)
                buf[r * COLS_PER_RANK + c] = value_at(r, start[1] + c, cols);
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
        mem = H5Screate_simple(2, count, NULL);
        dxpl = H5Pcreate(H5P_DATASET_XFER);
        H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
        if (H5Dwrite(dset, H5T_NATIVE_ULLONG, mem, space, dxpl, buf) < 0)
            fail("H5Dwrite");
        H5Pclose(dxpl);
        H5Sclose(mem);
        H5Sclose(space);
        H5Dclose(dset);
        H5Fclose(file);
    }
    /* read back: the right neighbour's block, collectively then independently */
    for (pass = 0; pass < 2; ++pass) {
        hid_t fapl = file_access(stats);
        size_t other = (size_t)((rank + 1) % nprocs) * COLS_PER_RANK;
        memset(buf, 0, sizeof *buf * ROWS * COLS_PER_RANK);
        file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
        H5Pclose(fapl);
        if (file < 0) {
            fail("H5Fopen with the prefetch hint");
            break;
        }
        dset = H5Dopen2(file, "m", H5P_DEFAULT);
        space = H5Dget_space(dset);
        start[1] = other;
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
        mem = H5Screate_simple(2, count, NULL);
        dxpl = H5Pcreate(H5P_DATASET_XFER);
        H5Pset_dxpl_mpio(dxpl, pass == 0 ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
        if (H5Dread(dset, H5T_NATIVE_ULLONG, mem, space, dxpl, buf) < 0)
            fail("H5Dread");
        for (r = 0; r < ROWS && failures == 0; ++r)
            for (c = 0; c < COLS_PER_RANK; ++c)
                if (buf[r * COLS_PER_RANK + c] != value_at(r, other + c, cols)) {
                    char msg[160];
                    snprintf(msg, sizeof msg, "%s read: element (%zu, %zu) is wrong",
                             pass == 0 ? "collective" : "independent", r, other + c);
                    fail(msg);
                    break;
                }
        H5Pclose(dxpl);
        H5Sclose(mem);
        H5Sclose(space);
        H5Dclose(dset);
        H5Fclose(file);
        if (rank == 0) {
            FILE *f = fopen(stats, "r");
            char text[4096] = "";
            const char *p;
            size_t n = f != NULL ? fread(text, 1, sizeof text - 1, f) : 0;
            text[n] = '\0';
            if (f != NULL)
                fclose(f);
            p = strstr(text, "\"reads\": ");
            if (p == NULL || strtoull(p + 9, NULL, 10) == 0)
                p = strstr(text, "\"cache_reads\": ");
            if (p == NULL || strtoull(strchr(p, ':') + 1, NULL, 10) == 0)
                fail("the driver's job summary counts no pfio reads: the file did not go "
                     "through ad_prefetch");
        }
    }
    free(buf);
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %d failure(s), %d rank(s), HDF5 %d.%d.%d\n", all ? "FAILED" : "PASSED", all,
               nprocs, H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE);
    MPI_Finalize();
    return all > 255 ? 255 : all;
}
