#!/usr/bin/env bash
# The HDF5 benchmark: pfio-h5bench, every dataset, pattern and method (hdf5-driver.md, benchmarks.md).
# The HDF5 benchmark for docs/: pfio-h5bench (every dataset, pattern and method in one
# invocation, ROUNDS rounds, methods alternating) on one file of four 512 MiB datasets, the cost
# of finding chunk addresses, and fio's sequential rate of the same file as the device's
# yardstick; then docs/benchmarks.md and docs/h5bench.png from docs/results/h5bench/.
# usage: bash scripts/bench.sh h5bench        (env: ROWS=8192 ROUNDS=3 PFIO_BENCH_DIR=build)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
source scripts/lib/machine-json.sh
rows=${ROWS:-8192}; rounds=${ROUNDS:-3}
dir=${PFIO_BENCH_DIR:-build}
mkdir -p "$dir"
data=$(cd "$dir" && pwd)/pfio-h5bench-$rows.h5
out=docs/results/h5bench
rm -rf "$out"
mkdir -p "$out"
hdf5=$(dpkg-query -W -f='${Version}' libhdf5-openmpi-dev 2>/dev/null)
cat >"$out/machine.json" <<JSON
{"cpu": "$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)", "cores": $(nproc),
 "mem_gib": $(awk '/MemTotal/ {printf "%.1f", $2/1048576}' /proc/meminfo),
 "kernel": "$(uname -r)", "rows": $rows, "rounds": $rounds, "hdf5": "$hdf5",
 "commit": "$(pfio_commit)",
 "date": "$(date -u +%Y-%m-%d)"}
JSON
build/bench/pfio-h5bench --file "$data" --rows "$rows" --rounds "$rounds" --lookup \
  --json "$out/runs.jsonl" | tee "$out/h5bench.log"
# The device's sequential rate of the same file, from a tool nobody here wrote.
bash scripts/bench/fio-seq.sh "$data" "$out"
# And its rate for random 8 KiB reads (the chunk size of the random-tiles pattern), at depth 32
# and 128: what reading exactly the declared chunks can reach at most.
for depth in 32 128; do
  sync
  echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
  fio --name=rand8k --filename="$data" --rw=randread --bs=8k --iodepth=$depth --direct=1 \
    --ioengine=libaio --norandommap --randrepeat=0 --io_size=512M --output-format=json \
    --output="$out/fio-rand8k-qd$depth.json" >/dev/null
done
/usr/bin/python3 scripts/render/render_docs.py docs/results docs
