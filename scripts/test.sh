#!/usr/bin/env bash
# Installs what is needed, builds pfio twice (release, and ASan+UBSan), and runs every test in
# both builds with ctest. Idempotent; exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
for kind in release asan; do
  bash scripts/build.sh "$kind"
done
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
echo "== tests, release build"
ctest --test-dir build -j2 --output-on-failure
echo "== tests, ASan+UBSan build"
ctest --test-dir build-asan -j2 --output-on-failure
