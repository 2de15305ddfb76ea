#!/usr/bin/env bash
# The HDF5 driver's own page-cache path against the engine's page-cache kind (disk, test bed).
# What moving the HDF5 driver's default path onto the engine's page-cache buffer kind would do
# today: pfio-h5bench on this machine's disk and on the latency-bound test bed (profile PROFILE),
# the driver's own page-cache path (`prefetch`, `prefetch-declared`: engine_min = never, its
# advice given by its pfio context's advice thread) against the same reads with engine_min = 0
# and buffer = cache (`prefetch-cache-kind`, `declared-cache-kind`: every planned byte through the engine in
# its page-cache kind), sec2 as the yardstick, in one invocation per target (methods alternating
# per round, every run its own process, the file evicted before it, every value checked). Then
# docs/engine-benchmarks.md's section "HDF5 through the engine's page-cache kind" from
# docs/results/h5-cache-kind/ (scripts/render/render_h5_cache_kind.py).
# usage: bash scripts/bench.sh h5-cache-kind  (env: ROWS=4096 ROUNDS=3 INVOCATIONS=2 PROFILE=pfs
#        DATASETS=c8k,c128k,contig PATTERNS=tiles,columns,rows)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
source scripts/lib/h5bench-targets.sh
rows=${ROWS:-4096}; rounds=${ROUNDS:-3}; profile=${PROFILE:-pfs}
datasets=${DATASETS:-c8k,c128k,contig}; patterns=${PATTERNS:-tiles,columns,rows}
methods=sec2,prefetch,prefetch-declared,prefetch-cache-kind,declared-cache-kind
source scripts/lib/machine-json.sh
commit=$(pfio_commit) # before any result
out=docs/results/h5-cache-kind
rm -rf "$out"
mkdir -p "$out"
pfio_machine_extra="\"commit\": \"$commit\""
export INVOCATIONS=${INVOCATIONS:-2}
pfio_h5bench_targets "$out" "$profile" "$rows" "$rounds" --datasets "$datasets" \
  --patterns "$patterns" --methods "$methods"
/usr/bin/python3 scripts/render/render_h5_cache_kind.py
