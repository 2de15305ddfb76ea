#!/usr/bin/env bash
# The main job: installs what is needed, builds, and runs pfio-mpibench under Open MPI's mpirun
# on its embedded default: 4 ranks, a generated 1 GiB self-verifying file (kept in build/ for the
# next run), every workload (ior-hard, random, btio, tiles, restart) with stock OMPIO, stock
# ROMIO, pfio's driver with and without look-ahead across calls and with its aggregators on
# pfio's engine, stock ROMIO once more (the run-to-run spread between two identical methods), and
# the device's sequential rate; one round, under a minute here. Extra arguments go to pfio-mpibench (see --help), e.g.
#   bash scripts/run-main.sh --rounds 3 --size 4G
# NP=8 sets the rank count. The engine's single-rank benchmark is build/examples/pfio-bench.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh  # as the benchmark scripts do; put back on exit
components=$PWD/build/romio-adio/openmpi/components
export OMPI_MCA_mca_base_component_path=$components:$(ompi_info --path pkglibdir --parsable | cut -d: -f3)
launch=(mpirun --oversubscribe -np "${NP:-4}")
[ "$(id -u)" -eq 0 ] && launch+=(--allow-run-as-root)
rm -f build/pfio-mpibench.json
"${launch[@]}" build/examples/mpi-bench/pfio-mpibench --file build/pfio-mpibench.data \
  --size 1G --rounds 1 --keep --json "$PWD/build/pfio-mpibench.json" "$@"
