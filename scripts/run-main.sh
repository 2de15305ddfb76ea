#!/usr/bin/env bash
# The main job: installs what is needed, builds, and runs pfio-bench on its embedded default
# (gather workload, 1 GiB generated file, 4 KiB blocks, 256 MiB budget; a few minutes here).
# Extra arguments go to pfio-bench, e.g. scripts/run-main.sh --workload dense --file-size 4G
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
exec build/examples/pfio-bench --file build/pfio-bench.data --json build/pfio-bench.json "$@"
