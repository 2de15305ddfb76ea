#!/usr/bin/env bash
# Downloads Debian's source package of the installed Open MPI or MPICH (the same version as the
# libraries the driver will be loaded into), extracts its ROMIO and adds the driver to it
# (add-to-romio.py; --standalone for MPICH's libromio). Never committed; the download is cached.
# usage: fetch-romio.sh openmpi|mpich CACHE_DIR OUT_DIR [--standalone]
# Prints the ROMIO directory. Idempotent: a download or extraction already there is reused, and
# a tree patched by an older add-to-romio.py is extracted afresh.
set -euo pipefail
mpi=${1:?openmpi or mpich}
cache=${2:?cache dir}
out=${3:?output dir}
standalone=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
case "$mpi" in
  openmpi) dev=libopenmpi-dev ;;
  mpich) dev=libmpich-dev ;;
  *) echo "fetch-romio: mpi = '$mpi': expected openmpi or mpich" >&2; exit 2 ;;
esac
version=$(dpkg-query -W -f='${source:Version}' "$dev" 2>/dev/null) || {
  echo "fetch-romio: $dev is not installed: run scripts/setup.sh first" >&2; exit 1; }
upstream=${version%-*}
upstream=${upstream#*:}
tarball="$cache/${mpi}_${upstream}.orig.tar.xz"
mkdir -p "$cache" "$out"
if [ ! -s "$tarball" ]; then
  echo "fetch-romio: apt-get source --download-only $mpi=$version" >&2
  (cd "$cache" && apt-get source -q --download-only "$mpi=$version" >&2) || {
    echo "fetch-romio: could not download the $mpi $version source package; scripts/setup.sh" \
         "adds the deb-src entries apt needs (then apt-get update)" >&2; exit 1; }
fi
if [ "$mpi" = openmpi ]; then
  top="openmpi-$upstream"
  parts=("$top/ompi/mca/io/romio321" "$top/config/opal_mca.m4")
  romio="$out/$top/ompi/mca/io/romio321/romio"
else
  top="mpich-$upstream"
  parts=("$top/src/mpi/romio")
  romio="$out/$top/src/mpi/romio"
fi
stamp=$(sha1sum "$here/add-to-romio.py" | cut -c1-40)
if [ "$(cat "$out/.patched-by" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "${out:?}/$top"
fi
if [ ! -f "$romio/configure.ac" ]; then
  tar -C "$out" -xf "$tarball" "${parts[@]}"
fi
python3 "$here/add-to-romio.py" "$romio" "$(dirname "$here")" $standalone >&2
echo "$stamp" >"$out/.patched-by"
echo "$romio"
