#!/usr/bin/env bash
# Configures and builds pfio. Usage: scripts/build.sh [release|asan|tsan]
#   release -> build/       (RelWithDebInfo)
#   asan    -> build-asan/  (Debug at -O1, as AddressSanitizer advises, with UndefinedBehaviorSanitizer)
#   tsan    -> build-tsan/  (RelWithDebInfo with ThreadSanitizer; no MPI front end)
#   fuzz    -> build-fuzz/  (clang, libFuzzer targets of fuzz/ with ASan+UBSan)
# Idempotent: an existing build tree is reused and only what changed is rebuilt.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-release}
case "$kind" in
  release) dir=build; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  asan) dir=build-asan; flags=(-DCMAKE_BUILD_TYPE=Debug -DPFIO_SANITIZE=ON
                               "-DCMAKE_C_FLAGS_DEBUG=-g -O1" "-DCMAKE_CXX_FLAGS_DEBUG=-g -O1") ;;
  tsan) dir=build-tsan; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPFIO_TSAN=ON) ;;
  fuzz) dir=build-fuzz; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPFIO_SANITIZE=ON -DPFIO_FUZZ=ON
                               -DPFIO_BUILD_TESTS=OFF -DCMAKE_C_COMPILER=clang
                               -DCMAKE_CXX_COMPILER=clang++) ;;
  *) echo "build.sh: kind = '$kind': expected release, asan, tsan or fuzz" >&2; exit 2 ;;
esac
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
if [ "$kind" = fuzz ]; then
  cmake --build "$dir" -j2 --target pfio_fuzzers  # the fuzz targets and what they link, only
else
  cmake --build "$dir" -j2
fi
