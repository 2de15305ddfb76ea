#!/usr/bin/env bash
# Makes pfio's Debian package, build/pfio_<version>_amd64.deb: installs what the build needs
# (scripts/setup.sh), builds the release tree (scripts/build.sh release) and runs cpack on it.
# Install it with `apt install ./build/pfio_<version>_amd64.deb`. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
(cd build && cpack -G DEB -B "$PWD" >cpack.log)
deb=$(ls -t build/pfio_*_amd64.deb | head -1)
echo "package: $deb ($(du -h "$deb" | cut -f1)); install with: apt install ./$deb"
dpkg-deb -f "$deb" Package Version Depends
