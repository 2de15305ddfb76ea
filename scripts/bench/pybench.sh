#!/usr/bin/env bash
# Python readers (h5py, xarray) through sec2, the preload and declared plans (python.md).
# Python readers (h5py tiles, column strips, a block, compressed strips; xarray time slices and a
# point's series) of one netCDF-4 file (pybench.py --make) through Debian's HDF5 alone (sec2),
# through pfio with no code change (the preload library), and through pfio with a declared plan
# (pfio.h5.declare), with sec2 again as the A/A;
# on this machine's disk and on the latency-bound test bed; page cache dropped before every run,
# every value checked (bench/python/pybench.py). Then docs/benchmarks.md's section "Python
# readers" and docs/pybench.png from docs/results/pybench/.
# usage: bash scripts/bench.sh pybench   (env: ROUNDS=4 PROFILE=pfs; a multiple of 4 rounds puts every
# method after every other equally often)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/hold-page-reporting.sh
source scripts/lib/disk-and-testbed.sh
source scripts/lib/machine-json.sh
rounds=${ROUNDS:-4}; profile=${PROFILE:-pfs}
data=$PWD/build/pybench.nc
out=docs/results/pybench
rm -rf "$out"
mkdir -p "$out"
export PYTHONPATH=$PWD/python LIBPFIO_DIR=$PWD/build/hdf5-vfd
bench=(/usr/bin/python3 bench/python/pybench.py --preload "$PWD/build/hdf5-vfd/libpfio_hdf5_preload.so"
  --rounds "$rounds" --json "$PWD/$out/runs.jsonl")
/usr/bin/python3 bench/python/pybench.py --file "$data" --make # made when missing or incomplete
pfio_disk_and_testbed "$out" "$profile" "$data"
cat >"$out/machine.json" <<JSON
{$(pfio_machine_fields "$data"), "file_size": $(stat -c %s "$data"), "rounds": $rounds,
 "hdf5": "$(dpkg-query -W -f='${Version}' libhdf5-103-1)",
 "h5py": "$(dpkg-query -W -f='${Version}' python3-h5py)",
 "xarray": "$(dpkg-query -W -f='${Version}' python3-xarray)", "profile": "$profile"}
JSON
for target in "${pfio_targets[@]}"; do
  if [ "$target" = disk ]; then
    "${bench[@]}" --file "$data" --target disk | tee -a "$out/pybench.log"
  else
    server=()
    for pid in $(bash scripts/testbed.sh pids); do server+=(--server-pid "$pid"); done
    "${bench[@]}" --file "$pfio_served" --evict-too "$data" --target "$target" "${server[@]}" |
      tee -a "$out/pybench.log"
  fi
done
/usr/bin/python3 scripts/render/render_pybench.py "$out" docs
