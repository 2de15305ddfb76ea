#!/usr/bin/env bash
# The benchmarks' disk by fio: random and sequential reads at several depths (limits.md's table).
# The device under the benchmarks, measured by fio (a tool nobody here wrote): random reads of
# 4, 16 and 64 KiB at several depths and sequential reads of 1 and 4 MiB, libaio, O_DIRECT, on a
# SIZE file on the benchmarks' disk, then docs/limits.md's "The device" table and its cost model
# (time per request at depth 32 = a + bytes x b, fitted to the random rows) from the JSON in
# docs/results/device/ (scripts/render/render_device.py).
# usage: bash scripts/bench.sh device   (env: SIZE=4G SECONDS_EACH=5; PFIO_BENCH_DIR for the file)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
source scripts/lib/hold-page-reporting.sh
size=${SIZE:-4G}
each=${SECONDS_EACH:-5}
dir=${PFIO_BENCH_DIR:-build}
mkdir -p "$dir"
data="$dir/pfio-device-$size.data"
out=docs/results/device
rm -rf "$out"
mkdir -p "$out"
# pattern block depth: the rows of the table, in its order
jobs=("randread 4k 1" "randread 4k 32" "randread 4k 64" "randread 4k 128" "randread 4k 256"
  "randread 16k 32" "randread 64k 32" "read 1m 8" "read 1m 16" "read 4m 16")
echo "== laying out $data ($size) once"
fio --name=layout --filename="$data" --rw=write --bs=4m --size="$size" --direct=1 \
  --ioengine=libaio --iodepth=8 --output=/dev/null --create_only=0 >/dev/null
for job in "${jobs[@]}"; do
  read -r rw bs depth <<<"$job"
  name="$rw-$bs-qd$depth"
  sync
  echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
  fio --name="$name" --filename="$data" --rw="$rw" --bs="$bs" --iodepth="$depth" --direct=1 \
    --ioengine=libaio --norandommap --randrepeat=0 --size="$size" --time_based \
    --runtime="$each" --output-format=json --output="$out/$name.json" >/dev/null
  /usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1]))['jobs'][0]['read']; \
print(f\"{sys.argv[2]:<20} {j['bw_bytes']/1048576:8.1f} MiB/s {j['iops']:10.0f} IOPS\")" \
    "$out/$name.json" "$name"
done
source scripts/lib/machine-json.sh
cat >"$out/machine.json" <<JSON
{$(pfio_machine_fields "$data"), "file_size": "$size", "seconds_each": $each,
 "fio": "$(fio --version)", "date": "$(date -u +%Y-%m-%d)",
 "page_reporting": "${BENCH_PAGE_REPORTING:-}"}
JSON
rm -f "$data"
/usr/bin/python3 scripts/render/render_device.py "$out" docs/limits.md
