#!/usr/bin/env bash
# What `buffer = auto` is measured from: pfio-bench's workloads on the disk and the test bed.
# What the buffer kind's rule (buffer = auto) is measured from: pfio-bench, the engine's own API
# (pfio_plan_append + pfio_read) on one self-verifying file, on this machine's disk and on the
# latency-bound test bed, in one invocation. Every workload (gather, dense, strided, seq) at
# every block size of BLOCKS, the methods pfio-pipelined (buffer = engine: pfio's reorder buffer
# filled by O_DIRECT reads), pfio-cache (buffer = cache: the page cache advised ahead, pfio_read
# copying out of it) and fadvise (buffered pread with POSIX_FADV_WILLNEED on the next window: a
# reader nobody here wrote the idea of), REPEAT times interleaved and rotated; every run starts
# with the file evicted from the page cache and checks every byte. Then docs/engine-benchmarks.md's
# section "The buffer kind's rule" from docs/results/buffer-rule/.
# usage: bash scripts/bench.sh buffer-rule   (env: SIZE=1G BLOCKS="4K 128K" BUDGET=256M REPEAT=3
#                                           WORKLOADS="gather dense strided seq" PROFILE=pfs)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
source scripts/lib/disk-and-testbed.sh
source scripts/lib/machine-json.sh
size=${SIZE:-1G}; blocks=${BLOCKS:-4K 128K}; budget=${BUDGET:-256M}; repeat=${REPEAT:-3}
workloads=${WORKLOADS:-gather dense strided seq}; profile=${PROFILE:-pfs}
bin=build/bench/pfio-bench
data=$PWD/build/pfio-rule-$size.data
out=docs/results/buffer-rule
rm -rf "$out"
mkdir -p "$out"
# Made (or checked) before the test bed serves it.
"$bin" --workload seq --block 1M --file "$data" --file-size "$size" --methods naive --keep-file \
  --quiet >/dev/null
pfio_disk_and_testbed "$out" "$profile" "$data"
cat >"$out/machine.json" <<JSON
{$(pfio_machine_fields "$data"), "file_size": "$size", "budget": "$budget", "repeat": $repeat}
JSON
for target in "${pfio_targets[@]}"; do
  file=$data
  [ "$target" = disk ] || file=$pfio_served
  for w in $workloads; do
    for b in $blocks; do
      echo "== $target, $w, $b blocks, $repeat repeat(s), $(date -u +%H:%M:%S)"
      "$bin" --workload "$w" --block "$b" --file "$file" --file-size "$size" --budget "$budget" \
        --methods pfio-pipelined,pfio-cache,fadvise --repeat "$repeat" --keep-file --quiet \
        --json "$out/$target-$w-$b.json" | tee "$out/$target-$w-$b.log"
    done
  done
done
/usr/bin/python3 scripts/render/render_buffer_rule.py "$out" docs/engine-benchmarks.md
