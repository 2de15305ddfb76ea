#!/usr/bin/env bash
# pfio-h5bench --compute end to end on a small file: each method run without and with the
# computation, the computation alone once per round, the table of time to solution, every value
# checked (the benchmark exits 1 on a wrong value); bad --compute values are refused by name.
# usage: h5bench_compute_test.sh PFIO_H5BENCH WORKDIR
set -euo pipefail
bench=${1:?pfio-h5bench binary}; work=${2:?work dir}
rm -rf "$work"
mkdir -p "$work"
trap 'echo "FAIL: h5bench_compute_test.sh line $LINENO exited with status $?"' ERR
"$bench" --file "$work/f.h5" --rows 1024 --datasets c8k --patterns tiles,columns \
  --methods sec2,prefetch-declared --compute auto --quiet --json "$work/runs.jsonl" \
  >"$work/out" 2>&1 || { cat "$work/out"; echo "FAIL: the run failed"; exit 1; }
cat "$work/out"
for p in tiles columns; do
  grep -q "\"pattern\":\"$p\",\"method\":\"compute-only\".*\"ok\":true" "$work/runs.jsonl" ||
    { echo "FAIL: no compute-only run of $p"; exit 1; }
  for m in sec2 prefetch-declared; do
    grep "\"pattern\":\"$p\",\"method\":\"$m\"" "$work/runs.jsonl" |
      grep -q '"compute_ms":0.000,' || { echo "FAIL: no $m $p run without the computation"; exit 1; }
    grep "\"pattern\":\"$p\",\"method\":\"$m\"" "$work/runs.jsonl" |
      grep -v '"compute_ms":0.000,' | grep -Eq '"busy_s":([1-9]|0\.0*[1-9])' ||
      { echo "FAIL: no $m $p run with a computation that took time"; exit 1; }
    grep -Eq "^c8k +$p +$m +[0-9.]+ .*x$" "$work/out" ||
      { echo "FAIL: no line for $m $p in the table"; exit 1; }
  done
done
for bad in 0 -3 2x; do
  if "$bench" --file "$work/f.h5" --rows 1024 --compute "$bad" >"$work/bad.out" 2>&1; then
    echo "FAIL: --compute $bad was accepted"; exit 1
  fi
  grep -q -- "--compute $bad: expected milliseconds > 0 or auto" "$work/bad.out" ||
    { cat "$work/bad.out"; echo "FAIL: --compute $bad not named"; exit 1; }
done
echo "ok pfio-h5bench --compute"
