#!/usr/bin/env bash
# The engine's two buffer kinds against the front ends' page-cache paths (engine-benchmarks.md).
# The engine's two buffer kinds against the front ends' own page-cache paths, on this machine's
# disk and on the latency-bound test bed, in one invocation: pfio-mpibench under Open MPI (RANKS
# ranks, ROUNDS alternated rounds, every workload, page cache evicted before every run, every
# byte checked) with stock ROMIO twice (romio, romio-again: the A/A), pfio (the default: the
# collective layer's and the driver's page-cache paths), pfio-engine (the engine's reorder
# buffer, O_DIRECT) and pfio-engine-cache (the same engine paths with buffer = cache). Then
# docs/engine-benchmarks.md's section "Buffer kinds" from docs/results/buffer-kinds/.
# usage: bash scripts/bench.sh buffer-kinds   (env: SIZE=1G ROUNDS=3 RANKS=4 PROFILE=pfs)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
source scripts/lib/openmpi.sh
source scripts/lib/disk-and-testbed.sh
source scripts/lib/machine-json.sh
size=${SIZE:-1G}; rounds=${ROUNDS:-3}; ranks=${RANKS:-4}; profile=${PROFILE:-pfs}
bin=build/bench/mpi-bench/pfio-mpibench
data=$PWD/build/pfio-mpibench-$size.data
out=docs/results/buffer-kinds
rm -rf "$out"
mkdir -p "$out"
"${pfio_mpirun[@]}" -np 1 "$bin" --file "$data" --size "$size" --prepare
pfio_disk_and_testbed "$out" "$profile" "$data"
cat >"$out/machine.json" <<JSON
{$(pfio_machine_fields "$data"), "file_size": "$size", "rounds": $rounds, "ranks": $ranks,
 "openmpi": "$(dpkg-query -W -f='${Version}' libopenmpi-dev 2>/dev/null)"}
JSON
for target in "${pfio_targets[@]}"; do
  file=$data
  [ "$target" = disk ] || file=$pfio_served
  echo "== $target, Open MPI, $ranks ranks, $rounds round(s)"
  "${pfio_mpirun[@]}" -np "$ranks" "$bin" --file "$file" --size "$size" --rounds "$rounds" \
    --keep --methods romio,pfio,pfio-engine,pfio-engine-cache,romio-again \
    --json "$PWD/$out/runs-$target.jsonl" | tee "$out/$target-np$ranks.log"
done
/usr/bin/python3 scripts/render/render_buffer_kinds.py "$out" docs/engine-benchmarks.md
