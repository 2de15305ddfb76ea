#!/usr/bin/env python3
"""Writes the fuzzing table of docs/reliability.md from docs/results/fuzz.json (scripts/bench.sh fuzz).

The table goes between the lines <!-- fuzz-table --> and <!-- /fuzz-table --> of the page;
everything else on the page is left as it is.
Usage: render_fuzz.py RESULTS_JSON PAGE"""
import json
import sys


def table(doc):
    rows = [f"Last run on {doc['date']} on `{doc['machine']}` ({doc['cpus']} CPUs), "
            f"{doc['runs_asked']:,} executions asked of each target, {doc['sanitizers']}; "
            "two targets at a time; each row says the day its target ran.", "",
            "| target | parses | run on | executions | seconds | exec/s | coverage (edges) "
            "| corpus files | crashes |", "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    what = {"fuzz_config": "`key=value` settings (pfio_config_set, hints, PFIO_*)",
            "fuzz_size": "sizes (`64K`, `1.5G`)",
            "fuzz_layout": "layout strings, then maps a range",
            "fuzz_lustre_layout": "Lustre `lov_user_md` (v1, v3)",
            "fuzz_plan_codec": "collective plans on the wire",
            "fuzz_plan_record": "plan record files (prefetch_replay)"}
    for t in doc["targets"]:
        stopped = " (stopped early)" if t.get("stopped_early") else ""
        rows.append(f"| `{t['target']}` | {what.get(t['target'], '')} | "
                    f"{t.get('date', doc['date'])} | {t['executions']:,}{stopped} | "
                    f"{t['seconds']} | {t['exec_per_s'] or ''} | {t['coverage_edges']} | "
                    f"{t['corpus_files']} | {t['crashes']} |")
    total = sum(t["executions"] or 0 for t in doc["targets"])
    crashes = sum(t["crashes"] for t in doc["targets"])
    short = [t["target"] for t in doc["targets"] if t.get("stopped_early")]
    rows += ["", f"In all: {total:,} executions, {crashes} crashes." +
             (f" Stopped before the count asked (interrupted for time): {', '.join(short)}."
              if short else "")]
    return rows


def main():
    doc = json.load(open(sys.argv[1]))
    page = open(sys.argv[2]).read().split("\n")
    start, end = page.index("<!-- fuzz-table -->"), page.index("<!-- /fuzz-table -->")
    page[start + 1:end] = table(doc)
    open(sys.argv[2], "w").write("\n".join(page))
    print(f"wrote the fuzzing table of {sys.argv[2]}")


if __name__ == "__main__":
    main()
