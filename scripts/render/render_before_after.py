#!/usr/bin/python3
"""The report "Before and after" of a change from build/before-after/ (scripts/bench.sh before-after;
with CALLS=independent from build/before-after-independent/): per target and workload the median MiB/s of the default path
(`pfio`) on the commit before and after a change, with stock ROMIO and its A/A on each side, and
after/before beside the A/A spread of the two sides.

usage: render_before_after.py RESULTS_DIR DOC   (rewrites the lines between the markers)
"""
import json
import os
import statistics
import sys

from render_common import machine, replace_section, result_targets, target_title

WORKLOADS = ["ior-hard", "random", "btio", "tiles", "restart"]


def load_runs(folder, target, side):
    path = os.path.join(folder, f"runs-{target}-{side}.jsonl")
    if not os.path.exists(path):
        return None
    return [json.loads(line) for line in open(path) if line.strip()]


def median(runs, workload, method):
    v = [r["mib_s"] for r in runs if r["workload"] == workload and r["method"] == method]
    return (statistics.median(v), len(v)) if v else (None, 0)


def table(before, after):
    out = ["| workload | ROMIO before | pfio before | ROMIO after | pfio after | "
           "pfio after / before | ROMIO after / before | A/A before | A/A after | runs |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for w in WORKLOADS:
        rb, _ = median(before, w, "romio")
        pb, nb = median(before, w, "pfio")
        ra, _ = median(after, w, "romio")
        pa, na = median(after, w, "pfio")
        ab, _ = median(before, w, "romio-again")
        aa, _ = median(after, w, "romio-again")
        if None in (rb, pb, ra, pa, ab, aa):
            continue
        out.append(f"| {w} | {rb:.0f} | {pb:.0f} | {ra:.0f} | {pa:.0f} | {pa / pb:.2f} | "
                   f"{ra / rb:.2f} | {ab / rb:.2f} | {aa / ra:.2f} | {nb}+{na} |")
    return out


def main():
    folder, doc = sys.argv[1], sys.argv[2]
    m = json.load(open(os.path.join(folder, "machine.json")))
    calls = m.get("calls", "collective")
    label = m.get("label", "")
    # The folder's name: before-after[-CALLS][-LABEL], as bench.sh before-after made it.
    marker = os.path.basename(os.path.normpath(folder))
    begin, end = f"<!-- {marker} -->", f"<!-- /{marker} -->"
    if calls == "collective":
        title, command = "", ""
        reads = "`MPI_File_read_all`"
    else:
        title, command = calls, f"CALLS={calls} "
        reads = "`MPI_File_read` (independent reads, the same views)"
    if label:
        command = f"LABEL={label} " + command
    heading = "## Before and after: the default paths across a change"
    notes = ([f"{title} reads"] if calls != "collective" else []) + ([label] if label else [])
    if notes:
        heading += f" ({', '.join(notes)})"
    body = [begin, "", heading,
            "",
            f"`{command}bash scripts/bench.sh before-after {m['before']}` (at {m['after']}): "
            f"`pfio-mpibench` with {reads} "
            f"under Open MPI with {m['ranks']} ranks on one {m['file_size']} self-verifying file "
            f"({machine(m)}), the commit before ({m['before']}) and after ({m['after']}) in "
            f"alternated invocations of {m['rounds']} rounds each, methods `romio`, `pfio` (the "
            "default) and `romio-again` alternating within each, every run started with the file "
            "evicted from the page cache, every byte checked; medians of MiB/s over all rounds of "
            "a side, the slowest rank's time from open to the last byte checked. `ROMIO after / "
            "before` and the A/A columns (`romio-again / romio` per side) show how far apart the "
            "machine puts identical code; `pfio after / before` is the change's effect."]
    for target in result_targets(folder):
        before, after = load_runs(folder, target, "before"), load_runs(folder, target, "after")
        if not before or not after:
            continue
        body += ["", target_title(folder, target), ""] + table(before, after)
    body += ["", end]
    replace_section(doc, begin, end, body)


main()
