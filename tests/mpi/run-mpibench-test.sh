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

# Computation between reads: a compute-only run and every method again with the computation,
# the overlap table printed; a bad --compute named.
run 2 "$work/compute" "$driver" "${preload[@]}" -- "$bench" --file "$work/bench.data" --size 64M \
  --rounds 1 --workloads ior-hard --methods romio,pfio --compute 2 --json "$work/compute.jsonl" \
  >"$work/compute.out" 2>&1 || { cat "$work/compute.out"; exit 1; }
grep -q '"method": "compute-only".*"compute_ms": 2.000' "$work/compute.jsonl" ||
  { cat "$work/compute.jsonl"; echo "FAIL: no compute-only run"; exit 1; }
for m in romio pfio; do
  grep -q "\"method\": \"$m\".*\"compute_ms\": 2.000" "$work/compute.jsonl" ||
    { echo "FAIL: no $m run with the computation"; exit 1; }
  grep -q "\"method\": \"$m\".*\"compute_ms\": 0.000" "$work/compute.jsonl" ||
    { echo "FAIL: no $m run without the computation"; exit 1; }
done
grep -q "^ior-hard  pfio .*x$" "$work/compute.out" ||
  { cat "$work/compute.out"; echo "FAIL: no overlap table"; exit 1; }
run 2 "$work/declared" "$driver" "${preload[@]}" -- "$bench" --file "$work/bench.data" \
  --size 64M --rounds 1 --workloads random,btio --methods pfio-declared \
  --json "$work/declared.jsonl" >"$work/declared.out" 2>&1 || { cat "$work/declared.out"; exit 1; }
for w in random btio; do
  grep -q "\"workload\": \"$w\", \"method\": \"pfio-declared\"" "$work/declared.jsonl" ||
    { cat "$work/declared.out"; echo "FAIL: no pfio-declared run of $w"; exit 1; }
done
if grep -q "skipped" "$work/declared.out"; then
  cat "$work/declared.out"; echo "FAIL: pfio-declared was skipped"; exit 1
fi
if run 1 "$work/badcompute" "$driver" -- "$bench" --compute 2x >"$work/badcompute.out" 2>&1; then
  echo "FAIL: --compute 2x was accepted"; exit 1
fi
grep -q -- "--compute: expected milliseconds per call" "$work/badcompute.out" ||
  { cat "$work/badcompute.out"; echo "FAIL: --compute 2x not named"; exit 1; }
# The field's shapes: one block of 64 KiB per rank per call (IOR's ior-hard), collective and
# independent, every byte verified; the shape in the JSON; bad values named.
# With --access offsets each call reads its block at an explicit offset (IOR's default), else
# through a view set before the call.
for access in view offsets; do
  for calls in collective independent; do
    one="$work/one-$calls-$access"
    run 2 "$one" "$driver" "${preload[@]}" -- "$bench" --file "$work/bench.data" \
      --size 64M --rounds 1 --workloads ior-hard,random --methods romio,pfio --calls "$calls" \
      --per-call 1 --block 64K --access "$access" --json "$one.jsonl" >"$one.out" 2>&1 ||
      { cat "$one.out"; exit 1; }
    for w in ior-hard random; do
      grep -q "\"workload\": \"$w\", \"method\": \"pfio\".*\"calls\": \"$calls\", \"block\": 65536, \"per_call\": 1, \"cache\": \"cold\", \"verified\": true" \
        "$one.jsonl" || { cat "$one.jsonl"; echo "FAIL: no $w run of one 64 KiB block per call ($calls, $access)"; exit 1; }
      # the driver's stepping aside, from its job summary: how many of how many went to ROMIO,
      # and how many collective calls it read alone (-1 for independent reads)
      grep -Eq "\"workload\": \"$w\", \"method\": \"pfio\".*\"to_romio\": [0-9]+, \"judged\": [1-9][0-9]*, \"alone\": -?[0-9]+, \"access\": \"$access\"" \
        "$one.jsonl" || { cat "$one.jsonl"; echo "FAIL: no stepping-aside count or access in the $w pfio run ($calls, $access)"; exit 1; }
    done
  done
done
if run 1 "$work/badaccess" "$driver" -- "$bench" --access offsets --per-call 4 --workloads ior-hard \
  >"$work/badaccess.out" 2>&1; then
  echo "FAIL: --access offsets with 4 blocks per call was accepted"; exit 1
fi
grep -q -- "--access offsets: a call reads one extent at its offset; expected --per-call 1, got 4" \
  "$work/badaccess.out" || { cat "$work/badaccess.out"; echo "FAIL: --access offsets --per-call 4 not named"; exit 1; }
# The per-open cost: every call in an open of its own, every byte verified.
run 2 "$work/opens" "$driver" "${preload[@]}" -- "$bench" --file "$work/bench.data" --size 64M \
  --rounds 1 --workloads opens --methods romio,pfio --per-call 1 --json "$work/opens.jsonl" \
  >"$work/opens.out" 2>&1 || { cat "$work/opens.out"; exit 1; }
[ "$(grep -c '"workload": "opens", "method": "\(romio\|pfio\)".*"verified": true' "$work/opens.jsonl")" -eq 2 ] ||
  { cat "$work/opens.jsonl"; echo "FAIL: not 2 verified runs of opens"; exit 1; }
for bad in "--per-call 0" "--per-call 2x" "--block 12" "--block 1G" "--cache warm" "--access at"; do
  # shellcheck disable=SC2086
  if run 1 "$work/badshape" "$driver" -- "$bench" $bad >"$work/badshape.out" 2>&1; then
    echo "FAIL: $bad was accepted"; exit 1
  fi
  grep -q -- "${bad%% *}: expected" "$work/badshape.out" ||
    { cat "$work/badshape.out"; echo "FAIL: $bad not named"; exit 1; }
done
echo "ok pfio-mpibench ($mpi)"
