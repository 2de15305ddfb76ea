#!/usr/bin/env bash
# Many small files, each opened, read in IOR's calls and closed, against stock ROMIO.
# Many small files, each opened, read in IOR's calls (one 47,008-byte block per rank per call at
# explicit offsets) and closed, through stock ROMIO and pfio's driver, A/A beside: what pfio costs
# per file where files are small. 256 files of 4 MiB (made once beside the benchmark file and
# kept), the page cache hot and the disk (evicted before every run), 4 and 2 ranks, collective and
# independent, Open MPI; then docs/small-calls.md's "Many small files" table from the JSON in
# docs/results/small-files/.
# usage: bash scripts/bench.sh small-files   (env: SIZE=1G ROUNDS=3 RANKS="4 2" SMALL=4M)
# Every file holds the pattern of its place in one self-verifying file; every byte is checked.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
source scripts/lib/openmpi.sh
size=${SIZE:-1G}; rounds=${ROUNDS:-3}; ranks=${RANKS:-"4 2"}; small=${SMALL:-4M}
bin=build/bench/mpi-bench/pfio-mpibench
data=$PWD/build/pfio-mpibench-$size.data
out=docs/results/small-files
rm -rf "$out"
mkdir -p "$out"
"${pfio_mpirun[@]}" -np 1 "$bin" --file "$data" --size "$size" --prepare
source scripts/lib/machine-json.sh
cat >"$out/machine.json" <<JSON
{$(pfio_machine_fields "$data"), "file_size": "$size", "small_file": "$small", "rounds": $rounds,
 "openmpi": "$(dpkg-query -W -f='${Version}' libopenmpi-dev 2>/dev/null)",
 "commit": "$(pfio_commit)",
 "date": "$(date -u +%Y-%m-%d)", "page_reporting": "${BENCH_PAGE_REPORTING:-}"}
JSON
for np in $ranks; do
  for calls in collective independent; do
    for where in hot disk; do
      cache=cold
      [ "$where" = hot ] && cache=hot
      echo "== $where, $np ranks, $calls calls"
      "${pfio_mpirun[@]}" -np "$np" "$bin" --file "$data" --size "$size" --rounds "$rounds" --keep \
        --workloads small-files --small-file "$small" --methods romio,pfio,romio-again \
        --per-call 1 --access offsets --cache "$cache" --calls "$calls" \
        --json "$PWD/$out/runs-$where-openmpi.jsonl" | tee "$out/$where-np$np-$calls.log"
    done
  done
done
/usr/bin/python3 scripts/render/render_ior_shapes.py docs/results docs small-files
