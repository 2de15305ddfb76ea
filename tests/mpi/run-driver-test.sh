#!/usr/bin/env bash
# Runs one MPI test program under Open MPI's mpirun or MPICH's mpiexec, with the prefetch driver
# where that MPI finds it, in a fresh working directory. Used by ctest.
# usage: run-driver-test.sh openmpi|mpich NP WORKDIR DRIVER_DIR [VAR=VALUE ...] -- PROGRAM ARGS...
#   DRIVER_DIR  openmpi: the directory holding mca_io_prefetch.so (put before Open MPI's own)
#               mpich: the directory holding libromio.so (the program is linked with it)
#   VAR=VALUE   environment for every rank (e.g. ROMIO_FSTYPE_FORCE=prefetch:)
# The word @WORKDIR@ in the program's arguments becomes WORKDIR. A run is bounded at 240 s, so
# a hang fails the test instead of stalling the suite.
set -euo pipefail
mpi=${1:?openmpi or mpich}; np=${2:?ranks}; work=${3:?work dir}; driver=${4:?driver dir}
shift 4
envs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
[ "${1:-}" = "--" ] || { echo "run-driver-test: expected -- before the program" >&2; exit 2; }
shift
rm -rf "$work"
mkdir -p "$work"
args=()
for a in "$@"; do args+=("${a//@WORKDIR@/$work}"); done
case "$mpi" in
  openmpi)
    sysdir=$(ompi_info --path pkglibdir --parsable | cut -d: -f3)
    export OMPI_MCA_mca_base_component_path="$driver:$sysdir"
    launch=(mpirun --oversubscribe -np "$np")
    [ "$(id -u)" -eq 0 ] && launch+=(--allow-run-as-root)
    for e in "${envs[@]}"; do export "${e?}"; launch+=(-x "${e%%=*}"); done
    ;;
  mpich)
    launch=(mpiexec.mpich -n "$np")
    for e in "${envs[@]}"; do launch+=(-genv "${e%%=*}" "${e#*=}"); done
    ;;
  *) echo "run-driver-test: mpi = '$mpi': expected openmpi or mpich" >&2; exit 2 ;;
esac
exec timeout --kill-after=10 240 "${launch[@]}" "${args[@]}"
