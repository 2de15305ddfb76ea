#!/usr/bin/env bash
# pfio-h5bench with computation between reads, disk and test bed (benchmarks.md).
# pfio-h5bench on this machine's disk and on the latency-bound test bed (scripts/testbed.sh,
# profile PROFILE), with computation between reads (--compute auto: per H5Dread, sec2's time
# inside H5Dread per selection in the same round): per dataset, pattern and method the rate
# alone, the computation alone, the time to solution with both, the time inside H5Dread and the
# overlap. Every run its own process, the file evicted before it, every value checked. Then
# docs/benchmarks.md's section "HDF5 on the disk and the test bed, with computation" from
# docs/results/h5bench-compute/ (scripts/render/render_h5bench_compute.py).
# usage: bash scripts/bench.sh h5bench-compute  (env: ROWS=4096 ROUNDS=2 PROFILE=pfs
#        DATASETS=c8k,contig PATTERNS=tiles,columns METHODS=sec2,prefetch,prefetch-declared)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
source scripts/lib/h5bench-targets.sh
rows=${ROWS:-4096}; rounds=${ROUNDS:-2}; profile=${PROFILE:-pfs}
datasets=${DATASETS:-c8k,contig}; patterns=${PATTERNS:-tiles,columns}
methods=${METHODS:-sec2,prefetch,prefetch-declared,sec2-again}
out=docs/results/h5bench-compute
rm -rf "$out"
mkdir -p "$out"
pfio_h5bench_targets "$out" "$profile" "$rows" "$rounds" --compute auto --datasets "$datasets" \
  --patterns "$patterns" --methods "$methods"
/usr/bin/python3 scripts/render/render_h5bench_compute.py
