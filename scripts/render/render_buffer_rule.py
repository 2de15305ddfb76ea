#!/usr/bin/python3
"""docs/engine-benchmarks.md's section "The buffer kind's rule" from docs/results/buffer-rule/
(scripts/bench.sh buffer-rule): per target, workload and block size the median MiB/s of
pfio-pipelined (buffer = engine), pfio-cache (buffer = cache) and fadvise, the ratio
cache / engine of each repeat (each repeat's pair ran next to each other), and the kind that
was faster in every repeat (what the engine's `buffer = auto` is measured from).

usage: render_buffer_rule.py RESULTS_DIR DOC   (rewrites the lines between the markers)
"""
import json
import os
import statistics
import sys

from render_common import machine, replace_section, target_title

BEGIN, END = "<!-- buffer-rule -->", "<!-- /buffer-rule -->"
WORKLOADS = ["gather", "dense", "strided", "seq"]
LEVEL = 0.05  # a kind is faster where every repeat says so and the medians differ by 5 % or more


def block_key(b):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(b[:-1]) * units[b[-1]] if b[-1] in units else int(b)


def cells(folder, target):
    """{(workload, block): {method: [MiB/s of each repeat, in run order]}} of one target."""
    out = {}
    for f in os.listdir(folder):
        if not (f.startswith(target + "-") and f.endswith(".json")):
            continue
        workload, block = f[len(target) + 1:-5].rsplit("-", 1)
        if workload not in WORKLOADS:
            continue
        d = json.load(open(os.path.join(folder, f)))
        runs = {}
        for r in d["runs"]:
            if not r.get("verified", False):
                sys.exit(f"render_buffer_rule: {f}: a {r['method']} run did not verify")
            runs.setdefault(r["method"], []).append(r["mib_per_s"])
        out[(workload, block)] = runs
    return out


def table(c):
    out = ["| workload | block | pfio-pipelined (engine) | pfio-cache | fadvise | "
           "cache / engine | per repeat | faster kind |",
           "|---|---|---:|---:|---:|---:|---|---|"]
    for (w, b) in sorted(c, key=lambda k: (WORKLOADS.index(k[0]), block_key(k[1]))):
        runs = c[(w, b)]
        e, k, f = (runs.get(m, []) for m in ("pfio-pipelined", "pfio-cache", "fadvise"))
        if not e or not k or len(e) != len(k):
            sys.exit(f"render_buffer_rule: {w} {b}: expected as many engine runs as cache runs")
        me, mk = statistics.median(e), statistics.median(k)
        ratios = [y / x for x, y in zip(e, k)]
        lo, hi = min(ratios), max(ratios)
        r = mk / me
        faster = ("cache" if lo > 1 and r >= 1 + LEVEL else "engine" if hi < 1 and r <= 1 - LEVEL
                  else "level")
        mf = f"{statistics.median(f):.0f}" if f else "–"
        out.append(f"| {w} | {b} | {me:.0f} | {mk:.0f} | {mf} | {mk / me:.2f}x | "
                   f"{', '.join(f'{r:.2f}' for r in ratios)} | {faster} |")
    return out


def main():
    folder, doc = sys.argv[1], sys.argv[2]
    m = json.load(open(os.path.join(folder, "machine.json")))
    body = [BEGIN, "", "## The buffer kind's rule: pfio-bench in both kinds", "",
            f"`bash scripts/bench.sh buffer-rule`: `pfio-bench` (the engine's own API: "
            f"`pfio_plan_append` ahead, `pfio_read`) on one {m['file_size']} self-verifying file "
            f"({machine(m)}), budget {m['budget']}, {m['repeat']} repeats with the methods "
            "interleaved and rotated, every run started with the file evicted from the page cache, "
            "every byte checked; medians of MiB/s from the method's start to its last byte checked. "
            "`pfio-pipelined` holds the bytes in pfio's reorder buffer (`buffer = engine`, O_DIRECT "
            "reads), `pfio-cache` in the kernel's page cache (`buffer = cache`: the plan advised "
            "ahead within the budget, `pfio_read` copying out of the cache); `fadvise` is a "
            "buffered reader advising its next window itself (no pfio). `per repeat`: each "
            "repeat's cache / engine; `faster kind` names a kind where every repeat says so and the "
            "medians differ by 5 % or more, else `level`."]
    targets = sorted({f.split("-", 1)[0] for f in os.listdir(folder)
                      if f.endswith(".json") and f != "machine.json" and not f.startswith("fio-")},
                     key=lambda t: (t != "disk", t))
    for target in targets:
        body += ["", target_title(folder, target), ""] + table(cells(folder, target))
    body += ["", END]
    replace_section(doc, BEGIN, END, body)


main()
