#!/usr/bin/env bash
# Runs ROMIO's own test programs (romio/test/ of the source tree the driver was built into)
# with every file opened as "prefetch:PATH", so each goes through ad_prefetch. A program passes
# when it exits 0 and prints ROMIO's " No Errors". A program that fails is run again on a plain
# file name, so the same ROMIO without ad_prefetch handles it (Open MPI: stock romio321; MPICH:
# the same libromio's UFS driver); when it fails there too, the failure is that ROMIO's or that
# MPI's, reported as such and not counted against the driver.
# Used by ctest; the list is in docs/romio-driver.md.
# usage: run-romio-tests.sh openmpi|mpich ROMIO_TEST_DIR DRIVER_DIR WORKDIR [ROMIO_LIBDIR]
#   ROMIO_LIBDIR  mpich: where libromio.so is (the programs link it before libmpich)
set -euo pipefail
mpi=${1:?openmpi or mpich}; tests=${2:?romio test dir}; driver=${3:?driver dir}
work=${4:?work dir}; romio_lib=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
case "$mpi" in
  openmpi | mpich) ;;
  *) echo "run-romio-tests: mpi = '$mpi': expected openmpi or mpich" >&2; exit 2 ;;
esac
rm -rf "$work"
mkdir -p "$work/bin"
# name, ranks, how the file is passed (ROMIO's runtests: -fname F, F, or -h -f F)
programs="simple:4:fname async:4:fname async-multiple:4:fname atomicity:4:fname
coll_test:4:fname excl:4:fname file_info:4:fname i_noncontig:2:fname noncontig:2:fname
noncontig_coll:2:fname noncontig_coll2:4:fname aggregation1:4:agg aggregation2:4:plain
hindexed:4:plain misc:4:fname shared_fp:4:fname ordered_fp:4:fname split_coll:4:fname
psimple:4:fname error:1:fname status:1:fname types_with_zeros:2:plain darray_read:4:plain"
failed=0 passed=0 stock_too=0
# The same program on the stock driver: plain file name (and with Open MPI, romio321 selected).
stock_run() {
  local name=$1 np=$2 style=$3 file="$work/stock-$1.dat" stock_env=() bin=$work/bin/$1
  [ "$mpi" = openmpi ] && stock_env=(OMPI_MCA_io=romio321)
  case "$style" in
    fname) args=(-fname "$file") ;;
    plain) args=("$file") ;;
    agg) args=(-h -f "$file") ;;
  esac
  bash "$here/run-driver-test.sh" "$mpi" "$np" "$work/stock-run-$name" "$driver" \
    "${stock_env[@]}" -- "$bin" "${args[@]}" >"$work/$name.stock.out" 2>&1 &&
    grep -q "No Errors" "$work/$name.stock.out"
}
for entry in $programs; do
  IFS=: read -r name np style <<<"$entry"
  src="$tests/$name.c"
  [ -f "$src" ] || { echo "MISSING $name: $src not in this ROMIO"; failed=$((failed + 1)); continue; }
  # mpich links -lromio after the source, before the wrapper's own -lmpich
  if [ "$mpi" = mpich ]; then
    mpicc.mpich -O1 -w -o "$work/bin/$name" "$src" -L"$romio_lib" -Wl,-rpath,"$romio_lib" -lromio
  else
    # ROMIO 3.2.1's tests still use MPI-1 calls Open MPI 4.1 keeps but no longer declares
    mpicc.openmpi -O1 -w -DOMPI_OMIT_MPI1_COMPAT_DECLS=0 -include "$here/ompi-mpi1-compat.h" \
      -o "$work/bin/$name" "$src"
  fi
  file="prefetch:$work/$name.dat"
  case "$style" in
    fname) args=(-fname "$file") ;;
    plain) args=("$file") ;;
    agg) args=(-h -f "$file") ;;
  esac
  out="$work/$name.out"
  if bash "$here/run-driver-test.sh" "$mpi" "$np" "$work/run-$name" "$driver" -- \
       "$work/bin/$name" "${args[@]}" >"$out" 2>&1 && grep -q "No Errors" "$out"; then
    echo "ok   $name ($np ranks)"
    passed=$((passed + 1))
  elif ! stock_run "$name" "$np" "$style"; then
    echo "SAME-WITHOUT-DRIVER $name ($np ranks): fails on a plain file name too (no ad_prefetch):"
    # (grep -v selects nothing when the stock run printed only blank lines: not an error here)
    sed 's/^/    /' "$work/$name.stock.out" | { grep -v '^    *$' || true; } | tail -3
    stock_too=$((stock_too + 1))
  else
    echo "FAIL $name ($np ranks): passes on a plain file name, fails through ad_prefetch:"
    sed 's/^/    /' "$out" | tail -20
    failed=$((failed + 1))
  fi
done
echo "ROMIO test programs through ad_prefetch ($mpi): $passed passed, $failed failed," \
     "$stock_too failing without the driver too"
[ "$failed" -eq 0 ]
