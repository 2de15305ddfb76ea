/* The ad_prefetch operations table: pfio where reads and consistency need it, ROMIO's generic
 * (UFS) code everywhere else. See ad_prefetch.h for the contract. */
#include "ad_prefetch.h"
#include "ad_prefetch_romio.h"
#include "adioi.h"

struct ADIOI_Fns_struct ADIO_PREFETCH_operations = {
    ADIOI_PREFETCH_Open,             /* Open */
    ADIOI_PREFETCH_OpenColl,         /* OpenColl */
    ADIOI_PREFETCH_ReadContig,       /* ReadContig */
    ADIOI_PREFETCH_WriteContig,      /* WriteContig */
    ADIOI_PREFETCH_ReadStridedColl,  /* ReadStridedColl */
    ADIOI_PREFETCH_WriteStridedColl, /* WriteStridedColl */
    ADIOI_GEN_SeekIndividual,        /* SeekIndividual */
    ADIOI_PREFETCH_Fcntl,            /* Fcntl: preallocate reads the file itself */
    ADIOI_PREFETCH_SetInfo,          /* SetInfo */
    ADIOI_PREFETCH_ReadStrided,      /* ReadStrided */
    ADIOI_PREFETCH_WriteStrided,     /* WriteStrided */
    ADIOI_PREFETCH_Close,            /* Close */
    ADIOI_PREFETCH_IreadContig,      /* IreadContig: ReadContig, completed in the call */
    ADIOI_FAKE_IwriteContig,         /* IwriteContig: the blocking WriteContig above */
    ADIOI_GEN_IODone,                /* ReadDone */
    ADIOI_GEN_IODone,                /* WriteDone */
    ADIOI_GEN_IOComplete,            /* ReadComplete */
    ADIOI_GEN_IOComplete,            /* WriteComplete */
    ADIOI_PREFETCH_IreadStrided,     /* IreadStrided: ReadStrided, completed in the call */
    ADIOI_FAKE_IwriteStrided,        /* IwriteStrided: the blocking WriteStrided above */
    ADIOI_PREFETCH_Flush,            /* Flush */
    ADIOI_PREFETCH_Resize,           /* Resize */
    ADIOI_GEN_Delete,                /* Delete */
    ADIOI_GEN_Feature,               /* Features */
    "PREFETCH: pfio plan-driven prefetching over UFS",
    ADIOI_PREFETCH_IreadStridedColl, /* IreadStridedColl: see ad_prefetch_rdcoll.c */
    ADIOI_PREFETCH_IwriteStridedColl /* IwriteStridedColl: completes in the call */
#if PFIO_ROMIO_MAJOR >= 4
    ,
    ADIOI_GEN_SetLock /* SetLock */
#endif
};
