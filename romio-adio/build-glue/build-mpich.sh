#!/usr/bin/env bash
# Builds MPICH 4.0's standalone libromio.so: ROMIO from Debian's mpich source with ad_prefetch
# added, configured against the installed libmpich; it overrides MPI_File_* when linked before
# -lmpich or LD_PRELOADed, and exports only the MPI-IO symbols.
# usage: build-mpich.sh SOURCE_CACHE BUILD_DIR PFIO_INCLUDE_DIR PFIO_LIBRARY_DIR INSTALL_LIBDIR
#                       COLLECTIVE_LIBS
#   INSTALL_LIBDIR   where libpfio.so will be installed (a second run path next to the build's)
#   COLLECTIVE_LIBS  the collective layer's static libraries built for MPICH (';'-separated)
# Idempotent: ROMIO is configured once per build dir; later runs recompile what changed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${1:?source cache}; build=${2:?build dir}; pfio_inc=${3:?pfio include}; pfio_lib=${4:?pfio lib}
rpath=$pfio_lib${5:+:$5}
IFS=';' read -r -a coll_libs <<<"${6:?collective layer libraries}"
mkdir -p "$build"
build=$(cd "$build" && pwd)
romio=$(bash "$here/fetch-romio.sh" mpich "$cache" "$build/src" --standalone)
log="$build/romio-build.log"
# Configured once; again when the export map moved (the path is in the Makefile's LDFLAGS).
if [ ! -f "$romio/Makefile" ] || ! grep -q -- "$here/mpich-exports.map" "$romio/Makefile"; then
  echo "build-mpich: autogen + configure ROMIO (log: $log)"
  (cd "$romio" && ./autogen.sh) >"$log" 2>&1 || { tail -30 "$log"; exit 1; }
  (cd "$romio" && ./configure CC=mpicc.mpich --with-mpi-impl=generic \
      --disable-f77 --disable-f90 --enable-shared --disable-static --prefix="$build/install" \
      CFLAGS="-g -O2 -fstack-protector-strong -Wformat -Werror=format-security" \
      CPPFLAGS="-I$pfio_inc" \
      LDFLAGS="-L$pfio_lib -Wl,-rpath,$rpath -Wl,--version-script=$here/mpich-exports.map" \
      LIBS="-lpfio") >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
fi
make_log="$build/romio-make.log"
echo "build-mpich: make ROMIO (log: $make_log)"
# The collective layer is linked in through LIBS; relink when it changed.
for lib in "${coll_libs[@]}"; do
  if [ "$lib" -nt "$romio/libromio.la" ]; then rm -f "$romio/libromio.la"; fi
done
libs="-lpfio ${coll_libs[*]} -lstdc++"
(make -C "$romio" -j2 LIBS="$libs" && make -C "$romio" install LIBS="$libs") >"$make_log" 2>&1 ||
  { grep -B2 -A6 'error' "$make_log" | tail -40; exit 1; }
grep -A3 'ad_prefetch.*warning' "$make_log" || true   # the driver's own warnings, shown
echo "build-mpich: $build/install/lib/libromio.so"
