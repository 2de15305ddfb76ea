#!/usr/bin/python3
"""The report "Before and after: HDF5's default paths" of a change from build/h5-before-after/
(scripts/bench.sh h5-before-after): per target, dataset and pattern
the median MiB/s of pfio-h5bench's default paths (`prefetch`, `prefetch-declared`) on the commit
before and after a change, their after/before, and sec2's after/before: the same code on both
sides, the A/A that says how far apart the machine puts identical runs.

usage: render_h5_before_after.py RESULTS_DIR DOC   (rewrites the lines between the markers; a
folder h5-before-after-NAME has the markers h5-before-after-NAME and NAME in its heading)
"""
import json
import os
import statistics
import sys

from render_common import replace_section, result_targets

METHODS = ["prefetch", "prefetch-declared"]


def load(folder, target, side):
    """{(dataset, pattern, method): [MiB/s]} and the cells in the order first run."""
    path = os.path.join(folder, f"runs-{target}-{side}.jsonl")
    if not os.path.exists(path):
        return None, []
    runs, order = {}, []
    for line in open(path):
        if not line.strip():
            continue
        r = json.loads(line)
        if "dataset" not in r or not r["ok"]:
            continue
        runs.setdefault((r["dataset"], r["pattern"], r["method"]), []).append(r["mib_s"])
        if (r["dataset"], r["pattern"]) not in order:
            order.append((r["dataset"], r["pattern"]))
    return runs, order


def check_counts(runs, target, side, expected):
    """Exits naming the first cell whose runs are not `expected` (pairs x rounds): a side that lost
    an invocation's runs would otherwise be rendered as if it had them all."""
    for cell, values in runs.items():
        if len(values) != expected:
            sys.exit(f"render_h5_before_after.py: {target} {side} {' '.join(cell)}: "
                     f"{len(values)} runs, expected {expected} (pairs x rounds)")


def mib(v):
    return "-" if v is None else f"{v:.0f}" if v >= 100 else f"{v:.1f}"


def rate(runs, cell, method):
    v = runs.get(cell + (method,))
    return statistics.median(v) if v else None


def table(before, after, order, again=None):
    """The table's lines, the sec2 A/A ratios, the change's ratios of every cell and, with an
    `again` side (the commit before run once more), each pfio cell's own A/A (again / before)."""
    head = ("| dataset | pattern | sec2 before | sec2 after | **A/A** (sec2 after / before) | "
            "undeclared before | after | **after / before** | declared before | after | "
            "**after / before** |")
    rule = "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    if again:
        head = ("| dataset | pattern | sec2 before | sec2 after | **A/A** (sec2) | "
                "undeclared before | after | **after / before** | A/A (again / before) | "
                "declared before | after | **after / before** | A/A (again / before) |")
        rule = "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    out = [head, rule]
    aa_all, change_all, own_aa = [], [], []
    for cell in order:
        sb, sa = rate(before, cell, "sec2"), rate(after, cell, "sec2")
        if not sb or not sa:
            continue
        aa_all.append(sa / sb)
        cells = [mib(sb), mib(sa), f"{sa / sb:.2f}"]
        for m in METHODS:
            b, a = rate(before, cell, m), rate(after, cell, m)
            if b and a:
                change_all.append((a / b, cell, m))
            cells += [mib(b), mib(a), f"**{a / b:.2f}**" if a and b else "-"]
            if again:
                g = rate(again, cell, m)
                if b and g:
                    own_aa.append((g / b, cell, m))
                cells.append(f"{g / b:.2f}" if b and g else "-")
        out.append(f"| {cell[0]} | {cell[1]} | " + " | ".join(cells) + " |")
    return out, aa_all, change_all, own_aa


def named(cells):
    return ", ".join(f"{c[0]} {c[1]} {mth} {r:.2f}" for r, c, mth in cells)


def summary(aa, change, own_aa):
    """The lines saying which cells fall outside the A/A spreads."""
    lo, hi = min(aa), max(aa)
    below = [x for x in change if x[0] < lo]
    above = [x for x in change if x[0] > hi]
    line = (f"A/A spread {lo:.2f}-{hi:.2f} (sec2 after / before over the cells); the change's "
            f"cells {min(x[0] for x in change):.2f}-{max(x[0] for x in change):.2f}; below the "
            f"A/A spread: {named(below) or 'none'}; above it: {named(above) or 'none'}.")
    if not own_aa:
        return [line]
    olo, ohi = min(x[0] for x in own_aa), max(x[0] for x in own_aa)
    obelow = [x for x in change if x[0] < olo]
    oabove = [x for x in change if x[0] > ohi]
    return [line, "", f"The pfio paths' own A/A (the commit before run twice, again / before) "
            f"spread {olo:.2f}-{ohi:.2f} over the cells of both methods; the change's cells below "
            f"it: {named(obelow) or 'none'}; above it: {named(oabove) or 'none'}."]


def main():
    folder, doc = sys.argv[1], sys.argv[2]
    m = json.load(open(os.path.join(folder, "machine.json")))
    marker = os.path.basename(os.path.normpath(folder))
    label = marker[len("h5-before-after-"):] if marker.startswith("h5-before-after-") else ""
    begin, end = f"<!-- {marker} -->", f"<!-- /{marker} -->"
    body = [begin, "", "## Before and after: HDF5's default paths" + (f" ({label})" if label else ""),
            "",
            f"`{'LABEL=' + label + ' ' if label else ''}{'AGAIN=1 ' if m.get('again') else ''}"
            f"{'BENCH=after ' if m.get('bench') == 'after' else ''}DATASETS={m['datasets']} "
            f"PATTERNS={m['patterns']} bash scripts/bench.sh h5-before-after "
            f"{m['before']}` (at {m['after']}, {m['date']}): "
            f"`pfio-h5bench` with {m['rows']} x {m['rows']} uint64 datasets "
            f"({m['rows'] * m['rows'] * 8 >> 20} MiB each) on {m['cpu']} ({m['cores']} cores, "
            f"Linux {m['kernel']}, HDF5 {m['hdf5']}), the commit before ({m['before']}) and after "
            f"({m['after']}) in alternated invocations ({m['pairs']} pairs on the disk, "
            f"{m['testbed_pairs']} on the test bed"
            f"{'; each pair a triple, the commit before run once more' if m.get('again') else ''}"
            f"), {m['rounds']} rounds each, methods "
            "alternating within each; every run its own process with the file evicted from the "
            "page cache first and every value checked; medians of MiB/s over all rounds of a "
            "side, from `H5Fopen` to the last value checked. `undeclared`: `prefetch` (the "
            "driver's defaults, its predictions); `declared`: `prefetch-declared` (with "
            "`H5FD_prefetch_declare`). sec2 runs the same code on both sides: its after/before "
            "is the A/A."
            + (" Every side runs the after commit's `pfio-h5bench` (`BENCH=after`), the commit "
               "before's sides with that commit's `libpfio_hdf5` and `libpfio`: only the library "
               "differs between the sides." if m.get("bench") == "after" else "")]
    for target in result_targets(folder):
        before, order = load(folder, target, "before")
        after, _ = load(folder, target, "after")
        again, _ = load(folder, target, "again")
        if not before or not after:
            continue
        pairs = m["pairs"] if target == "disk" else m["testbed_pairs"]
        check_counts(before, target, "before", pairs * m["rounds"])
        check_counts(after, target, "after", pairs * m["rounds"])
        if again:
            check_counts(again, target, "again", pairs * m["rounds"])
        title = "This VM's disk" if target == "disk" else f"The `{target}` test bed"
        lines, aa, change, own_aa = table(before, after, order, again)
        body += ["", f"**{title}**", ""] + lines
        if aa and change:
            body += [""] + summary(aa, change, own_aa)
    body += ["", end]
    replace_section(doc, begin, end, body)


main()
