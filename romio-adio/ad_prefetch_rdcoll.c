/* Collective reads. Today: ROMIO's two-phase algorithm, unchanged; the aggregators' reads of
 * their file domains are contiguous reads of this driver (ad_prefetch_read.c), so they go
 * through pfio and its sequential-run prediction, and non-interleaved requests that ROMIO
 * turns into independent reads go through pfio's strided path.
 * This is where the cross-rank plan (the collective layer) will enter: before two-phase starts,
 * every aggregator can learn the extents of its file domain for this call and the next ones. */
#include "ad_prefetch.h"
#include "adioi.h"

void ADIOI_PREFETCH_ReadStridedColl(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                    int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                                    int *error_code)
{
    ADIOI_GEN_ReadStridedColl(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
}

/* MPI_File_iread_all: ROMIO's nonblocking two-phase where ROMIO has it (MPICH); Open MPI's
 * ROMIO 3.2.1 is built without generalized-request extensions and has none (its stock
 * romio321 crashes on a NULL slot there), so the read completes inside the call. */
void ADIOI_PREFETCH_IreadStridedColl(ADIO_File fd, void *buf, int count, MPI_Datatype datatype,
                                     int file_ptr_type, ADIO_Offset offset, ADIO_Request *request,
                                     int *error_code)
{
#ifdef HAVE_MPI_GREQUEST_EXTENSIONS
    ADIOI_GEN_IreadStridedColl(fd, buf, count, datatype, file_ptr_type, offset, request,
                               error_code);
#else
    ADIO_Status status;
    MPI_Offset nbytes = 0;
    ADIOI_PREFETCH_ReadStridedColl(fd, buf, count, datatype, file_ptr_type, offset, &status,
                                   error_code);
    if (*error_code == MPI_SUCCESS) {
        int got = 0;
        MPI_Get_count(&status, MPI_BYTE, &got);
        nbytes = got;
    }
    MPIO_Completed_request_create(&fd, nbytes, error_code, request);
#endif
}
