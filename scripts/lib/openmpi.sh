# Sourced by the scripts that run pfio-mpibench under Open MPI: makes pfio's io component (built
# in build/romio-adio/openmpi/components) visible to Open MPI next to its own, and sets
# pfio_mpirun to the launcher (mpirun, oversubscribing the 2 cores, as root where needed) without
# -np.
export OMPI_MCA_mca_base_component_path=$PWD/build/romio-adio/openmpi/components:$(ompi_info --path pkglibdir --parsable | cut -d: -f3)
pfio_mpirun=(mpirun --oversubscribe)
[ "$(id -u)" -ne 0 ] || pfio_mpirun+=(--allow-run-as-root)
