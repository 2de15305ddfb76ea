#!/usr/bin/env bash
# The driver's libraries export only what their MPI looks up: Open MPI's component one symbol
# (mca_io_prefetch_component), MPICH's libromio only MPI-IO functions (MPI_File_*, PMPI_File_*,
# MPI_Register_datarep*, MPIO_*), so ROMIO's internals never clash with the MPI's own copy.
# usage: check-exports.sh openmpi|mpich LIBRARY
set -euo pipefail
kind=${1:?openmpi or mpich}; lib=${2:?library}
symbols=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^$' | sort -u)
case "$kind" in
  openmpi) bad=$(grep -vx 'mca_io_prefetch_component' <<<"$symbols" || true) ;;
  mpich) bad=$(grep -Ev '^P?MPI_File_|^P?MPI_Register_datarep|^P?MPIO_' <<<"$symbols" || true) ;;
  *) echo "check-exports: kind = '$kind': expected openmpi or mpich" >&2; exit 2 ;;
esac
count=$(wc -l <<<"$symbols")
if [ -n "$bad" ]; then
  echo "FAIL: $lib exports $(wc -l <<<"$bad") symbol(s) it should not:"; head -20 <<<"$bad"
  exit 1
fi
echo "ok: $lib exports $count symbol(s), all expected ($kind)"
[ "$kind" = mpich ] && ! grep -qx 'MPI_File_read_all' <<<"$symbols" &&
  { echo "FAIL: $lib does not export MPI_File_read_all"; exit 1; }
exit 0
