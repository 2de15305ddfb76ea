#!/usr/bin/env bash
# Computation between reads with one rank, disk and test bed: how much reading pfio hides.
# Computation between reads with one rank, on this machine's disk and on the 2 ms test bed
# (scripts/testbed.sh): one rank computes on one core, so the other is free for the I/O path;
# the question is how much of the reading pfio hides behind the computation. The rank runs
# with --bind-to none: Open MPI binds a single rank to core 0, and pfio's threads (advice,
# completion) inherit the binding, so bound they take their time from the computation's core.
# The test bed's server runs on the last core only (TESTBED_CPUS): a storage target on other
# machines would not take the computation's CPU (unpinned, the busy loop ran 1.1-1.6x as long
# beside pfio's reads on the test bed, 2026-11-27).
# pfio-mpibench --compute auto (per call, stock ROMIO's read time per call) for ior-hard, btio,
# tiles and random with ROMIO, pfio (page cache), pfio-declared (every call declared after the
# open) and pfio-engine, every byte verified and every run cache-
# evicted, then docs/engine-benchmarks.md's section "Computation between reads, one rank" from the JSON
# in docs/results/compute-1rank/ (scripts/render/render_compute.py).
# usage: bash scripts/bench.sh compute-1rank   (env: SIZE=1G ROUNDS=2 PROFILE=pfs)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
source scripts/lib/on-exit.sh
source scripts/lib/openmpi.sh
size=${SIZE:-1G}; rounds=${ROUNDS:-2}; profile=${PROFILE:-pfs}
bin=build/bench/mpi-bench/pfio-mpibench
data=$PWD/build/pfio-mpibench-$size.data
out=docs/results/compute-1rank
rm -rf "$out"
mkdir -p "$out"
"${pfio_mpirun[@]}" -np 1 "$bin" --file "$data" --size "$size" --prepare
pfio_on_exit 'bash scripts/testbed.sh down'
run() { # target file
  echo "== $1, Open MPI, 1 rank, $rounds round(s), --compute auto"
  "${pfio_mpirun[@]}" --bind-to none -np 1 "$bin" --file "$2" --size "$size" --rounds "$rounds" \
    --keep --compute auto --workloads ior-hard,btio,tiles,random \
    --methods romio,pfio,pfio-declared,pfio-engine \
    --json "$PWD/$out/runs-$1.jsonl" | tee "$out/$1-np1.log"
}
run disk "$data"
status=0
served=$(TESTBED_CPUS=$(($(nproc) - 1)) bash scripts/testbed.sh up "$profile" "$data") || status=$?
if [ "$status" -eq 0 ]; then
  bash scripts/testbed.sh check | tee "$out/fio-$profile.txt"
  run "$profile" "$served"
  bash scripts/testbed.sh down
elif [ "$status" -eq 3 ]; then
  echo "run-compute-1rank: the test bed cannot run on this machine (see above): the disk alone"
else
  exit "$status"
fi
cat >"$out/machine.json" <<JSON
{"cpu": "$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)", "cores": $(nproc),
 "file_size": "$size", "rounds": $rounds, "profile": "$profile",
 "date": "$(date -u +%Y-%m-%d)"}
JSON
/usr/bin/python3 scripts/render/render_compute.py
