#!/usr/bin/env bash
# The main job: installs what is needed, builds, and runs pfio-mpibench under Open MPI's mpirun
# on its embedded default, twice: on this machine's disk and on the latency-bound test bed
# (scripts/testbed.sh, profile pfs: 2 ms per read request, 64 in flight), a few minutes in all.
# 4 ranks, a generated 1 GiB self-verifying file (kept in build/ for the next run), every
# workload (ior-hard, random, btio, tiles, restart) with stock OMPIO, stock ROMIO, pfio's driver
# (with and without look-ahead across calls, and with its aggregators on pfio's engine), and stock
# ROMIO once more (the run-to-run spread between two identical methods); on the disk also the
# device's sequential rate and the computation-overlap table (a busy loop between reads worth
# stock ROMIO's read time per call). Where FUSE is not available the test bed part says so and is
# skipped. Extra arguments go to every pfio-mpibench run (see --help), e.g.
#   bash scripts/run-main.sh --rounds 3 --workloads tiles,random
# NP=8 sets the rank count. The engine's single-rank benchmark is build/bench/pfio-bench.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh  # as the benchmark scripts do; put back on exit
source scripts/lib/on-exit.sh
source scripts/lib/openmpi.sh
np=${NP:-4}
bin=build/bench/mpi-bench/pfio-mpibench
data=$PWD/build/pfio-mpibench.data
rm -f build/pfio-mpibench.json
"${pfio_mpirun[@]}" -np "$np" "$bin" --file "$data" --size 1G --prepare
echo
echo "== 1 of 2: this machine's disk"
"${pfio_mpirun[@]}" -np "$np" "$bin" --file "$data" --size 1G --rounds 1 --keep --compute auto \
  --json "$PWD/build/pfio-mpibench.json" "$@"
echo
echo "== 2 of 2: the latency-bound test bed (profile pfs), the same file"
pfio_on_exit 'bash scripts/testbed.sh down'
status=0
served=$(bash scripts/testbed.sh up pfs "$data") || status=$?
if [ "$status" -eq 3 ]; then
  echo "run-main: the test bed cannot run on this machine (see above): the disk's results only"
  exit 0
fi
[ "$status" -eq 0 ] || exit "$status"
bash scripts/testbed.sh check
"${pfio_mpirun[@]}" -np "$np" "$bin" --file "$served" --size 1G --rounds 1 --keep \
  --methods ompio,romio,pfio,pfio-engine,romio-again,seq \
  --json "$PWD/build/pfio-mpibench-testbed.json" "$@"
