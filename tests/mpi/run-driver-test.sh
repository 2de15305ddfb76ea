#!/usr/bin/env bash
# Runs one MPI test program under Open MPI's mpirun or MPICH's mpiexec, with the prefetch driver
# where that MPI finds it, in a fresh working directory. Used by ctest.
# usage: run-driver-test.sh openmpi|mpich NP WORKDIR DRIVER_DIR [VAR=VALUE ...] -- PROGRAM ARGS...
#   DRIVER_DIR  openmpi: the directory holding mca_io_prefetch.so (put before Open MPI's own)
#               mpich: the directory holding libromio.so (the program is linked with it)
#   VAR=VALUE   environment for every rank (e.g. ROMIO_FSTYPE_FORCE=prefetch:); except
#               EMULATED_NODES=HOST:N,HOST:N (Open MPI): the ranks run on emulated nodes, each
#               in namespaces of its own (emulated-node.sh, which needs root: else the test is
#               skipped with exit 77)
# The word @WORKDIR@ in the program's arguments becomes WORKDIR. A run is bounded at 240 s, so
# a hang fails the test instead of stalling the suite.
set -euo pipefail
mpi=${1:?openmpi or mpich}; np=${2:?ranks}; work=${3:?work dir}; driver=${4:?driver dir}
shift 4
envs=()
nodes=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    EMULATED_NODES=*) nodes=${1#EMULATED_NODES=} ;;
    *) envs+=("$1") ;;
  esac
  shift
done
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
    if [ -n "$nodes" ]; then
      if [ "$(id -u)" -ne 0 ] || ! unshare --uts --mount true 2>/dev/null; then
        echo "skipped: emulated nodes need root and unshare(1) of UTS and mount namespaces"
        exit 77
      fi
      # Each node's daemon through emulated-node.sh; ranks of two nodes talk over loopback TCP.
      launch+=(--host "$nodes" --mca plm_rsh_agent "$(dirname "$0")/emulated-node.sh"
               --mca plm_rsh_no_tree_spawn 1 --mca btl self,vader,tcp
               --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo)
    fi
    for e in "${envs[@]}"; do export "${e?}"; launch+=(-x "${e%%=*}"); done
    ;;
  mpich)
    launch=(mpiexec.mpich -n "$np")
    for e in "${envs[@]}"; do launch+=(-genv "${e%%=*}" "${e#*=}"); done
    ;;
  *) echo "run-driver-test: mpi = '$mpi': expected openmpi or mpich" >&2; exit 2 ;;
esac
exec timeout --kill-after=10 240 "${launch[@]}" "${args[@]}"
