"""The read-path table of docs/collective.md from docs/results/collective-paths/runs.jsonl.

usage: render_collective_paths.py RESULTS_DIR DOC   (rewrites the lines between the markers)
"""
import json
import os
import statistics
import sys

BEGIN = "<!-- collective-paths: begin (scripts/bench.sh collective-paths) -->"
END = "<!-- collective-paths: end -->"
METHODS = ["ompio", "romio", "pfio", "pfio-engine"]


def table(folder):
    runs = [json.loads(line) for line in open(os.path.join(folder, "runs.jsonl")) if line.strip()]
    out = ["| ranks | workload | OMPIO | ROMIO 3.2.1 | pfio (cache path) | pfio-engine | "
           "cache / engine | cache / best stock | CPU s per GiB: cache / engine / best stock |",
           "|---:|---|---:|---:|---:|---:|---:|---:|---|"]
    for ranks in sorted({r["ranks"] for r in runs}):
        for w in ["ior-hard", "random", "btio", "tiles", "restart"]:
            mib, cpu = {}, {}
            for m in METHODS:
                sel = [r for r in runs if r["ranks"] == ranks and r["workload"] == w
                       and r["method"] == m]
                if sel:
                    mib[m] = statistics.median(r["mib_s"] for r in sel)
                    cpu[m] = statistics.median(r["cpu_seconds"] / (r["bytes"] / 2**30) for r in sel)
            if "pfio" not in mib or "pfio-engine" not in mib:
                continue
            stock = max((m for m in ("ompio", "romio") if m in mib), key=lambda m: mib[m])
            out.append(
                f"| {ranks} | {w} | {mib.get('ompio', 0):.0f} | {mib.get('romio', 0):.0f} | "
                f"{mib['pfio']:.0f} | {mib['pfio-engine']:.0f} | "
                f"{mib['pfio'] / mib['pfio-engine']:.2f}× | {mib['pfio'] / mib[stock]:.2f}× | "
                f"{cpu['pfio']:.2f} / {cpu['pfio-engine']:.2f} / {cpu[stock]:.2f} ({stock}) |")
    rounds = max(r["round"] for r in runs)
    return out, len(runs), rounds


def main():
    folder, doc = sys.argv[1], sys.argv[2]
    rows, n, rounds = table(folder)
    text = open(doc).read()
    if BEGIN not in text or END not in text:
        sys.exit(f"{doc}: the markers {BEGIN!r} and {END!r} are missing")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    body = [BEGIN, "",
            f"Medians MiB/s of {rounds} alternated rounds in one invocation per rank count "
            f"({n} runs, all verified; 1 GiB file, page cache evicted before every run):", ""]
    body += rows + ["", END]
    open(doc, "w").write(head + "\n".join(body) + tail)


main()
