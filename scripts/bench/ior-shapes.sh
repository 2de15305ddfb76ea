#!/usr/bin/env bash
# IOR's one block per rank per call through stock ROMIO and pfio, hot, disk, test bed, MPICH.
# IOR's call shapes (ior-hard: one 47,008-byte block per rank per call at explicit offsets, no view
# per call, as IOR without -V reads) through stock ROMIO and pfio's driver, A/A beside: the page
# cache hot (the calls' own cost), the disk and the latency-bound test bed (evicted before every
# run), 4 and 2 ranks, collective and independent, Open MPI, and MPICH with the page cache hot;
# then docs/small-calls.md's "IOR's calls" table from the JSON in docs/results/ior-shapes/.
# usage: bash scripts/bench.sh ior-shapes   (env: SIZE=1G ROUNDS=3 RANKS="4 2" PROFILE=pfs)
# Every invocation reads the same self-verifying file and checks every byte.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
source scripts/lib/disk-and-testbed.sh
source scripts/lib/openmpi.sh
size=${SIZE:-1G}; rounds=${ROUNDS:-3}; ranks=${RANKS:-"4 2"}; profile=${PROFILE:-pfs}
bin=build/bench/mpi-bench/pfio-mpibench
mpich_bin=build/bench/mpi-bench/pfio-mpibench.mpich
romio_lib=$PWD/build/romio-adio/mpich/install/lib/libromio.so
data=$PWD/build/pfio-mpibench-$size.data
out=docs/results/ior-shapes
rm -rf "$out"
mkdir -p "$out"
"${pfio_mpirun[@]}" -np 1 "$bin" --file "$data" --size "$size" --prepare
pfio_disk_and_testbed "$out" "$profile" "$data"
source scripts/lib/machine-json.sh
cat >"$out/machine.json" <<JSON
{$(pfio_machine_fields "$data"), "file_size": "$size", "rounds": $rounds,
 "openmpi": "$(dpkg-query -W -f='${Version}' libopenmpi-dev 2>/dev/null)",
 "mpich": "$(dpkg-query -W -f='${Version}' libmpich-dev 2>/dev/null)",
 "commit": "$(pfio_commit)",
 "date": "$(date -u +%Y-%m-%d)", "page_reporting": "${BENCH_PAGE_REPORTING:-}"}
JSON
shape=(--size "$size" --rounds "$rounds" --keep --workloads ior-hard
  --methods romio,pfio,romio-again --per-call 1 --access offsets)
run() { # where (hot, disk or the profile) mpi (openmpi, mpich) ranks calls
  local where=$1 mpi=$2 np=$3 calls=$4 file=$data cache=cold
  [ "$where" = hot ] && cache=hot
  [ "$where" = disk ] || [ "$where" = hot ] || file=$pfio_served
  echo "== $where, $mpi, $np ranks, $calls calls"
  local args=(--file "$file" "${shape[@]}" --cache "$cache" --calls "$calls"
    --json "$PWD/$out/runs-$where-$mpi.jsonl")
  if [ "$mpi" = openmpi ]; then
    "${pfio_mpirun[@]}" -np "$np" "$bin" "${args[@]}"
  else
    mpiexec.mpich -n "$np" -genv LD_PRELOAD "$romio_lib" "$mpich_bin" "${args[@]}"
  fi | tee "$out/$where-$mpi-np$np-$calls.log"
}
for np in $ranks; do
  for calls in collective independent; do
    for where in hot "${pfio_targets[@]}"; do run "$where" openmpi "$np" "$calls"; done
    if [ -x "$mpich_bin" ] && [ -f "$romio_lib" ]; then run hot mpich "$np" "$calls"; fi
  done
done
/usr/bin/python3 scripts/render/render_ior_shapes.py docs/results docs ior-shapes
