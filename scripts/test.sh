#!/usr/bin/env bash
# Installs what is needed, builds pfio three times (release; ASan+UBSan; ThreadSanitizer) and runs
# every test of each build with ctest, then builds the libFuzzer targets (clang) and runs each
# briefly. The MPI front end is tested in the release build only (a
# sanitizer runtime would have to be loaded into Open MPI and MPICH themselves). Idempotent; exits
# non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
for kind in release asan tsan fuzz; do
  bash scripts/build.sh "$kind"
done
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
echo "== tests, release build"
ctest --test-dir build -j2 --output-on-failure
echo "== tests, ASan+UBSan build"
ctest --test-dir build-asan -j2 --output-on-failure
echo "== tests, ThreadSanitizer build"
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ctest --test-dir build-tsan -j2 --output-on-failure
echo "== fuzzing, briefly: every parser's libFuzzer target over its seed corpus"
ctest --test-dir build-fuzz -j2 --output-on-failure
