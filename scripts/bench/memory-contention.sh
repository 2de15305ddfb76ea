#!/usr/bin/env bash
# Jobs on one node that want more memory than it has: budgets, cuts, MemAvailable.
# Several pfio-bench runs at once (3, or N for a case written CASE:N), each reading every 64 KiB
# block of the same FILE_SIZE file once in random order (dense, pfio-pipelined), with the
# budgets of the case:
#   fixed-9G  3 x 9 GiB, more than this 23.5 GiB machine has (the run that once met the OOM
#             killer), fixed-6G  3 x 6 GiB (fits), auto  pfio's own budgets (the node's share),
#   auto:8    8 jobs with auto budgets (as 8 ranks of one job on one node)
#   serial-auto  the same 3 jobs one after another, each alone on the node (the yardstick the
#             jobs run at once must beat)
#   hog-9G    one job with a 9 GiB budget; HOG_AFTER (8) seconds in, memory-hog takes 80 % of
#             MemTotal for 10 s: pfio must give memory back, and nobody may be killed
# BUFFER=cache runs the cases with the engine's page-cache buffer kind (pfio-bench's pfio-cache
# method: pfio-pipelined with buffer = cache, the kind the front ends open files in by default;
# the budget then bounds the bytes advised and not read yet, and the bytes themselves are the
# kernel's page cache): case names get "-cache".
# METHOD=fadvise (or another pfio-bench method) runs the jobs with that method instead of
# pfio-pipelined, as a yardstick nobody here wrote the idea of (fadvise: buffered pread with
# POSIX_FADV_WILLNEED ahead): case names get "-<method>".
# MemAvailable and the summed RSS of the pfio-bench processes are sampled every 100 ms (the
# summed RSS at its peak is what the jobs held together at one moment); each job's counters and
# AIMD history go to
# docs/results/memory/<case>-job<N>.json; a job the kernel kills shows as exit status 137.
# Re-renders docs (scripts/render/render_docs.py) with the table and the plot.
#   scripts/bench.sh memory-contention     (CASES="fixed-9G auto fixed-6G" FILE_SIZE=12G
#                                         BUFFER=engine METHOD=pfio-pipelined; PFIO_BENCH_DIR
#                                         for the data file)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh
bash scripts/build.sh release
source scripts/lib/machine-json.sh
cases=${CASES:-fixed-9G auto fixed-6G serial-auto auto:8 hog-9G}
size=${FILE_SIZE:-12G}
buffer=${BUFFER:-engine}
case $buffer in
engine) method=${METHOD:-pfio-pipelined} ;;
cache) method=${METHOD:-pfio-cache} ;;
*) echo "run-memory-contention: BUFFER = '$buffer': expected engine or cache" >&2; exit 2 ;;
esac
dir=${PFIO_BENCH_DIR:-build}
mkdir -p "$dir"
data=$(cd "$dir" && pwd)/pfio-contention-$size.data
out=docs/results/memory
mkdir -p "$out"
bench=build/bench/pfio-bench
common=(--workload dense --block 64K --methods "$method" --file "$data" --file-size "$size"
        --keep-file --quiet)
echo "== making the $size file once"
$bench --workload seq --block 1M --methods naive --file "$data" --file-size "$size" --keep-file --quiet \
  >/dev/null
for spec in $cases; do
  base=${spec%%:*}
  jobs=3
  c=$base
  if [ "$spec" != "$base" ]; then jobs=${spec#*:}; c=$base-$jobs; fi
  [ "$buffer" = engine ] || c=$c-$buffer
  case $method in pfio-pipelined | pfio-cache) ;; *) c=$c-$method ;; esac
  hog=0 serial=0
  case "$base" in
    serial-*) budget=${base#serial-}; serial=1 ;;
    fixed-*) budget=${base#fixed-} ;;
    hog-*) budget=${base#hog-}; hog=1; jobs=1 ;;
    auto) budget=auto ;;
    *) echo "run-memory-contention: case = '$spec': expected fixed-<size>, auto, serial-<budget>" \
            "or hog-<size>, and :N" >&2
       exit 2 ;;
  esac
  # this case's files only: "auto" is also the start of "auto-8" and "auto-cache"
  rm -f "$out/$c"-job* "$out/$c"-bench* "$out/$c"-hog.log "$out/$c"-memavailable.txt \
    "$out/$c"-starts.txt "$out/$c"-summary.json
  echo "== $c: $jobs jobs $([ "$serial" -eq 1 ] && echo 'one after another' || echo 'at once'), budget $budget each"
  sync
  echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
  t0=$(date +%s.%N)
  ( while :; do
      printf '%s %s %s\n' "$(date +%s.%N)" "$(awk '/MemAvailable/ {print $2}' /proc/meminfo)" \
        "$(ps -C pfio-bench -o rss= 2>/dev/null | awk '{s += $1} END {print s + 0}')"
      sleep 0.1
    done ) >"$out/$c-memavailable.txt" &
  sampler=$!
  pids=()
  status=()
  for j in $(seq 1 "$jobs"); do
    echo "$j $(date +%s.%N)" >>"$out/$c-starts.txt"
    PFIO_STATS="$out/$c-job$j.json" $bench "${common[@]}" --budget "$budget" \
      --json "$out/$c-bench$j.json" >"$out/$c-job$j.log" 2>&1 &
    if [ "$serial" -eq 1 ]; then
      if wait $!; then status+=(0); else status+=($?); fi
    else
      pids+=($!)
    fi
  done
  hog_start=null hog_exit=null
  if [ "$hog" -eq 1 ]; then
    sleep "${HOG_AFTER:-8}"
    hog_start=$(date +%s.%N)
    if build/bench/memory-hog 80 10 >"$out/$c-hog.log" 2>&1; then hog_exit=0; else hog_exit=$?; fi
  fi
  for p in "${pids[@]}"; do
    if wait "$p"; then status+=(0); else status+=($?); fi
  done
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
  t1=$(date +%s.%N)
  printf '{"case": "%s", "budget": "%s", "file_size": "%s", "jobs": %s, "t0": %s, "t1": %s, "exit": [%s], "hog_start": %s, "hog_exit": %s, "mem_total_kb": %s, "buffer": "%s", "method": "%s", "date": "%s", "commit": "%s", "page_reporting": "%s"}\n' \
    "$c" "$budget" "$size" "$jobs" "$t0" "$t1" "$(IFS=,; echo "${status[*]}")" "$hog_start" "$hog_exit" \
    "$(awk '/MemTotal/ {print $2}' /proc/meminfo)" "$buffer" "$method" "$(date -u +%Y-%m-%d)" \
    "$(pfio_commit)" "${BENCH_PAGE_REPORTING:-}" \
    >"$out/$c-summary.json"
  echo "   exit statuses: ${status[*]} (137 = killed); $(awk '{print $2}' "$out/$c-memavailable.txt" | sort -n | head -1) kB least MemAvailable"
done
/usr/bin/python3 scripts/render/render_docs.py docs/results docs
