#!/usr/bin/env bash
# Every libFuzzer target for RUNS executions, two at a time: reliability.md's fuzz table.
# Runs every libFuzzer target of fuzz/ for RUNS executions (default 10,000,000), two at a time,
# each from its seed corpus plus what earlier runs found (kept in build-fuzz/fuzz/long-<name>/),
# and records executions, seconds, corpus size, coverage and crashes per target in
# docs/results/fuzz.json, then renders the table of docs/reliability.md from it. A crash stops
# that target, leaves its input as build-fuzz/fuzz/crash-<name>-*, and makes the script exit
# non-zero; crash inputs left by earlier runs are moved to build-fuzz/fuzz/old-crashes/ first, so
# the count is this run's. A target interrupted (Ctrl-C, kill) is recorded as stopped early with
# the executions it reached, not as a crash.
# Runs at the lowest CPU priority (nice 19) so that the machine stays usable while it runs.
# TARGETS="fuzz_config fuzz_plan_codec" runs only those; the other targets keep their rows of the
# last run in docs/results/fuzz.json.
# Usage: [TARGETS="..."] scripts/bench.sh fuzz [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-10000000}
bash scripts/setup.sh >/dev/null
bash scripts/build.sh fuzz >/dev/null
out=build-fuzz/fuzz
# the quick ones first, so that stopping the long ones early leaves nothing queued behind them
all_targets=(fuzz_layout fuzz_size fuzz_lustre_layout fuzz_plan_codec fuzz_config fuzz_plan_record)
if [ -n "${TARGETS:-}" ]; then
  read -r -a targets <<<"$TARGETS"
  for t in "${targets[@]}"; do
    case " ${all_targets[*]} " in
      *" $t "*) ;;
      *) echo "run-fuzz: TARGETS names '$t', expected some of: ${all_targets[*]}" >&2; exit 2 ;;
    esac
  done
else
  targets=("${all_targets[@]}")
fi
one() {
  local t=$1
  mkdir -p "$out/long-$t"
  local start end rc=0
  mkdir -p "$out/old-crashes"
  find "$out" -maxdepth 1 -name "crash-$t-*" -exec mv -t "$out/old-crashes" {} +
  start=$(date +%s)
  nice -n 19 "$out/$t" -runs="$runs" -seed=1 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$out/crash-$t-" "$out/long-$t" "fuzz/corpus/$t" >"$out/long-$t.log" 2>&1 || rc=$?
  end=$(date +%s)
  echo "$t rc=$rc seconds=$((end - start))" >"$out/long-$t.result"
  echo "fuzz: $t done in $((end - start)) s (exit $rc)"
}
echo "fuzz: ${#targets[@]} targets x $runs executions, two at a time (progress: $out/long-*.log)"
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n || true; done
  one "$t" &
done
wait
/usr/bin/python3 - "$out" "$runs" "${all_targets[*]}" "${targets[@]}" <<'PY'
import json, re, sys, os, platform, datetime
out, runs, order, targets = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4:]
try:
    last = json.load(open("docs/results/fuzz.json"))
    earlier = {r["target"]: dict(r, date=r.get("date", last["date"])) for r in last["targets"]}
except (OSError, ValueError, KeyError):
    earlier = {}
rows, bad = [], 0
for t in order:
    if t not in targets:
        if t in earlier:
            rows.append(earlier[t])
        continue
    log = open(f"{out}/long-{t}.log", errors="replace").read()
    res = open(f"{out}/long-{t}.result").read()
    rc = int(re.search(r"rc=(\d+)", res).group(1))
    secs = int(re.search(r"seconds=(\d+)", res).group(1))
    def stat(name):
        m = re.findall(rf"stat::{name}:\s+(\d+)", log)
        return int(m[-1]) if m else None
    done = re.findall(r"Done (\d+) runs", log)
    cov = re.findall(r"cov: (\d+)", log)
    crashes = len([f for f in os.listdir(out) if f.startswith(f"crash-{t}-")])
    # libFuzzer exits 72 after SIGINT/SIGTERM ("run interrupted"): a stop, not a failure.
    stopped = rc == 72 or "run interrupted" in log or (rc != 0 and crashes == 0 and not done)
    row = {"target": t, "executions": int(done[-1]) if done else stat("number_of_executed_units"),
           "seconds": secs, "exec_per_s": stat("average_exec_per_sec"),
           "coverage_edges": int(cov[-1]) if cov else None,
           "corpus_files": len(os.listdir(f"{out}/long-{t}")),
           "peak_rss_mb": stat("peak_rss_mb"), "crashes": crashes, "exit": rc,
           "stopped_early": stopped, "date": datetime.date.today().isoformat()}
    if row["executions"] is None:  # killed before the final stats: the last progress line
        units = re.findall(r"^#(\d+)\s", log, re.M)
        row["executions"] = int(units[-1]) if units else 0
    bad += crashes > 0 or (rc != 0 and not stopped)
    rows.append(row)
doc = {"date": datetime.date.today().isoformat(), "machine": platform.node(),
       "cpus": os.cpu_count(), "runs_asked": runs, "sanitizers": "ASan+UBSan, libFuzzer (clang 14)",
       "targets": rows}
json.dump(doc, open("docs/results/fuzz.json", "w"), indent=1)
for r in rows:
    print(f"{r['target']:20} {r['executions']} executions in {r['seconds']} s, "
          f"{r['coverage_edges']} edges, {r['corpus_files']} corpus files, {r['crashes']} crashes")
sys.exit(1 if bad else 0)
PY
/usr/bin/python3 scripts/render/render_fuzz.py docs/results/fuzz.json docs/reliability.md
