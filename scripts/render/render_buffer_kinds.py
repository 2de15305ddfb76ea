#!/usr/bin/python3
"""docs/engine-benchmarks.md's section "Buffer kinds" from docs/results/buffer-kinds/
(scripts/bench.sh buffer-kinds): per target and workload the median MiB/s of stock ROMIO, pfio's
default, the engine with its reorder buffer (pfio-engine) and the engine with
the page-cache kind (pfio-engine-cache), the kind's ratios, and the A/A of the invocation.

usage: render_buffer_kinds.py RESULTS_DIR DOC   (rewrites the lines between the markers)
"""
import json
import os
import statistics
import sys

from render_common import machine, replace_section, target_title

BEGIN, END = "<!-- buffer-kinds -->", "<!-- /buffer-kinds -->"
WORKLOADS = ["ior-hard", "random", "btio", "tiles", "restart"]
METHODS = ["romio", "pfio", "pfio-engine", "pfio-engine-cache", "romio-again"]


def load_runs(folder, target):
    path = os.path.join(folder, f"runs-{target}.jsonl")
    if not os.path.exists(path):
        return None
    return [json.loads(line) for line in open(path) if line.strip()]


def table(runs):
    def mib(w, m):
        v = [r["mib_s"] for r in runs if r["workload"] == w and r["method"] == m]
        return statistics.median(v) if v else None

    out = ["| workload | ROMIO | pfio (default) | pfio-engine | pfio-engine-cache | "
           "engine-cache / pfio | engine-cache / engine | engine-cache / ROMIO | A/A |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for w in WORKLOADS:
        v = {m: mib(w, m) for m in METHODS}
        if None in v.values():
            continue
        c = v["pfio-engine-cache"]
        out.append(f"| {w} | {v['romio']:.0f} | {v['pfio']:.0f} | {v['pfio-engine']:.0f} | "
                   f"{c:.0f} | {c / v['pfio']:.2f}x | {c / v['pfio-engine']:.2f}x | "
                   f"{c / v['romio']:.2f}x | {v['romio-again'] / v['romio']:.2f} |")
    return out


def main():
    folder, doc = sys.argv[1], sys.argv[2]
    m = json.load(open(os.path.join(folder, "machine.json")))
    body = [BEGIN, "", "## Buffer kinds: the engine with the page cache", "",
            f"`bash scripts/bench.sh buffer-kinds`: `pfio-mpibench` under Open MPI with {m['ranks']} "
            f"ranks on one {m['file_size']} self-verifying file ({machine(m)}), {m['rounds']} "
            "rounds with "
            "the methods alternating, every run started with the file evicted from the page cache, "
            "every byte checked; medians of MiB/s, the slowest rank's time from open to the last "
            "byte checked. `pfio` is the default (the engine in its page-cache kind), "
            "`pfio-engine` the engine with the reorder buffer (O_DIRECT; hint "
            "`prefetch_coll_path=engine`), `pfio-engine-cache` the engine with the hint "
            "`prefetch_buffer=cache`, the same setting as the default, so that "
            "`engine-cache / pfio` is a second A/A; `A/A` is `romio-again / romio`."]
    for target in ["disk"] + sorted(t[5:-6] for t in os.listdir(folder)
                                    if t.startswith("runs-") and t != "runs-disk.jsonl"):
        runs = load_runs(folder, target)
        if not runs:
            continue
        body += ["", target_title(folder, target), ""] + table(runs)
    body += ["", END]
    replace_section(doc, BEGIN, END, body)


main()
