#!/usr/bin/env bash
# The engine alone (pfio-bench, 4 GiB file) and a re-render of benchmarks.md and engine-benchmarks.md.
#   scripts/bench.sh benchmarks            full suite on a 4 GiB file (about 20 minutes here)
#   scripts/bench.sh benchmarks --render   only re-render docs/ from docs/results/*.json
# PFIO_BENCH_DIR picks where the data file lives (default: build/), SIZE the file size.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" != "--render" ]; then
  bash scripts/setup.sh
  bash scripts/build.sh release
  source scripts/lib/hold-page-reporting.sh
  bench=build/bench/pfio-bench
  dir=${PFIO_BENCH_DIR:-build}
  size=${SIZE:-4G}
  data="$dir/pfio-bench-$size.data"
  out=docs/results
  mkdir -p "$out"
  common=(--file "$data" --file-size "$size" --block 4K --keep-file)
  echo "== gather: every method, budget = file/4"
  $bench "${common[@]}" --workload gather --budget 1G --json "$out/gather.json"
  echo "== dense: budget sweep file/16 .. file"
  $bench "${common[@]}" --workload dense --budget 256M,512M,1G,2G,4G \
    --methods naive,raw-qd32,pfio-batch,pfio-pipelined --json "$out/dense-sweep.json"
  echo "== strided: every method, budget = file/4"
  $bench "${common[@]}" --workload strided --budget 1G --json "$out/strided.json"
  echo "== seq: the no-harm check, five interleaved repeats (medians)"
  $bench "${common[@]}" --workload seq --budget 1G --repeat 5 \
    --methods naive,pfio-batch,pfio-pipelined --json "$out/seq.json"
  echo "== infill sweep on gather (pfio-pipelined; raw-qd32 as the yardstick in each run)"
  for infill in 0 8K 16K 32K 128K; do
    $bench "${common[@]}" --workload gather --budget 1G --infill "$infill" \
      --methods raw-qd32,pfio-pipelined --json "$out/infill-$infill.json"
  done
  echo "== emulated striping (issue 3): gather with one target and with stripe=1MiB,targets=4"
  $bench "${common[@]}" --workload gather --budget 1G --repeat 2 \
    --methods raw-qd32,pfio-pipelined --json "$out/layout-one.json"
  $bench "${common[@]}" --workload gather --budget 1G --repeat 2 --layout stripe=1MiB,targets=4 \
    --methods raw-qd32,pfio-pipelined --json "$out/layout-striped.json"
  rm -f "$data"
fi
/usr/bin/python3 scripts/render/render_docs.py docs/results docs
