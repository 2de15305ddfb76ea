#!/usr/bin/env bash
# Configures and builds pfio. Usage: scripts/build.sh [release|asan]
#   release -> build/       (RelWithDebInfo)
#   asan    -> build-asan/  (Debug with AddressSanitizer + UndefinedBehaviorSanitizer)
# Idempotent: an existing build tree is reused and only what changed is rebuilt.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-release}
case "$kind" in
  release) dir=build; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  asan) dir=build-asan; flags=(-DCMAKE_BUILD_TYPE=Debug -DPFIO_SANITIZE=ON) ;;
  *) echo "build.sh: kind = '$kind': expected release or asan" >&2; exit 2 ;;
esac
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
cmake --build "$dir" -j2
