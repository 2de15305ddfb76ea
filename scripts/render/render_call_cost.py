#!/usr/bin/python3
"""docs/small-calls.md's tables of calls of many blocks and of the solver loop, from the JSON of
scripts/bench.sh call-cost (one line per run); the prose around them is the page's own.

usage: render_call_cost.py RESULTS_DIR SMALL_CALLS_MD"""
import json
import os
import statistics
import sys

from render_common import replace_section


def runs(path):
    return [json.loads(line) for line in open(path)] if os.path.exists(path) else []


def median(values):
    return statistics.median(values) if values else None


def many_rows(folder):
    out = ["| page cache | workload | romio | pfio | romio-again | pfio / romio | A/A | ROMIO's path |",
           "|---|---|---:|---:|---:|---:|---:|---|"]
    for cache, label in (("hot", "hot"), ("cold", "evicted")):
        got = runs(os.path.join(folder, f"many-{cache}.jsonl"))
        for w in ("ior-hard", "random"):
            mib = {m: median([r["mib_s"] for r in got if r["workload"] == w and r["method"] == m])
                   for m in ("romio", "pfio", "romio-again")}
            if not all(mib.values()):
                continue
            pf = [r for r in got if r["workload"] == w and r["method"] == "pfio"]
            stock = [r["to_romio"] for r in pf if r.get("to_romio", -1) >= 0]
            calls = max((r["judged"] for r in pf if r.get("judged", -1) >= 0), default=0)
            path = f"{min(stock)}–{max(stock)} of {calls} calls" if stock else "–"
            out.append(f"| {label} | {w} | {mib['romio']:,.0f} | {mib['pfio']:,.0f} | "
                       f"{mib['romio-again']:,.0f} | {mib['pfio'] / mib['romio']:.2f}× | "
                       f"{mib['romio-again'] / mib['romio']:.2f}× | {path} |")
    return out


def solver_rows(folder):
    out = ["| device | romio | pfio | romio-again | compute alone | pfio / romio | A/A | pfio: time in reads |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for target in ("disk", "pfs"):
        got = runs(os.path.join(folder, f"solver-{target}.jsonl"))
        if not got:
            continue

        def secs(method, computing, field="seconds"):
            return [r[field] for r in got if r["method"] == method
                    and (r.get("compute_ms", 0) > 0) == computing]

        total = {m: secs(m, True) for m in ("romio", "pfio", "romio-again")}
        alone = secs("compute-only", True)
        if not all(total.values()) or not alone:
            continue
        med = {m: median(v) for m, v in total.items()}
        cell = {m: f"{med[m]:.2f} ({min(v):.2f}–{max(v):.2f})" for m, v in total.items()}
        in_reads = median(secs("pfio", True, "in_calls"))
        io_alone = median(secs("pfio", False))
        name = "disk" if target == "disk" else f"test bed `{target}`"
        out.append(f"| {name} | {cell['romio']} | {cell['pfio']} | {cell['romio-again']} | "
                   f"{median(alone):.2f} ({min(alone):.2f}–{max(alone):.2f}) | "
                   f"{med['pfio'] / med['romio']:.2f}× | {med['romio-again'] / med['romio']:.2f}× | "
                   f"{in_reads:.2f} s of {io_alone:.2f} s alone |")
    return out


def main():
    folder, doc = sys.argv[1], sys.argv[2]
    m = json.load(open(os.path.join(folder, "machine.json")))
    where = (f"`bash scripts/bench.sh call-cost` ({m['date']} at `{m['commit']}`, {m['cpu']}, "
             f"{m['cores']} cores, {m['mem_gib']} GiB; Open MPI {m['openmpi']}; a {m['file_size']} "
             f"file, blocks of 47,008 bytes, medians of {m['rounds']} rounds, "
             "methods alternating, every byte checked)")
    replace_section(doc, "<!-- call-cost-table -->", "<!-- /call-cost-table -->",
                    ["<!-- call-cost-table -->", "", where + ": 4 ranks, collective, 100 blocks "
                     "per rank per call through a file view of them.", ""] + many_rows(folder) + ["", "<!-- /call-cost-table -->"])
    replace_section(doc, "<!-- solver-loop-table -->", "<!-- /solver-loop-table -->",
                    ["<!-- solver-loop-table -->", "", where + ": 2 ranks (one per core), 16 blocks "
                     "per rank per call, a busy loop after each call worth stock ROMIO's read time "
                     "per call; seconds to solution, medians (ranges), the page cache evicted "
                     "before every run.", ""] + solver_rows(folder)
                    + ["", "<!-- /solver-loop-table -->"])
    print(f"render_call_cost: {doc} updated")


if __name__ == "__main__":
    main()
