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
