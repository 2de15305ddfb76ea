#!/usr/bin/env bash
# pfio-mpibench on the disk and the latency-bound test bed side by side (benchmarks.md).
# pfio-mpibench on this machine's disk and on the latency-bound test bed (scripts/testbed.sh) side
# by side, in one invocation of this script: the same 1 GiB self-verifying file (made on the disk,
# served read-only by the test bed), every workload and method, with computation between reads
# (--compute auto: per call, stock ROMIO's read time per call), then docs/benchmarks.md's
# test-bed section from the JSON in docs/results/testbed/. fio's rates of the test bed (QD1 and
# QD32 4 KiB random, QD1 and QD16 1 MiB sequential) are measured at start-up and recorded beside
# the results. The test bed is torn down on exit, also on failure or Ctrl-C. Where this machine
# cannot host it (no FUSE), the script says so and measures the disk alone.
# usage: bash scripts/bench.sh mpibench-testbed   (env: SIZE=1G ROUNDS=3 RANKS=4 MORE_RANKS="1 2 8"
#                                       PROFILE=pfs COMPUTE=auto)
# RANKS run ROUNDS rounds with the computation; MORE_RANKS one round each without it. Extra
# arguments go to every pfio-mpibench run (e.g. --workloads tiles,random).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
source scripts/lib/disk-and-testbed.sh
source scripts/lib/openmpi.sh
size=${SIZE:-1G}; rounds=${ROUNDS:-3}; ranks=${RANKS:-4}; more=${MORE_RANKS-"1 2 8"}
profile=${PROFILE:-pfs}; compute=${COMPUTE:-auto}
bin=build/bench/mpi-bench/pfio-mpibench
data=$PWD/build/pfio-mpibench-$size.data
out=docs/results/testbed
rm -rf "$out"
mkdir -p "$out"
"${pfio_mpirun[@]}" -np 1 "$bin" --file "$data" --size "$size" --prepare
pfio_disk_and_testbed "$out" "$profile" "$data"
targets=("${pfio_targets[@]}")
served=$pfio_served
cat >"$out/machine.json" <<JSON
{"cpu": "$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)", "cores": $(nproc),
 "mem_gib": $(awk '/MemTotal/ {printf "%.1f", $2/1048576}' /proc/meminfo),
 "kernel": "$(uname -r)", "file_size": "$size", "rounds": $rounds, "compute": "$compute",
 "compute_all_ranks": true,
 "disk": "$(df --output=source "$data" | tail -1) $(df --output=fstype "$data" | tail -1)",
 "openmpi": "$(dpkg-query -W -f='${Version}' libopenmpi-dev 2>/dev/null)",
 "nbdkit": "$(dpkg-query -W -f='${Version}' nbdkit 2>/dev/null)",
 "nbdfuse": "$(dpkg-query -W -f='${Version}' libnbd-bin 2>/dev/null)",
 "page_reporting": "${BENCH_PAGE_REPORTING:-}"}
JSON
run() { # target ranks rounds extra-args...
  local target=$1 np=$2 r=$3 file=$data
  shift 3
  [ "$target" = disk ] || file=$served
  echo "== $target, Open MPI, $np ranks, $r round(s) $*"
  "${pfio_mpirun[@]}" -np "$np" "$bin" --file "$file" --size "$size" --rounds "$r" --keep \
    --json "$PWD/$out/runs-$target.jsonl" "$@" | tee "$out/$target-np$np.log"
}
for np in $ranks; do
  for target in "${targets[@]}"; do run "$target" "$np" "$rounds" --compute "$compute" "$@"; done
done
for np in $more; do
  for target in "${targets[@]}"; do
    run "$target" "$np" 1 --methods ompio,romio,pfio,pfio-engine,romio-again,seq "$@"
  done
done
/usr/bin/python3 scripts/render/render_docs.py docs/results docs
