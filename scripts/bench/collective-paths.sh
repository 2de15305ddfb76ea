#!/usr/bin/env bash
# The collective layer's two read paths side by side, 2 and 4 ranks (collective.md).
# The collective layer's two read paths side by side (docs/collective.md, "Two ways an
# aggregator reads"): pfio-mpibench under Open MPI with 2 and 4 ranks, stock OMPIO and ROMIO,
# pfio (cache path, the default) and pfio-engine, every workload, ROUNDS alternated rounds, page
# cache evicted before every run, every byte checked; then the table in docs/collective.md.
# usage: bash scripts/bench.sh collective-paths        (env: SIZE=1G ROUNDS=3 RANKS="2 4")
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
size=${SIZE:-1G}; rounds=${ROUNDS:-3}; ranks=${RANKS:-"2 4"}
out=docs/results/collective-paths
rm -rf "$out"
mkdir -p "$out"
here=$PWD
data=$here/build/pfio-mpibench-$size.data
ompi_sys=$(ompi_info --path pkglibdir --parsable | cut -d: -f3)
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
for np in $ranks; do
  echo "== Open MPI, $np ranks"
  OMPI_MCA_mca_base_component_path=$here/build/romio-adio/openmpi/components:$ompi_sys \
    mpirun "${root[@]}" --oversubscribe -np "$np" build/bench/mpi-bench/pfio-mpibench \
    --file "$data" --size "$size" --rounds "$rounds" --keep --methods ompio,romio,pfio,pfio-engine \
    --json "$here/$out/runs.jsonl" | tee "$out/openmpi-np$np.log"
done
/usr/bin/python3 scripts/render/render_collective_paths.py "$out" docs/collective.md
