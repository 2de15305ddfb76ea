#!/usr/bin/env bash
# The benchmarks, one entry point: bash scripts/bench.sh NAME [ARGS...] runs scripts/bench/NAME.sh,
# which installs what it needs, builds, runs its benchmark (page cache evicted, every byte or
# value checked, baselines in the same invocation) and renders its tables into docs/ from the
# results it writes (docs/results/, or build/ for the before/after reports). The main job is
# scripts/run-main.sh; without NAME this lists the benchmarks.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=${1:-}
if [ -z "$name" ] || [ "$name" = fio-seq ] || [ ! -f "$here/bench/$name.sh" ]; then
  [ -z "$name" ] || echo "bench.sh: no benchmark named '$name'" >&2
  echo "usage: bash scripts/bench.sh NAME [ARGS...], NAME one of:" >&2
  for script in "$here"/bench/*.sh; do
    n=$(basename "$script" .sh)
    [ "$n" = fio-seq ] && continue
    printf '  %-18s %s\n' "$n" "$(sed -n '2s/^# //p' "$script")" >&2
  done
  exit 2
fi
shift
exec bash "$here/bench/$name.sh" "$@"
