#!/usr/bin/env bash
# The out-of-core run: a file larger than RAM read by every method (engine-benchmarks.md).
# The out-of-core run: a self-verifying file larger than this machine's RAM, so no method can
# keep it in the page cache, read with every method that matters (naive, fadvise, raw-qd32,
# pfio-pipelined) in one invocation. The file is made once and kept (PFIO_BENCH_DIR, default
# build/); SIZE defaults to RAM + 8 GiB rounded up to whole GiB; WORKLOADS to "gather".
# Writes docs/results/out-of-core-<workload>.json and re-renders docs/engine-benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
mem_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
size=${SIZE:-$(( (mem_kib / 1048576) + 9 ))G}
dir=${PFIO_BENCH_DIR:-build}
data="$dir/pfio-out-of-core-$size.data"
free_kib=$(df -k --output=avail "$dir" | tail -1)
need_kib=$(( ${size%G} * 1048576 ))
if [ ! -e "$data" ] && [ "$free_kib" -lt "$need_kib" ]; then
  echo "run-out-of-core: $dir has $((free_kib / 1048576)) GiB free; the $size file needs more" >&2
  exit 1
fi
echo "== out-of-core: $size file (MemTotal $((mem_kib / 1048576)) GiB) in $data"
for workload in ${WORKLOADS:-gather}; do
  build/bench/pfio-bench --workload "$workload" --file "$data" --file-size "$size" \
    --budget 4G --methods naive,fadvise,raw-qd32,pfio-pipelined --keep-file \
    --json "docs/results/out-of-core-$workload.json"
done
/usr/bin/python3 scripts/render/render_docs.py docs/results docs
