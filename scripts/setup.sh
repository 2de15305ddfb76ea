#!/usr/bin/env bash
# Installs every Debian package pfio needs to build, test and benchmark.
# Non-interactive and idempotent: packages already present are left alone.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libaio-dev liburing-dev libhwloc-dev hwloc
  nlohmann-json3-dev
  fio
  libopenmpi-dev openmpi-bin
  libmpich-dev mpich
  autoconf automake libtool dpkg-dev xz-utils python3
  libhdf5-openmpi-dev
  # the HDF5 driver for unmodified programs: Debian's serial HDF5 too, and the programs it is
  # tested under (tests/hdf5/no_code_change_test.py)
  libhdf5-dev hdf5-tools netcdf-bin python3-h5py python3-h5py-mpi python3-mpi4py
  python3-netcdf4 python3-xarray
  # the peers' own suites run under it (tests/hdf5/peer_suites_test.py)
  python3-pytest python3-h5netcdf
  libgtest-dev googletest
  clang-format clang libclang-rt-14-dev
  python3-matplotlib
  nbdkit libnbd-bin fuse3 libfuse3-dev  # the latency-bound test bed (scripts/testbed.sh)
)

# ROMIO's sources come from Debian's openmpi and mpich source packages at build time
# (romio-adio/build-glue/fetch-romio.sh), so apt needs deb-src entries for the same archive.
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
deb_src=/etc/apt/sources.list.d/pfio-deb-src.sources
need_update=0
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src ' /etc/apt/sources.list; then
  $SUDO tee "$deb_src" >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  echo "setup: added deb-src entries ($deb_src)"
  need_update=1
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  [ "$need_update" -eq 0 ] || $SUDO apt-get update -q
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
