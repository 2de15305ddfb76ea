#!/usr/bin/env bash
# What one H5Dread of one chunk costs with and without the preload, page cache hot.
# What one H5Dread of one chunk costs with and without the preload (no code change), page cache
# hot: pfio-h5callcost over pfio-h5bench's file (8 KiB, 128 KiB and 1 MiB chunks), the two methods
# alternating, every value checked. Then docs/hdf5-driver.md's section "What a call of one chunk
# costs" from the JSON in docs/results/h5-call-cost/.
# usage: bash scripts/bench.sh h5-call-cost   (env: ROUNDS=5)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/machine-json.sh
rounds=${ROUNDS:-5}
data=$PWD/build/pfio-h5bench-8192.h5
out=docs/results/h5-call-cost
preload=$PWD/build/hdf5-vfd/libpfio_hdf5_preload.so
rm -rf "$out"
mkdir -p "$out"
if [ ! -f "$data" ]; then # made once and kept by pfio-h5bench (one short run of sec2)
  build/bench/pfio-h5bench --file "$data" --rows 8192 --datasets c8k --patterns random-points \
    --methods sec2 --rounds 1 --points 16 --quiet
fi
cat >"$out/machine.json" <<JSON
{$(pfio_machine_fields "$data"), "rounds": $rounds, "commit": "$(pfio_commit)",
 "hdf5": "$(dpkg-query -W -f='${Version}' libhdf5-103-1)"}
JSON
for r in $(seq 1 "$rounds"); do
  for ds in c8k:20000 c128k:4000 c1m:1000; do
    name=${ds%%:*}; calls=${ds##*:}
    order=(sec2 preload)
    [ $((r % 2)) -eq 0 ] && order=(preload sec2)
    for method in "${order[@]}"; do
      if [ "$method" = sec2 ]; then
        line=$(build/bench/pfio-h5callcost "$data" "$name" "$calls")
      else
        line=$(LD_PRELOAD=$preload build/bench/pfio-h5callcost "$data" "$name" "$calls")
      fi
      echo "round $r $method $line"
      echo "{\"round\": $r, \"method\": \"$method\", ${line#\{}" >>"$out/runs.jsonl"
    done
  done
done
/usr/bin/python3 scripts/render/render_h5_call_cost.py "$out" docs/hdf5-driver.md
