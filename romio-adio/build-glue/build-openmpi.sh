#!/usr/bin/env bash
# Builds Open MPI 4.1's io component mca_io_prefetch.so: ROMIO 3.2.1 from Debian's openmpi
# source with ad_prefetch added, and the romio321 glue renamed to "prefetch" (claims only
# prefetch files), compiled against the installed Open MPI headers; exports one symbol.
# usage: build-openmpi.sh SOURCE_CACHE BUILD_DIR PFIO_INCLUDE_DIR PFIO_LIBRARY_DIR INSTALL_LIBDIR
#                         COLLECTIVE_LIBS
#   INSTALL_LIBDIR   where libpfio.so will be installed (a second run path next to the build's)
#   COLLECTIVE_LIBS  the collective layer's static libraries built for Open MPI (';'-separated)
# Idempotent: ROMIO is configured once per build dir; later runs recompile what changed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${1:?source cache}; build=${2:?build dir}; pfio_inc=${3:?pfio include}; pfio_lib=${4:?pfio lib}
rpath=$pfio_lib${5:+:$5}
IFS=';' read -r -a coll_libs <<<"${6:?collective layer libraries}"
mkdir -p "$build"
build=$(cd "$build" && pwd)
ompi_inc=$(mpicc.openmpi --showme:incdirs | awk '{print $1}')   # the directory with mpi.h
ompi_libdir=$(mpicc.openmpi --showme:libdirs | awk '{print $1}')
romio=$(bash "$here/fetch-romio.sh" openmpi "$cache" "$build/src")
glue=$(dirname "$romio")/src
log="$build/romio-build.log"
if [ ! -f "$romio/Makefile" ]; then
  echo "build-openmpi: autoreconf + configure ROMIO 3.2.1 (log: $log)"
  (cd "$romio" && autoreconf -ivf) >"$log" 2>&1 || { tail -30 "$log"; exit 1; }
  # Debian's own ROMIO flags for romio321 (ompi_info: io_romio321_complete_configure_params)
  (cd "$romio" && ./configure FROM_OMPI=yes CC=gcc \
      CFLAGS="-g -O2 -fstack-protector-strong -Wformat -Werror=format-security -fno-strict-aliasing -D__EXTENSIONS__ -fPIC" \
      CPPFLAGS="-Wdate-time -D_FORTIFY_SOURCE=2 -I$ompi_inc -I$pfio_inc" LDFLAGS="-Wl,-z,relro" \
      --enable-shared --disable-static --disable-aio --disable-weak-symbols \
      --disable-f77 --disable-f90) >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
fi
make_log="$build/romio-make.log"
echo "build-openmpi: make ROMIO (log: $make_log)"
make -C "$romio" -j2 >"$make_log" 2>&1 || { grep -B2 -A6 'error' "$make_log" | tail -40; exit 1; }
grep -A3 'ad_prefetch.*warning' "$make_log" || true   # the driver's own warnings, shown
python3 "$here/make-component.py" "$glue" "$build/component"
cflags=(-g -O2 -fPIC -DNDEBUG -DOMPI_BUILDING=1 -I"$ompi_inc/openmpi" -I"$ompi_inc"
        -I"$(dirname "$romio")" -I"$romio/include" -I"$romio/adio/include")
objs=()
for c in "$build"/component/*.c; do
  gcc "${cflags[@]}" -c "$c" -o "${c%.c}.o"
  objs+=("${c%.c}.o")
done
gcc -shared -o "$build/mca_io_prefetch.so" "${objs[@]}" \
    -Wl,--whole-archive "$romio/.libs/libromio_dist.a" -Wl,--no-whole-archive \
    "${coll_libs[@]}" -lstdc++ -L"$pfio_lib" -lpfio -Wl,-rpath,"$rpath" \
    -Wl,--version-script="$here/openmpi-exports.map" -Wl,-z,relro -Wl,--no-undefined \
    -L"$ompi_libdir" -lmpi -lopen-pal -lopen-rte
# Open MPI scans a component directory for mca_*.so: one holding only ours, for the tests
mkdir -p "$build/components"
cp "$build/mca_io_prefetch.so" "$build/components/"
echo "build-openmpi: $build/mca_io_prefetch.so"
