/* Forced into ROMIO 3.2.1's own test programs when they are built against Open MPI 4.1: they
 * still use MPI_LB and MPI_UB, which libmpi exports but mpi.h declares only when Open MPI was
 * configured with MPI-1 compatibility (Debian's was not). Nothing of pfio uses this. */
#include <mpi.h>
#ifndef MPI_LB
OMPI_DECLSPEC extern struct ompi_predefined_datatype_t ompi_mpi_lb;
OMPI_DECLSPEC extern struct ompi_predefined_datatype_t ompi_mpi_ub;
#define MPI_LB OMPI_PREDEFINED_GLOBAL(MPI_Datatype, ompi_mpi_lb)
#define MPI_UB OMPI_PREDEFINED_GLOBAL(MPI_Datatype, ompi_mpi_ub)
#endif
