#!/usr/bin/env bash
# The device's sequential rate of a benchmark's file by fio (used by the other scripts).
# The device's sequential read rate of a benchmark's own file, from a tool nobody here wrote:
# fio, O_DIRECT, 1 MiB reads at depth 16, three times with the page cache dropped before each,
# into OUT/fio-seq-{1,2,3}.json; the device and file system are added to OUT/machine.json.
# usage: bash scripts/bench/fio-seq.sh FILE OUT        (used by bench.sh mpibench and bench.sh h5bench)
set -euo pipefail
data=$1; out=$2
dev=$(df --output=source "$data" | tail -1); fs=$(df --output=fstype "$data" | tail -1)
sed -i "s|\"rounds\"|\"device\": \"$dev\", \"fs\": \"$fs\", \"rounds\"|" "$out/machine.json"
for i in 1 2 3; do
  sync
  echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
  fio --name=seqread --filename="$data" --rw=read --bs=1M --iodepth=16 --direct=1 \
    --ioengine=libaio --output-format=json --output="$out/fio-seq-$i.json" >/dev/null
done
