#!/usr/bin/env bash
# Runs the pfio-sim experiments behind docs/simulations.md and re-renders the docs.
# (Kimbrel's policies in the unit-time model; libprefetch's reorder experiment on one simulated
# disk; Barve's multi-disk bus experiments are not built yet.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
out=docs/results
mkdir -p "$out"
build/examples/pfio-sim kimbrel --workload figure1 --policy all --json "$out/kimbrel-figure1.json"
for disks in 1 2 3 4 6 8 12 16; do
  build/examples/pfio-sim kimbrel --workload synth --disks "$disks" --policy all \
    --json "$out/kimbrel-synth-$disks.json"
done
build/examples/pfio-sim reorder --file-size 256M --block 4K \
  --buffer 384K,1M,2M,4M,8M,18M,32M,64M,128M,256M --json "$out/reorder.json"
/usr/bin/python3 scripts/render_docs.py docs/results docs
