#!/usr/bin/env bash
# The latency-bound test bed (scripts/testbed.sh) as the benchmarks use it: up on a 64 MiB
# self-verifying file made by pfio-mpibench --prepare; fio's check prints its rates; the served
# file holds the same bytes; eviction empties its page cache (fincore); pfio-mpibench reads it
# with stock ROMIO, pfio's driver and pfio's engine path (every byte verified by the benchmark,
# a wrong one aborts it); a bad profile and a missing file are refused by name; down unmounts
# and stops the servers, and a second down is harmless. buffer = auto (the API's default) gives
# the disk's file the page-cache kind and the test bed's copy (FUSE: remote) the reorder buffer,
# and the HDF5 driver takes the same rule for a program's declared reads: those of an HDF5 file on
# the disk are read by the driver from the page cache, those of its test-bed copy by pfio into the
# reorder buffer; with nothing declared, the driver's own plans are the page cache's on both.
# usage: run-testbed-test.sh BENCH DRIVER_DIR WORKDIR KIND_OF (tests/buffer_kind_of) H5BENCH
set -euo pipefail
bench=${1:?pfio-mpibench binary}; driver=${2:?driver dir}; work=${3:?work dir}
kind_of=${4:?buffer_kind_of binary}; h5bench=${5:?pfio-h5bench binary}
here=$(cd "$(dirname "$0")" && pwd)
testbed=$here/../../scripts/testbed.sh
run() { bash "$here/run-driver-test.sh" openmpi "$@"; }
export TESTBED_DIR=$work/testbed TESTBED_FIO_SECONDS=1
rm -rf "$work"
mkdir -p "$work"
trap 'bash "$testbed" down >/dev/null 2>&1 || true' EXIT
trap 'echo "FAIL: run-testbed-test.sh line $LINENO exited with status $?"' ERR

run 1 "$work/prepare" "$driver" -- "$bench" --file "$work/data" --size 64M --prepare
served=$(bash "$testbed" up pfs "$work/data")
[ "$served" = "$work/testbed/mnt/data" ] || { echo "FAIL: served at '$served'"; exit 1; }
bash "$testbed" status | grep -q "up, profile pfs (2 ms, 64 in flight)"
bash "$testbed" check | tee "$work/check.out"
grep -q "4 KiB random QD1 [0-9]* IOPS" "$work/check.out"
cmp "$work/data" "$served" || { echo "FAIL: the served file differs from the disk's"; exit 1; }
kinds=$("$kind_of" "$work/data" "$served" | tr '\n' ' ')
[ "$kinds" = "cache engine " ] ||
  { echo "FAIL: buffer = auto chose '$kinds' for the disk's file and the test bed's, expected cache engine"; exit 1; }
resident() { fincore --bytes --noheadings --output RES "$1" | tr -d ' '; }
[ "$(resident "$served")" -gt 0 ] || { echo "FAIL: nothing cached after reading it"; exit 1; }
/usr/bin/python3 -c "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" "$served"
[ "$(resident "$served")" -eq 0 ] || { echo "FAIL: DONTNEED left $(resident "$served") bytes cached"; exit 1; }

run 4 "$work/bench" "$driver" -- "$bench" --file "$served" --size 64M --rounds 1 \
  --workloads tiles,random --methods romio,pfio,pfio-engine >"$work/bench.out" 2>&1 ||
  { cat "$work/bench.out"; exit 1; }
cat "$work/bench.out"
# a pfio run's line may end with how many calls its driver gave to ROMIO's path (and how many it
# read alone)
[ "$(grep -cE "MiB  verified($|  ROMIO's path: [0-9]+ of [0-9]+ calls(, read alone: [0-9]+)?$)" "$work/bench.out")" -eq 6 ] ||
  { echo "FAIL: not 6 verified runs"; exit 1; }

# The HDF5 driver's declared reads: which kind did each file get? Its counters say (advised_reads:
# raw reads the driver read itself from the page cache).
h5_kind() { # FILE [DATASET PATTERN]
  rm -f "$work/h5stats.json" "$work/h5stats.json.hdf5"
  PFIO_STATS=$work/h5stats.json "$h5bench" --file "$1" --rows 1024 --datasets "${2:-contig}" \
    --patterns "${3:-tiles}" --methods prefetch-declared --quiet >"$work/h5bench.out" 2>&1 ||
    { cat "$work/h5bench.out"; exit 1; }
  /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
raw, advised = d["raw_reads"], d["advised_reads"]
print("cache" if raw > 0 and advised == raw else "engine" if raw > 0 and advised == 0 else
      "raw %d advised %d" % (raw, advised))' "$work/h5stats.json.hdf5"
}
"$h5bench" --file "$work/h5.h5" --rows 1024 --datasets contig --patterns rows --methods sec2 \
  --quiet >/dev/null
h5served=$(bash "$testbed" up pfs "$work/h5.h5")
h5kinds="$(h5_kind "$work/h5.h5") $(h5_kind "$h5served")"
[ "$h5kinds" = "cache engine" ] ||
  { echo "FAIL: the HDF5 driver's declared reads took '$h5kinds' on the disk's file and the test bed's, expected cache engine"; exit 1; }
# A chunked dataset's open reads its index, whose nodes the driver advises: that must not choose
# the kind before the program declares.
h5kinds="$(h5_kind "$h5served" c8k columns)"
[ "$h5kinds" = "engine" ] ||
  { echo "FAIL: the HDF5 driver's declared reads of chunks took '$h5kinds' on the test bed, expected engine"; exit 1; }
# Nothing declared: the driver's own per-call plans hold the test bed's copy in the page cache
# too, so that columns of 8 KiB chunks are planned (the reorder buffer leaves calls of such small
# pieces unplanned), and every raw read they make is the driver's own from the page cache.
rm -f "$work/h5stats.json" "$work/h5stats.json.hdf5"
PFIO_STATS=$work/h5stats.json "$h5bench" --file "$h5served" --rows 1024 --datasets c8k \
  --patterns columns --methods prefetch --quiet >"$work/h5bench.out" 2>&1 ||
  { cat "$work/h5bench.out"; exit 1; }
undeclared=$(/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("calls planned %d unplanned %d, raw reads %d advised %d" % (d["call_plans"],
      d["calls_unplanned"], d["raw_reads"], d["advised_reads"]))' "$work/h5stats.json.hdf5")
echo "undeclared c8k columns on the test bed: $undeclared"
[[ "$undeclared" =~ ^calls\ planned\ ([0-9]+)\ unplanned\ 0,\ raw\ reads\ ([0-9]+)\ advised\ ([0-9]+)$ ]] &&
  [ "${BASH_REMATCH[1]}" -gt 1 ] && [ "${BASH_REMATCH[2]}" = "${BASH_REMATCH[3]}" ] ||
  { echo "FAIL: expected every call planned and every raw read from the page cache"; exit 1; }

if bash "$testbed" up nosuch "$work/data" 2>"$work/bad.err"; then echo "FAIL: profile nosuch taken"; exit 1; fi
grep -q "unknown profile 'nosuch' (expected pfs, far or near)" "$work/bad.err"
if bash "$testbed" up pfs "$work/missing" 2>"$work/missing.err"; then echo "FAIL: a missing file served"; exit 1; fi
grep -q "FILE '$work/missing' is not a regular file" "$work/missing.err"

bash "$testbed" up far "$work/data" >/dev/null
bash "$testbed" status | grep -q "profile far (5 ms"
bash "$testbed" down
! mountpoint -q "$work/testbed/mnt" || { echo "FAIL: still mounted after down"; exit 1; }
! bash "$testbed" status >/dev/null || { echo "FAIL: status says up after down"; exit 1; }
[ ! -e "$work/testbed/nbdkit.pid" ] || { echo "FAIL: nbdkit's pid file left"; exit 1; }
bash "$testbed" down
echo "ok test bed"
