#!/usr/bin/env bash
# The benchmark's device yardstick (raw-qd32) checked against fio on the same file.
# Checks the benchmark's device yardstick against fio, a tool nobody here wrote: raw-qd32
# (libaio, O_DIRECT, depth 32, 4 KiB uniform random blocks of the gather workload, every byte
# checked) and fio (libaio, O_DIRECT, depth 32, 4 KiB uniform random reads, repeats allowed) on
# the same file, alternated RUNS times, because this shared VM's disk moves by 20 % between runs.
# Writes docs/results/yardstick/*.json and re-renders docs/engine-benchmarks.md.
#   scripts/bench.sh yardstick            (RUNS=5, SIZE=1G; PFIO_BENCH_DIR for the data file)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
runs=${RUNS:-5}
size=${SIZE:-1G}
dir=${PFIO_BENCH_DIR:-build}
data="$dir/pfio-yardstick-$size.data"
out=docs/results/yardstick
mkdir -p "$out"
rm -f "$out"/*.json
bench=build/bench/pfio-bench
for i in $(seq 1 "$runs"); do
  echo "== run $i of $runs: raw-qd32"
  $bench --workload gather --file "$data" --file-size "$size" --keep-file --quiet \
    --methods raw-qd32 --json "$out/raw-qd32-$i.json" | tail -1
  echo "== run $i of $runs: fio"
  sync
  echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
  fio --name=randread --filename="$data" --rw=randread --bs=4k --iodepth=32 --direct=1 \
    --ioengine=libaio --norandommap --randrepeat=0 --size="$size" --io_size="$size" \
    --numjobs=1 --output-format=json --output="$out/fio-$i.json" >/dev/null
  /usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1]))['jobs'][0]['read']; \
print(f\"fio: {j['bw_bytes']/1048576:.1f} MiB/s, {j['iops']:.0f} IOPS\")" "$out/fio-$i.json"
done
rm -f "$data"
/usr/bin/python3 scripts/render/render_docs.py docs/results docs
