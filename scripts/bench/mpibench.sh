#!/usr/bin/env bash
# The mpirun benchmark: pfio-mpibench, Open MPI 1-8 ranks and MPICH 4 (benchmarks.md).
# The mpirun benchmark for docs/: pfio-mpibench under Open MPI with 1, 2, 4 and 8 ranks and
# under MPICH with 4 (every workload and method in each invocation, ROUNDS rounds), fio's
# sequential rate of the same file as the device's yardstick, then docs/benchmarks.md and
# docs/mpibench.png from the JSON in docs/results/mpibench/.
# usage: bash scripts/bench.sh mpibench        (env: SIZE=1G ROUNDS=3 RANKS="1 2 4 8"
#                                             MPICH_RANKS=4 PFIO_BENCH_DIR=build)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
size=${SIZE:-1G}; rounds=${ROUNDS:-3}; ranks=${RANKS:-"1 2 4 8"}; mpich_ranks=${MPICH_RANKS:-4}
dir=${PFIO_BENCH_DIR:-build}
mkdir -p "$dir"
data=$(cd "$dir" && pwd)/pfio-mpibench-$size.data
out=docs/results/mpibench
rm -rf "$out"
mkdir -p "$out"
here=$PWD
ompi_bin=build/bench/mpi-bench/pfio-mpibench
mpich_bin=build/bench/mpi-bench/pfio-mpibench.mpich
ompi_components=$here/build/romio-adio/openmpi/components
romio_lib=$here/build/romio-adio/mpich/install/lib/libromio.so
ompi_sys=$(ompi_info --path pkglibdir --parsable | cut -d: -f3)
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
common=(--file "$data" --size "$size" --rounds "$rounds" --keep --json "$here/$out/runs.jsonl")

cat >"$out/machine.json" <<JSON
{"cpu": "$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)", "cores": $(nproc),
 "mem_gib": $(awk '/MemTotal/ {printf "%.1f", $2/1048576}' /proc/meminfo),
 "kernel": "$(uname -r)", "file_size": "$size", "rounds": $rounds,
 "openmpi": "$(dpkg-query -W -f='${Version}' libopenmpi-dev 2>/dev/null)",
 "mpich": "$(dpkg-query -W -f='${Version}' libmpich-dev 2>/dev/null)",
 "page_reporting": "${BENCH_PAGE_REPORTING:-}"}
JSON
for np in $ranks; do
  echo "== Open MPI, $np ranks"
  OMPI_MCA_mca_base_component_path=$ompi_components:$ompi_sys \
    mpirun "${root[@]}" --oversubscribe -np "$np" "$ompi_bin" "${common[@]}" |
    tee "$out/openmpi-np$np.log"
done
if [ -x "$mpich_bin" ] && [ -f "$romio_lib" ]; then
  for np in $mpich_ranks; do
    echo "== MPICH, $np ranks"
    mpiexec.mpich -n "$np" -genv LD_PRELOAD "$romio_lib" "$mpich_bin" "${common[@]}" |
      tee "$out/mpich-np$np.log"
  done
fi
# Independent reads (MPI_File_read through the same views), every workload.
indep=(--calls independent --methods ompio,romio,pfio,pfio-engine)
echo "== Open MPI, 4 ranks, independent calls"
OMPI_MCA_mca_base_component_path=$ompi_components:$ompi_sys \
  mpirun "${root[@]}" --oversubscribe -np 4 "$ompi_bin" "${common[@]}" "${indep[@]}" |
  tee "$out/openmpi-np4-independent.log"
if [ -x "$mpich_bin" ] && [ -f "$romio_lib" ]; then
  echo "== MPICH, 4 ranks, independent calls"
  mpiexec.mpich -n 4 -genv LD_PRELOAD "$romio_lib" "$mpich_bin" "${common[@]}" "${indep[@]}" |
    tee "$out/mpich-np4-independent.log"
fi
# The device's sequential rate of the same file, from a tool nobody here wrote.
bash scripts/bench/fio-seq.sh "$data" "$out"
/usr/bin/python3 scripts/render/render_docs.py docs/results docs
