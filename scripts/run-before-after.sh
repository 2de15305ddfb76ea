#!/usr/bin/env bash
# A change's effect on what users run, measured as Engine 3's steps must be: the default paths of
# the commit before (REV, built in build-before/ from a git worktree) and of this tree, in
# alternated invocations of pfio-mpibench under Open MPI (RANKS ranks, ROUNDS rounds each, every
# workload, methods romio,pfio,romio-again: the A/A), on this machine's disk and on the
# latency-bound test bed; page cache evicted before every run, every byte checked. Then
# docs/benchmarks.md's section "Before and after" from docs/results/before-after/.
# CALLS=independent reads with MPI_File_read instead of MPI_File_read_all (same views; results in
# docs/results/before-after-independent/ and their own section).
# usage: bash scripts/run-before-after.sh REV   (env: SIZE=1G ROUNDS=3 RANKS=4 PAIRS=2
#        PROFILE=pfs TESTBED_PAIRS=1 CALLS=collective)
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: run-before-after.sh REV (the commit before the change)}
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
source scripts/lib/openmpi.sh
source scripts/lib/disk-and-testbed.sh
source scripts/lib/machine-json.sh
size=${SIZE:-1G}; rounds=${ROUNDS:-3}; ranks=${RANKS:-4}; pairs=${PAIRS:-2}
testbed_pairs=${TESTBED_PAIRS:-1}; profile=${PROFILE:-pfs}; calls=${CALLS:-collective}
case $calls in collective | independent) ;;
*) echo "run-before-after.sh: CALLS = $calls: expected collective or independent" >&2; exit 2 ;;
esac
before_sha=$(git rev-parse --short "$rev")
after_sha=$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo "+changes")
# The commit before, built apart (its own worktree and build tree, no tests; kept, and reused
# while it is at the same commit).
if [ "$(git -C build-before/src rev-parse HEAD 2>/dev/null)" != "$(git rev-parse "$rev")" ]; then
  rm -rf build-before
  git worktree prune
  git worktree add -f build-before/src "$rev" --detach >/dev/null
fi
cmake -S build-before/src -B build-before/build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPFIO_BUILD_TESTS=OFF >/dev/null
cmake --build build-before/build -j2 >/dev/null
stock=$(ompi_info --path pkglibdir --parsable | cut -d: -f3)
out=docs/results/before-after
[ "$calls" = collective ] || out=docs/results/before-after-$calls
rm -rf "$out"
mkdir -p "$out"
data=$PWD/build/pfio-mpibench-$size.data
"${pfio_mpirun[@]}" -np 1 build/bench/mpi-bench/pfio-mpibench --file "$data" --size "$size" \
  --prepare
pfio_disk_and_testbed "$out" "$profile" "$data"
cat >"$out/machine.json" <<JSON
{$(pfio_machine_fields "$data"), "file_size": "$size", "rounds": $rounds, "ranks": $ranks,
 "before": "$before_sha", "after": "$after_sha", "calls": "$calls"}
JSON
for target in "${pfio_targets[@]}"; do
  file=$data
  n=$pairs
  [ "$target" = disk ] || { file=$pfio_served; n=$testbed_pairs; }
  for ((i = 1; i <= n; ++i)); do
    for side in before after; do
      tree=build
      [ "$side" = after ] || tree=build-before/build
      bin=$tree/bench/mpi-bench/pfio-mpibench
      [ -x "$bin" ] || bin=$tree/examples/mpi-bench/pfio-mpibench # a commit before bench/ moved
      echo "== $target, $side ($([ "$side" = after ] && echo "$after_sha" || echo "$before_sha")), pair $i of $n"
      OMPI_MCA_mca_base_component_path=$PWD/$tree/romio-adio/openmpi/components:$stock \
        "${pfio_mpirun[@]}" -np "$ranks" "$bin" --file "$file" \
        --size "$size" --rounds "$rounds" --keep --methods romio,pfio,romio-again --calls "$calls" \
        --json "$PWD/$out/runs-$target-$side.jsonl" | tee -a "$out/$target-$side.log"
    done
  done
done
/usr/bin/python3 scripts/render_before_after.py "$out" docs/benchmarks.md
