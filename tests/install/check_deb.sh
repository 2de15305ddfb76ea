#!/usr/bin/env bash
# Builds pfio's .deb from BUILD_DIR (cpack), checks what it holds and what it depends on, unpacks
# it into a scratch root (dpkg-deb -x: nothing is installed on the machine) and runs programs not
# written for pfio against that root only: an MPI-IO program under Open MPI (the component from
# the package's copy of Open MPI's component directory) and under MPICH (the package's
# libromio.so preloaded), both reading "prefetch:FILE"; an HDF5 C program, h5py and netCDF4 under
# the package's preload library; h5py with the package's Python module; a C program built with
# the package's pkg-config file. Every value read is checked.
# Usage: check_deb.sh BUILD_DIR WORK SOURCE_DIR PLAIN_HDF5_READER
set -euo pipefail
build=$1 work=$2 src=$3 plain_reader=$4
rm -rf "$work"
mkdir -p "$work"
(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log")
deb=$(ls "$work"/out/pfio_*_amd64.deb)
echo "built $(basename "$deb"): $(du -h "$deb" | cut -f1)"
ompi_dir=$(ompi_info --path pkglibdir --parsable | cut -d: -f3)
dpkg-deb -c "$deb" | awk '{print $6}' >"$work/contents"
for f in usr/lib/libpfio.so.0 usr/lib/libpfio_hdf5.so.0 usr/lib/libpfio_hdf5_serial.so.0 \
  usr/lib/libpfio_hdf5_preload.so usr/include/pfio/pfio.h usr/include/pfio/H5FDprefetch.h \
  usr/lib/pkgconfig/pfio.pc usr/lib/cmake/pfio/pfioConfig.cmake "${ompi_dir#/}/mca_io_prefetch.so" \
  usr/lib/pfio/mpich/libromio.so usr/lib/python3/dist-packages/pfio/h5.py usr/bin/pfio-bench; do
  grep -qx "./$f" "$work/contents" || { echo "check_deb: /$f is not in $deb" >&2; exit 1; }
done
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for p in libaio1 liburing2 libhdf5-103-1 libhdf5-openmpi-103-1 libopenmpi3 libmpich12; do
  dpkg-query -W -f='${Status}' "$p" | grep -q 'install ok installed' ||
    { echo "check_deb: $p (in Depends) is not a Debian package installed here" >&2; exit 1; }
  [[ ", $depends" == *", $p"* ]] || { echo "check_deb: Depends lacks $p" >&2; exit 1; }
done

root=$work/root
dpkg-deb -x "$deb" "$root"
lib=$root/usr/lib
export LD_LIBRARY_PATH=$lib # what ldconfig would give after apt install
py=/usr/bin/python3

# MPI-IO, Open MPI: only the package's component directory is added to Open MPI's own.
mpicc.openmpi -O2 -o "$work/plain_mpi_reader" "$src/tests/install/plain_mpi_reader.c"
launch=(mpirun --oversubscribe -np 2)
[ "$(id -u)" -ne 0 ] || launch+=(--allow-run-as-root)
out=$(OMPI_MCA_mca_base_component_path="$root$ompi_dir:$ompi_dir" "${launch[@]}" -x LD_LIBRARY_PATH \
  "$work/plain_mpi_reader" "prefetch:$work/mpi.data" 16)
echo "$out"
grep -q "0 wrong words, prefetch=enable" <<<"$out" || { echo "check_deb: Open MPI run not through pfio" >&2; exit 1; }
# MPI-IO, MPICH: the package's libromio.so preloaded into an unmodified binary.
mpicc.mpich -O2 -o "$work/plain_mpi_reader.mpich" "$src/tests/install/plain_mpi_reader.c"
out=$(mpiexec.mpich -n 2 -genv LD_PRELOAD "$lib/pfio/mpich/libromio.so" -genv LD_LIBRARY_PATH "$lib" \
  "$work/plain_mpi_reader.mpich" "prefetch:$work/mpich.data" 16)
echo "$out"
grep -q "0 wrong words, prefetch=enable" <<<"$out" || { echo "check_deb: MPICH run not through pfio" >&2; exit 1; }

# HDF5 C program, h5py and netCDF4 under the package's preload library.
"$plain_reader" "$work/grid.h5" create 256 512 32 64
LD_PRELOAD=$lib/libpfio_hdf5_preload.so PFIO_STATS_PATH=$work/c "$plain_reader" "$work/grid.h5" tiles
grep -q '"raw_reads": [1-9]' "$work/c.hdf5"
LD_PRELOAD=$lib/libpfio_hdf5_preload.so PFIO_STATS_PATH=$work/h5py "$py" -c "import h5py, numpy as np
with h5py.File('$work/grid.h5', 'r') as f:
    assert f.driver == 'unknown', f.driver
    assert (f['x'][:, 64:128] == np.arange(256 * 512).reshape(256, 512)[:, 64:128]).all()"
grep -q '"raw_reads": [1-9]' "$work/h5py.hdf5"
"$py" -c "import netCDF4, numpy as np
with netCDF4.Dataset('$work/s.nc', 'w') as d:
    d.createDimension('t', 32); d.createDimension('x', 1024)
    d.createVariable('v', 'u8', ('t', 'x'), chunksizes=(1, 1024))[:] = np.arange(32 * 1024).reshape(32, 1024)"
LD_PRELOAD=$lib/libpfio_hdf5_preload.so PFIO_STATS_PATH=$work/nc "$py" -c "import netCDF4, numpy as np
with netCDF4.Dataset('$work/s.nc') as d:
    assert (d['v'][:] == np.arange(32 * 1024).reshape(32, 1024)).all()"
grep -q '"raw_reads": [1-9]' "$work/nc.hdf5"
echo "hdf5 C, h5py, netCDF4 through the package's preload: ok"

# h5py with the package's Python module (declared tiles).
PYTHONPATH=$root/usr/lib/python3/dist-packages "$py" -c "import numpy as np, pfio.h5
assert pfio.__file__.startswith('$root'), pfio.__file__
with pfio.h5.open('$work/grid.h5') as f:
    tiles = [(r, c) for r in range(0, 256, 32) for c in range(0, 512, 64)][::-1]
    pfio.h5.declare(f['x'], [(slice(r, r + 32), slice(c, c + 64)) for r, c in tiles])
    full = np.arange(256 * 512).reshape(256, 512)
    for r, c in tiles:
        assert (f['x'][r:r + 32, c:c + 64] == full[r:r + 32, c:c + 64]).all()
    assert pfio.h5.stats(f)['declared_extents'] == len(tiles)"
echo "python module from the package: ok"

# A C program built against the package's headers and pkg-config file.
flags=$(PKG_CONFIG_PATH=$lib/pkgconfig pkg-config --cflags --libs pfio)
cc -O2 "$src/examples/c_plan.c" $flags -o "$work/c_plan"
"$work/c_plan" "$work/c_plan.data" | grep -q " 0 wrong words"
echo "pkg-config build from the package: ok"
echo "check_deb: ok"
