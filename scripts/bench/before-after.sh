#!/usr/bin/env bash
# A change against the commit before it: pfio-mpibench's default paths, alternated (disk, test bed).
# A change's effect on what users run, measured as Engine 3's steps must be: the default paths of
# the commit before (REV, built in build-before/ from a git worktree) and of this tree, in
# alternated invocations of pfio-mpibench under Open MPI (RANKS ranks, ROUNDS rounds each, every
# workload, methods romio,pfio,romio-again: the A/A), on this machine's disk and on the
# latency-bound test bed; page cache evicted before every run, every byte checked. The runs and a
# report (tables of before, after and the A/A: report.md) go to build/before-after/: the numbers
# of a change belong in its commit message, the current results in docs/benchmarks.md.
# CALLS=independent reads with MPI_File_read instead of MPI_File_read_all (same views; results in
# build/before-after-independent/).
# With LABEL=NAME (a word naming the change) the results go to build/before-after-NAME/
# (build/before-after-independent-NAME/).
# usage: bash scripts/bench.sh before-after REV   (env: SIZE=1G ROUNDS=3 RANKS=4 PAIRS=2
#        PROFILE=pfs TESTBED_PAIRS=1 CALLS=collective LABEL=)
set -euo pipefail
cd "$(dirname "$0")/../.."
rev=${1:?usage: bench.sh before-after REV (the commit before the change)}
source scripts/lib/build-before.sh
pfio_check_label "bench.sh before-after"
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
source scripts/lib/openmpi.sh
source scripts/lib/disk-and-testbed.sh
source scripts/lib/machine-json.sh
size=${SIZE:-1G}; rounds=${ROUNDS:-3}; ranks=${RANKS:-4}; pairs=${PAIRS:-2}
testbed_pairs=${TESTBED_PAIRS:-1}; profile=${PROFILE:-pfs}; calls=${CALLS:-collective}
case $calls in collective | independent) ;;
*) echo "bench.sh before-after: CALLS = $calls: expected collective or independent" >&2; exit 2 ;;
esac
pfio_build_before "$rev"
stock=$(ompi_info --path pkglibdir --parsable | cut -d: -f3)
out=build/before-after
[ "$calls" = collective ] || out=build/before-after-$calls
out=$out${LABEL:+-$LABEL}
rm -rf "$out"
mkdir -p "$out"
data=$PWD/build/pfio-mpibench-$size.data
"${pfio_mpirun[@]}" -np 1 build/bench/mpi-bench/pfio-mpibench --file "$data" --size "$size" \
  --prepare
pfio_disk_and_testbed "$out" "$profile" "$data"
cat >"$out/machine.json" <<JSON
{$(pfio_machine_fields "$data"), "file_size": "$size", "rounds": $rounds, "ranks": $ranks,
 "before": "$before_sha", "after": "$after_sha", "calls": "$calls", "label": "${LABEL:-}"}
JSON
# One invocation of pfio-mpibench on one side (pfio_alternate_sides's RUN).
run_side() {
  local target=$1 file=$2 side=$3 tree=$4 bin
  bin=$tree/bench/mpi-bench/pfio-mpibench
  [ -x "$bin" ] || bin=$tree/examples/mpi-bench/pfio-mpibench # a commit before bench/ moved
  OMPI_MCA_mca_base_component_path=$PWD/$tree/romio-adio/openmpi/components:$stock \
    "${pfio_mpirun[@]}" -np "$ranks" "$bin" --file "$file" \
    --size "$size" --rounds "$rounds" --keep --methods romio,pfio,romio-again --calls "$calls" \
    --json "$PWD/$out/runs-$target-$side.jsonl" | tee -a "$out/$target-$side.log"
}
pfio_alternate_sides "$pairs" "$testbed_pairs" "$data" run_side
: >"$out/report.md"
/usr/bin/python3 scripts/render/render_before_after.py "$out" "$out/report.md"
echo "bench.sh before-after: report in $out/report.md"
