#!/usr/bin/env bash
# pfio-h5bench on this machine's disk and on the latency-bound test bed (scripts/testbed.sh,
# profile PROFILE), with computation between reads (--compute auto: per H5Dread, sec2's time
# inside H5Dread per selection in the same round): per dataset, pattern and method the rate
# alone, the computation alone, the time to solution with both, the time inside H5Dread and the
# overlap. Every run its own process, the file evicted before it, every value checked. Then
# docs/benchmarks.md's section "HDF5 on the disk and the test bed, with computation" from
# docs/results/h5bench-compute/ (scripts/render_h5bench_compute.py).
# usage: bash scripts/run-h5bench-compute.sh  (env: ROWS=4096 ROUNDS=2 PROFILE=pfs
#        DATASETS=c8k,contig PATTERNS=tiles,columns METHODS=sec2,prefetch,prefetch-declared)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
source scripts/lib/disk-and-testbed.sh
rows=${ROWS:-4096}; rounds=${ROUNDS:-2}; profile=${PROFILE:-pfs}
datasets=${DATASETS:-c8k,contig}; patterns=${PATTERNS:-tiles,columns}
methods=${METHODS:-sec2,prefetch,prefetch-declared}
data=$PWD/build/pfio-h5bench-$rows.h5
out=docs/results/h5bench-compute
rm -rf "$out"
mkdir -p "$out"
# Made (or checked) on the disk first: the test bed serves it read-only.
build/bench/pfio-h5bench --file "$data" --rows "$rows" --datasets c8k --patterns rows \
  --methods sec2-cached --quiet >/dev/null
pfio_disk_and_testbed "$out" "$profile" "$data"
for target in "${pfio_targets[@]}"; do
  file=$data
  [ "$target" = disk ] || file=$pfio_served
  echo "== $target: pfio-h5bench --compute auto, $rounds round(s)"
  build/bench/pfio-h5bench --file "$file" --rows "$rows" --rounds "$rounds" --compute auto \
    --datasets "$datasets" --patterns "$patterns" --methods "$methods" \
    --json "$PWD/$out/runs-$target.jsonl" | tee "$out/$target.log"
done
bash scripts/testbed.sh down
hdf5=$(dpkg-query -W -f='${Version}' libhdf5-openmpi-dev 2>/dev/null)
cat >"$out/machine.json" <<JSON
{"cpu": "$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)", "cores": $(nproc),
 "kernel": "$(uname -r)", "rows": $rows, "rounds": $rounds, "hdf5": "$hdf5",
 "profile": "$profile", "date": "$(date -u +%Y-%m-%d)"}
JSON
/usr/bin/python3 scripts/render_h5bench_compute.py
