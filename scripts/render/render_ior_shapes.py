#!/usr/bin/python3
"""docs/benchmarks.md's "IOR's calls" table (scripts/bench.sh ior-shapes): per device, MPI, ranks
and calls, the median MiB/s of stock ROMIO, pfio's driver and stock ROMIO again (the A/A), how
many calls pfio's driver gave to ROMIO's path and how many collective calls it read alone.

usage: render_ior_shapes.py RESULTS_DIR DOCS_DIR"""
import glob
import json
import os
import statistics
import sys

from render_common import load_lines, page_reporting_note, replace_section

BEGIN, END = "<!-- ior-shapes -->", "<!-- /ior-shapes -->"
WHERE = {"hot": "page cache hot", "disk": "disk"}


def rows(folder):
    groups = {}
    names = sorted(n for n in os.listdir(folder) if n.startswith("runs-") and n.endswith(".jsonl"))
    for name in names:
        where, mpi = name[len("runs-"):-len(".jsonl")].rsplit("-", 1)
        for run in load_lines(os.path.join(folder, name)) or []:
            key = (mpi != "openmpi", where != "hot", where != "disk", where, mpi, -run["ranks"],
                   run["calls"] != "collective", run["calls"])
            groups.setdefault(key, []).append(run)
    out = []
    for key in sorted(groups):
        where, mpi, ranks, calls = key[3], key[4], -key[5], key[7]
        by = {}
        for run in groups[key]:
            by.setdefault(run["method"], []).append(run)
        med = {m: statistics.median(r["mib_s"] for r in v) for m, v in by.items()}
        if not {"romio", "pfio", "romio-again"} <= med.keys():
            continue
        pfio = by["pfio"]
        to_romio = statistics.median(r["to_romio"] for r in pfio)
        judged = statistics.median(r["judged"] for r in pfio)
        unit = "calls" if calls == "collective" else "reads"
        alone = statistics.median(r.get("alone", -1) for r in pfio)
        if alone > 0:
            unit += f", {alone:,.0f} read alone"
        device = WHERE.get(where, f"test bed `{where}`")
        if mpi == "mpich":
            device = "MPICH, " + device
        ratio = med["pfio"] / med["romio"]
        cell = f"{ratio:.2f}×"
        if ratio < 0.97 and ratio < med["romio-again"] / med["romio"]:
            cell = f"**{cell}**"
        out.append(f"| {device} | {ranks} | {calls} | {med['romio']:,.0f} | {med['pfio']:,.0f} | "
                   f"{med['romio-again']:,.0f} | {cell} | {med['romio-again'] / med['romio']:.2f}× "
                   f"| {to_romio:,.0f} of {judged:,.0f} {unit} |")
    return out


def main():
    results, docs = sys.argv[1], sys.argv[2]
    folder = os.path.join(results, "ior-shapes")
    m = json.load(open(os.path.join(folder, "machine.json")))
    fio = sorted(glob.glob(os.path.join(folder, "fio-*.txt")))  # the test bed's, when it ran
    body = [BEGIN, "",
            f"`scripts/bench.sh ior-shapes` ({m['date']}, {m['commit']}; {m['cpu']}, "
            f"{m['cores']} cores, {m['mem_gib']} GiB; Open MPI {m['openmpi']}, MPICH "
            f"{m['mpich']}): {m['file_size']} file, blocks of 47,008 bytes, one per rank per call "
            f"at explicit offsets, medians of {m['rounds']} rounds, methods alternating, every "
            "byte checked; page cache hot (read when the file was made) or evicted before every "
            "run (disk, test bed); each row an invocation of its own. Bold: below 0.97× and "
            "below the A/A.", ""]
    for path in fio:
        body += ["The test bed at the start (fio): " + " ".join(open(path).read().split()), ""]
    body += ["| device | ranks | calls | romio | pfio | romio-again | pfio / romio | A/A | "
             "pfio's driver gave ROMIO (read alone: collective calls each rank read by itself) |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    body += rows(folder)
    body += page_reporting_note(m)
    body += ["", END]
    replace_section(os.path.join(docs, "benchmarks.md"), BEGIN, END, body)
    print("wrote docs/benchmarks.md (IOR's calls)")


if __name__ == "__main__":
    main()
