#!/usr/bin/env bash
# Calls of many blocks and the solver loop against stock ROMIO: docs/small-calls.md's two tables.
# Calls of many blocks: 100 per rank per call, ior-hard and random, 4 ranks, collective, page cache
# hot and evicted. The solver loop: 16 blocks per rank per call with a busy loop after each worth
# stock ROMIO's read time per call, 2 ranks (one per core), on the disk and the latency-bound test
# bed. Stock ROMIO beside and again (A/A), every byte checked; then the tables between the
# call-cost-table and solver-loop-table markers from the JSON in docs/results/call-cost/
# (scripts/render/render_call_cost.py).
# usage: bash scripts/bench.sh call-cost   (env: SIZE=1G ROUNDS=3 PROFILE=pfs)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
source scripts/lib/disk-and-testbed.sh
source scripts/lib/openmpi.sh
size=${SIZE:-1G}; rounds=${ROUNDS:-3}; profile=${PROFILE:-pfs}
bin=build/bench/mpi-bench/pfio-mpibench
data=$PWD/build/pfio-mpibench-$size.data
out=docs/results/call-cost
rm -rf "$out"
mkdir -p "$out"
"${pfio_mpirun[@]}" -np 1 "$bin" --file "$data" --size "$size" --prepare
source scripts/lib/machine-json.sh
echo "== calls of many blocks"
for cache in hot cold; do
  "${pfio_mpirun[@]}" -np 4 "$bin" --file "$data" --size "$size" --rounds "$rounds" --keep \
    --workloads ior-hard,random --methods romio,pfio,romio-again --per-call 100 \
    --calls collective --cache "$cache" \
    --json "$PWD/$out/many-$cache.jsonl" | tee "$out/many-$cache.log"
done
pfio_disk_and_testbed "$out" "$profile" "$data"
echo "== the solver loop"
for target in "${pfio_targets[@]}"; do
  file=$data
  [ "$target" = disk ] || file=$pfio_served
  "${pfio_mpirun[@]}" -np 2 "$bin" --file "$file" --size "$size" --rounds "$rounds" --keep \
    --workloads ior-hard --methods romio,pfio,romio-again --per-call 16 --compute auto \
    --json "$PWD/$out/solver-$target.jsonl" | tee "$out/solver-$target.log"
done
cat >"$out/machine.json" <<JSON
{$(pfio_machine_fields "$data"), "file_size": "$size", "rounds": $rounds,
 "openmpi": "$(dpkg-query -W -f='${Version}' libopenmpi-dev 2>/dev/null)",
 "commit": "$(pfio_commit)",
 "date": "$(date -u +%Y-%m-%d)", "page_reporting": "${BENCH_PAGE_REPORTING:-}"}
JSON
/usr/bin/python3 scripts/render/render_call_cost.py "$out" docs/small-calls.md
