/* Writes: ROMIO's generic (UFS) code, then every prefetched byte of the file is dropped before
 * the write returns. While ROMIO itself reads inside a write (data sieving's read-modify-write,
 * two-phase filling the holes of a collective write) those reads take the stock path, because
 * they must see the file as it is now, under ROMIO's lock, not as pfio fetched it. */
#include "ad_prefetch.h"
#include "adioi.h"

static void begin(ADIO_File fd)
{
    ADIOI_PREFETCH_File *pf = fd->fs_ptr;
    if (pf != NULL)
        ++pf->bypass;
}

static void end(ADIO_File fd, const char *caller, int *error_code)
{
    ADIOI_PREFETCH_File *pf = fd->fs_ptr;
    int code;
    if (pf == NULL)
        return;
    if (--pf->bypass > 0)
        return; /* a write inside a write (data sieving): the outer one refreshes */
    code = ADIOI_PREFETCH_Invalidate(fd, caller);
    if (*error_code == MPI_SUCCESS)
        *error_code = code;
}

void ADIOI_PREFETCH_WriteContig(ADIO_File fd, const void *buf, int count, MPI_Datatype datatype,
                                int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                                int *error_code)
{
    begin(fd);
    ADIOI_GEN_WriteContig(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
    end(fd, "ADIOI_PREFETCH_WriteContig", error_code);
}

void ADIOI_PREFETCH_WriteStrided(ADIO_File fd, const void *buf, int count, MPI_Datatype datatype,
                                 int file_ptr_type, ADIO_Offset offset, ADIO_Status *status,
                                 int *error_code)
{
    begin(fd);
    ADIOI_GEN_WriteStrided(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
    end(fd, "ADIOI_PREFETCH_WriteStrided", error_code);
}

void ADIOI_PREFETCH_WriteStridedColl(ADIO_File fd, const void *buf, int count,
                                     MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset,
                                     ADIO_Status *status, int *error_code)
{
    begin(fd);
    ADIOI_GEN_WriteStridedColl(fd, buf, count, datatype, file_ptr_type, offset, status, error_code);
    end(fd, "ADIOI_PREFETCH_WriteStridedColl", error_code);
}

/* The nonblocking collective write completes inside the call (allowed by MPI): ROMIO's
 * nonblocking two-phase fills holes with reads spread over later MPI_Test/Wait calls, where no
 * bracket could keep them on the stock path. */
void ADIOI_PREFETCH_IwriteStridedColl(ADIO_File fd, const void *buf, int count,
                                      MPI_Datatype datatype, int file_ptr_type, ADIO_Offset offset,
                                      ADIO_Request *request, int *error_code)
{
    ADIO_Status status;
    MPI_Offset nbytes = 0;
    ADIOI_PREFETCH_WriteStridedColl(fd, buf, count, datatype, file_ptr_type, offset, &status,
                                    error_code);
    if (*error_code == MPI_SUCCESS)
        nbytes = (MPI_Offset)ADIOI_PREFETCH_Request_bytes(count, datatype);
    MPIO_Completed_request_create(&fd, nbytes, error_code, request);
}

/* MPI_File_preallocate reads what the file holds and writes it back (ADIOI_GEN_Prealloc): the
 * reads must see the file, not what pfio fetched. Everything else is ROMIO's generic Fcntl. */
void ADIOI_PREFETCH_Fcntl(ADIO_File fd, int flag, ADIO_Fcntl_t *fcntl_struct, int *error_code)
{
    if (flag != ADIO_FCNTL_SET_DISKSPACE) {
        ADIOI_GEN_Fcntl(fd, flag, fcntl_struct, error_code);
        return;
    }
    begin(fd);
    ADIOI_GEN_Fcntl(fd, flag, fcntl_struct, error_code);
    end(fd, "ADIOI_PREFETCH_Fcntl", error_code);
}
