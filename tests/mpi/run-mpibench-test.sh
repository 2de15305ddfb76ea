#!/usr/bin/env bash
# pfio-mpibench as a user runs it: --help, a small run of every workload and method under
# mpirun/mpiexec (every byte is verified by the benchmark itself; a wrong byte aborts it), and
# its refusal to overwrite a file it did not make.
# usage: run-mpibench-test.sh openmpi|mpich BENCH DRIVER_DIR WORKDIR
set -euo pipefail
mpi=${1:?openmpi or mpich}; bench=${2:?pfio-mpibench binary}; driver=${3:?driver dir}
work=${4:?work dir}
here=$(cd "$(dirname "$0")" && pwd)
run() { bash "$here/run-driver-test.sh" "$mpi" "$@"; }
preload=()
[ "$mpi" = mpich ] && preload=(LD_PRELOAD="$driver/libromio.so")
rm -rf "$work"
mkdir -p "$work"

trap 'echo "FAIL: run-mpibench-test.sh line $LINENO exited with status $?"' ERR
run 1 "$work/help" "$driver" -- "$bench" --help >"$work/help.out" 2>&1 ||
  { cat "$work/help.out"; echo "FAIL: --help exited with an error"; exit 1; }
grep -q "usage: mpirun -np N pfio-mpibench" "$work/help.out" ||
  { cat "$work/help.out"; echo "FAIL: --help does not print the usage"; exit 1; }

echo "precious" >"$work/foreign.data"
if run 2 "$work/foreign" "$driver" -- "$bench" --file "$work/foreign.data" --size 64M \
     >"$work/foreign.out" 2>&1; then
  echo "FAIL: pfio-mpibench ran over a file it did not make"; exit 1
fi
grep -q "not overwriting it" "$work/foreign.out" || { cat "$work/foreign.out"; exit 1; }
[ "$(cat "$work/foreign.data")" = precious ] || { echo "FAIL: the foreign file changed"; exit 1; }

run 2 "$work/run" "$driver" "${preload[@]}" -- "$bench" --file "$work/bench.data" --size 64M \
  --rounds 1 --json "$work/runs.jsonl" >"$work/run.out" 2>&1 || { cat "$work/run.out"; exit 1; }
cat "$work/run.out"
for w in ior-hard random btio tiles restart; do
  grep -q "\"workload\": \"$w\", \"method\": \"pfio\"" "$work/runs.jsonl" ||
    { echo "FAIL: no pfio run of $w in the JSON"; exit 1; }
done
[ ! -e "$work/bench.data" ] || { echo "FAIL: the file the benchmark made is left behind"; exit 1; }
echo "ok pfio-mpibench ($mpi)"
