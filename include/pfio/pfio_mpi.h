/* pfio_mpi.h: one call an MPI application may add to declare its future collective reads.
 *
 * Contract. pfio_mpi_file_plan is collective over the communicator `fh` was opened with. Each
 * rank gives the extents of its next `ncalls` collective reads of `fh` (MPI_File_read_all,
 * MPI_File_read_at_all, MPI_File_read_ordered, ...): counts[k] extents for call k, as absolute
 * file offsets and lengths in bytes, in the order the call's file view visits them; offsets
 * and lengths hold the calls one after the other. Every rank gives the same ncalls (a rank
 * with nothing to read in a call gives counts[k] = 0). pfio's collective layer plans the
 * declared calls ahead of the application, so each call's bytes are read while the calls
 * before it run; declarations add to the ones not yet used. A declaration that turns out wrong
 * costs reading time, never bytes: each call still reads exactly what it asks for.
 * Returns MPI_SUCCESS, or MPI_ERR_ARG when pfio refused the declaration (ranks declaring
 * different numbers of calls, a negative offset or length); then nothing is declared on any
 * rank, and MPI_File_get_info's "prefetch_plan_result" says why ("declared N calls" when it
 * was taken). On a file that is not read through
 * pfio (opened without the prefix or hint), or with hint prefetch_collective=disable, the call
 * changes nothing and returns MPI_SUCCESS.
 * Header only, nothing to link: the arrays reach the driver (inside the MPI library) through
 * MPI_File_set_info, key "prefetch_plan", as the address of a pfio_mpi_plan in this process;
 * the driver reads them before MPI_File_set_info returns.
 */
#ifndef PFIO_MPI_H_INCLUDED
#define PFIO_MPI_H_INCLUDED

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PFIO_MPI_PLAN_MAGIC 0x70666c616e706c31ull /* "pflanpl1" */
#define PFIO_MPI_PLAN_VERSION 1

typedef struct pfio_mpi_plan {
    uint64_t magic; /* PFIO_MPI_PLAN_MAGIC */
    int version;    /* PFIO_MPI_PLAN_VERSION */
    int ncalls;
    const int *counts;
    const MPI_Offset *offsets;
    const MPI_Offset *lengths;
} pfio_mpi_plan;

static inline int pfio_mpi_file_plan(MPI_File fh, int ncalls, const int counts[],
                                     const MPI_Offset offsets[], const MPI_Offset lengths[])
{
    pfio_mpi_plan plan;
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL + 1];
    int rc, flag = 0;
    plan.magic = PFIO_MPI_PLAN_MAGIC;
    plan.version = PFIO_MPI_PLAN_VERSION;
    plan.ncalls = ncalls;
    plan.counts = counts;
    plan.offsets = offsets;
    plan.lengths = lengths;
    snprintf(value, sizeof value, "%p", (void *)&plan);
    MPI_Info_create(&info);
    MPI_Info_set(info, "prefetch_plan", value);
    rc = MPI_File_set_info(fh, info);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Open MPI 4.1 does not pass set_info's errors on: the driver's verdict is in the info. */
    if (MPI_File_get_info(fh, &info) != MPI_SUCCESS)
        return MPI_SUCCESS;
    MPI_Info_get(info, "prefetch_plan_result", MPI_MAX_INFO_VAL, value, &flag);
    MPI_Info_free(&info);
    return flag && strncmp(value, "refused", 7) == 0 ? MPI_ERR_ARG : MPI_SUCCESS;
}

#endif
