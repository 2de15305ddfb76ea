#!/usr/bin/env bash
# A change against the commit before it, for HDF5: pfio-h5bench's default paths, alternated.
# A change's effect on what HDF5 users run: pfio-h5bench's default paths (`prefetch`, and
# `prefetch-declared` with H5FD_prefetch_declare) of the commit before (REV, built in
# build-before/ from a git worktree) and of this tree, in alternated invocations (PAIRS pairs on
# this machine's disk, TESTBED_PAIRS on the latency-bound test bed of PROFILE), each with sec2
# beside them: sec2 is the same code on both sides, so its after/before is the A/A, how far apart
# the machine puts identical runs. Every run its own process, the file evicted before it, every
# value checked. The runs and a report (scripts/render/render_h5_before_after.py: report.md) go to
# build/h5-before-after/, build/h5-before-after-NAME/ with LABEL=NAME (a word naming the change):
# the numbers of a change belong in its commit message, the current results in docs/benchmarks.md.
# With AGAIN=1 each pair is a triple: before, after, and the commit before once more (side
# again), whose again/before is the A/A of the pfio paths themselves (theirs is wider than sec2's
# on this machine: 0.84-1.16 in a 2-pair run where sec2's was 0.91-1.05).
# With BENCH=after every side runs this tree's pfio-h5bench, the commit before's sides with that
# commit's libpfio_hdf5 and libpfio (LD_LIBRARY_PATH over the program's RUNPATH): what an HDF5
# user sees when only the library changes, and an A/A (sec2) untouched by changes to the
# benchmark program between the commits. Its counters are then read through the newer header
# and mean nothing on those sides; the rates (all the tables use) are the runs' own.
# usage: bash scripts/bench.sh h5-before-after REV  (env: ROWS=4096 ROUNDS=3 PAIRS=2
#        TESTBED_PAIRS=1 PROFILE=pfs DATASETS=c8k,c128k,c1m,contig
#        PATTERNS=tiles,columns,rows,random-points LABEL= AGAIN= BENCH=)
set -euo pipefail
cd "$(dirname "$0")/../.."
rev=${1:?usage: bench.sh h5-before-after REV (the commit before the change)}
sides="before after"
case ${BENCH:-} in
  after | "") ;;
  *) echo "bench.sh h5-before-after: BENCH = $BENCH: expected after (this tree's pfio-h5bench on every side) or nothing" >&2; exit 2 ;;
esac
case ${AGAIN:-0} in
  1) sides="before after again" ;;
  0) ;;
  *) echo "bench.sh h5-before-after: AGAIN = $AGAIN: expected 1 (an A/A side) or 0" >&2; exit 2 ;;
esac
source scripts/lib/build-before.sh
pfio_check_label "bench.sh h5-before-after"
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
source scripts/lib/h5bench-targets.sh
rows=${ROWS:-4096}; rounds=${ROUNDS:-3}; pairs=${PAIRS:-2}; testbed_pairs=${TESTBED_PAIRS:-1}
profile=${PROFILE:-pfs}
datasets=${DATASETS:-c8k,c128k,c1m,contig}; patterns=${PATTERNS:-tiles,columns,rows,random-points}
pfio_build_before "$rev"
out=build/h5-before-after${LABEL:+-$LABEL}
rm -rf "$out"
mkdir -p "$out"
data=$PWD/build/pfio-h5bench-$rows.h5
# Made (or checked) on the disk first: the test bed serves it read-only.
build/bench/pfio-h5bench --file "$data" --rows "$rows" --datasets c8k --patterns rows \
  --methods sec2-cached --quiet >/dev/null
pfio_disk_and_testbed "$out" "$profile" "$data"
# One invocation of pfio-h5bench on one side (pfio_alternate_sides's RUN); its runs are added to
# the side's runs-TARGET-SIDE.jsonl (pfio-h5bench --json writes its file anew: each pair's
# invocation replaced the last one's runs before 2026-11-28 06:45, so the tables rendered up to
# then counted only the last pair).
run_side() {
  local target=$1 file=$2 side=$3 tree=$4 bin libs=
  bin=$tree/bench/pfio-h5bench
  [ -x "$bin" ] || bin=$tree/examples/pfio-h5bench # a commit before bench/ moved
  if [ "${BENCH:-}" = after ]; then
    bin=build/bench/pfio-h5bench
    [ "$tree" = build ] || libs=$PWD/$tree/hdf5-vfd:$PWD/$tree/src
  fi
  LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$bin" --file "$file" --rows "$rows" --rounds "$rounds" \
    --datasets "$datasets" --patterns "$patterns" --methods sec2,prefetch,prefetch-declared \
    --json "$PWD/$out/invocation.jsonl" | tee -a "$out/$target-$side.log"
  cat "$out/invocation.jsonl" >>"$out/runs-$target-$side.jsonl"
  rm -f "$out/invocation.jsonl"
}
pfio_alternate_sides "$pairs" "$testbed_pairs" "$data" run_side "$sides"
bash scripts/testbed.sh down
pfio_machine_extra="\"before\": \"$before_sha\", \"after\": \"$after_sha\", \"pairs\": $pairs, \"again\": ${AGAIN:-0},
 \"bench\": \"${BENCH:-own}\", \"testbed_pairs\": $testbed_pairs, \"datasets\": \"$datasets\", \"patterns\": \"$patterns\""
pfio_h5bench_machine "$out" "$rows" "$rounds" "$profile"
: >"$out/report.md"
/usr/bin/python3 scripts/render/render_h5_before_after.py "$out" "$out/report.md"
echo "bench.sh h5-before-after: report in $out/report.md"
