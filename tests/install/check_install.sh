#!/usr/bin/env bash
# Installs pfio from BUILD_DIR into WORK/prefix, then builds tests/install/consumer.c against it
# twice, with find_package(pfio) and with pkg-config, and runs both on a scratch file.
# Usage: check_install.sh BUILD_DIR WORK SOURCE_DIR
set -euo pipefail
build=$1 work=$2 src=$3
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
libdir=$(dirname "$(find "$work/prefix" -name 'libpfio.so' | head -1)")
test -n "$libdir" || { echo "check_install: libpfio.so not installed under $work/prefix" >&2; exit 1; }
soname=$(readelf -d "$libdir/libpfio.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
echo "installed: $libdir/libpfio.so (soname $soname)"
case "$soname" in libpfio.so.[0-9]*) ;; *) echo "check_install: soname '$soname': expected libpfio.so.MAJOR" >&2; exit 1 ;; esac
# Only the C API is exported.
others=$(nm -D --defined-only "$libdir/libpfio.so" | awk '$2 ~ /[TDBRW]/ && $3 !~ /^pfio_/ {print $3}' | grep -v '^PFIO_' || true)
if [ -n "$others" ]; then echo "check_install: libpfio.so exports non-API symbols: $others" >&2; exit 1; fi

cmake -S "$src" -B "$work/find-package" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure.log"
cmake --build "$work/find-package" >"$work/build.log"
"$work/find-package/consumer" "$work/data-fp"
echo "find_package: ok"

export PKG_CONFIG_PATH="$libdir/pkgconfig"
flags=$(pkg-config --cflags --libs pfio)
echo "pkg-config pfio: $flags (version $(pkg-config --modversion pfio))"
cc -std=c11 -Wall -Wextra -Werror "$src/consumer.c" $flags -Wl,-rpath,"$libdir" -o "$work/pc-consumer"
"$work/pc-consumer" "$work/data-pc"
echo "pkg-config: ok"

# The HDF5 driver from the install, under an unmodified h5py program (Debian's serial HDF5): the
# preload library finds libpfio_hdf5_serial.so.0 beside itself, and the driver's counters prove
# the read went through it.
py=/usr/bin/python3
rm -f "$work/h5stats" "$work/h5stats.hdf5"
"$py" -c "import h5py, numpy as np
with h5py.File('$work/d.h5', 'w') as f: f.create_dataset('x', data=np.arange(65536, dtype='u8'))"
LD_LIBRARY_PATH="$libdir" LD_PRELOAD="$libdir/libpfio_hdf5_preload.so" \
  PFIO_STATS_PATH="$work/h5stats" "$py" -c "import h5py, numpy as np
with h5py.File('$work/d.h5', 'r') as f:
    assert f.driver == 'unknown', f.driver
    assert (f['x'][:] == np.arange(65536)).all()"
grep -q '"raw_reads": [1-9]' "$work/h5stats.hdf5" ||
  { echo "check_install: no raw reads through the installed HDF5 driver ($work/h5stats.hdf5)" >&2; exit 1; }
echo "hdf5 preload: ok"

# The Python package from the install, declaring a plan through the installed driver.
pydir=$(find "$work/prefix" -type d -name pfio -path '*dist-packages*' | head -1)
test -n "$pydir" || { echo "check_install: the Python package pfio is not installed under $work/prefix" >&2; exit 1; }
PYTHONPATH=$(dirname "$pydir") LIBPFIO_DIR="$libdir" LD_LIBRARY_PATH="$libdir" "$py" -c "import numpy as np, pfio.h5
with pfio.h5.open('$work/d.h5') as f:
    pfio.h5.declare(f['x'], [(slice(s, s + 4096),) for s in range(61440, -1, -4096)])
    for s in range(61440, -1, -4096):
        assert (f['x'][s:s + 4096] == np.arange(s, s + 4096)).all()
    assert pfio.h5.stats(f)['declared_extents'] == 16, pfio.h5.stats(f)"
echo "python package: ok"
