#!/usr/bin/env bash
# render_h5_before_after.py renders a side only with every run its pairs x rounds promise: a
# folder whose before side lost an invocation's runs (one run a cell where machine.json says 2
# pairs x 1 round) is refused with the cell, the count and what was expected; the same folder
# with both runs renders the table into the document; an again side adds each pfio cell's own A/A.
set -euo pipefail
render=${1:?usage: render_h5_before_after_test.sh RENDER_SCRIPT}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$dir/h5-before-after-fixture
mkdir -p "$out"
cat >"$out/machine.json" <<JSON
{"datasets": "c8k", "patterns": "tiles", "before": "aaaaaaa", "after": "bbbbbbb", "date": "2026-11-28",
 "rows": 64, "cpu": "test", "cores": 2, "kernel": "test", "hdf5": "1.10.8", "pairs": 2,
 "testbed_pairs": 0, "rounds": 1}
JSON
run() { # method MiB/s
  printf '{"dataset":"c8k","pattern":"tiles","method":"%s","ok":true,"mib_s":%s}\n' "$1" "$2"
}
for m in sec2 prefetch prefetch-declared; do run $m 100 >>"$out/runs-disk-before.jsonl"; done
for m in sec2 prefetch prefetch-declared; do run $m 100; run $m 110; done >"$out/runs-disk-after.jsonl"
printf '# doc\n\n<!-- h5-before-after-fixture -->\n<!-- /h5-before-after-fixture -->\n' >"$dir/doc.md"
if /usr/bin/python3 "$render" "$out" "$dir/doc.md" 2>"$dir/err"; then
  echo "FAIL: a side with 1 of 2 runs a cell was rendered" >&2
  exit 1
fi
grep -q "disk before c8k tiles sec2: 1 runs, expected 2 (pairs x rounds)" "$dir/err" || {
  echo "FAIL: the refusal does not name the cell and counts:" >&2
  cat "$dir/err" >&2
  exit 1
}
for m in sec2 prefetch prefetch-declared; do run $m 90 >>"$out/runs-disk-before.jsonl"; done
/usr/bin/python3 "$render" "$out" "$dir/doc.md"
grep -q "| c8k | tiles | 95.0 | 105 | 1.11 |" "$dir/doc.md" || {
  echo "FAIL: the table of both runs a side is not in the document:" >&2
  cat "$dir/doc.md" >&2
  exit 1
}
# With an again side (AGAIN=1: the commit before run once more) each pfio cell gets its own A/A
# (again / before), and a change's cell below that spread is named. Here prefetch's again/before
# is 1.00 and prefetch-declared's 0.95 (spread 0.95-1.00); the change's prefetch cell (before
# 95, after 80: 0.84) lies below it, prefetch-declared's (95 -> 105: 1.11) above.
for m in sec2 prefetch; do run $m 100; run $m 90; done >"$out/runs-disk-again.jsonl"
run prefetch-declared 90 >>"$out/runs-disk-again.jsonl"
if /usr/bin/python3 "$render" "$out" "$dir/doc.md" 2>"$dir/err"; then
  echo "FAIL: an again side with 1 of 2 runs a cell was rendered" >&2
  exit 1
fi
run prefetch-declared 90 >>"$out/runs-disk-again.jsonl"
grep -v '"prefetch"' "$out/runs-disk-after.jsonl" >"$dir/after" || true
{ cat "$dir/after"; run prefetch 80; run prefetch 80; } >"$out/runs-disk-after.jsonl"
/usr/bin/python3 "$render" "$out" "$dir/doc.md"
grep -q "| c8k | tiles | 95.0 | 105 | 1.11 | 95.0 | 80.0 | \*\*0.84\*\* | 1.00 | 95.0 | 105 | \*\*1.11\*\* | 0.95 |" "$dir/doc.md" || {
  echo "FAIL: the table with the pfio A/A columns is not in the document:" >&2
  cat "$dir/doc.md" >&2
  exit 1
}
grep -q "own A/A (the commit before run twice, again / before) spread 0.95-1.00 over the cells of both methods; the change's cells below it: c8k tiles prefetch 0.84; above it: c8k tiles prefetch-declared 1.11." "$dir/doc.md" || {
  echo "FAIL: the cells outside the pfio A/A are not named:" >&2
  cat "$dir/doc.md" >&2
  exit 1
}
echo "render_h5_before_after: ok"
