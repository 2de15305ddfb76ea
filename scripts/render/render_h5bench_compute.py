#!/usr/bin/python3
"""docs/benchmarks.md's section "HDF5 on the disk and the test bed, with computation" from
docs/results/h5bench-compute/ (scripts/bench.sh h5bench-compute): per target, dataset and pattern
the median rate of every method alone and its ratio to sec2, then with computation between
reads: the time alone, the computation alone, both, the time inside H5Dread, the overlap, the
share of the reading hidden and the time to solution against sec2's."""
import json
import os
import statistics
import sys

from render_common import replace_section

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "docs", "results", "h5bench-compute")
DOC = os.path.join(ROOT, "docs", "benchmarks.md")
BEGIN, END = "<!-- h5bench-compute -->", "<!-- /h5bench-compute -->"
METHODS = ["sec2", "prefetch", "prefetch-declared", "declared-engine", "sec2-again"]


def load(target):
    path = os.path.join(RESULTS, "runs-%s.jsonl" % target)
    if not os.path.exists(path):
        return None
    runs = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if "dataset" not in r or not r["ok"]:
                continue
            key = (r["dataset"], r["pattern"], r["method"], r["compute_ms"] > 0)
            runs.setdefault(key, []).append(r)
    return runs


def med(rows, field):
    return statistics.median(r[field] for r in rows)


def cells(runs):
    seen = []
    for (d, p, _, _) in runs:
        if (d, p) not in seen:
            seen.append((d, p))
    return seen


def rate_table(runs):
    methods = [m for m in METHODS if any(k[2] == m for k in runs)]
    def ratio_name(m):
        return "A/A (sec2-again / sec2)" if m == "sec2-again" else "%s / sec2" % m

    out = ["| dataset | pattern | " + " | ".join("%s MiB/s" % m for m in methods) + " | " +
           " | ".join(ratio_name(m) for m in methods[1:]) + " |",
           "|---|---|" + "---:|" * (2 * len(methods) - 1)]
    for d, p in cells(runs):
        rate = {m: med(runs[(d, p, m, False)], "mib_s") for m in methods
                if (d, p, m, False) in runs}
        if "sec2" not in rate:
            continue
        out.append("| %s | %s | %s | %s |" % (
            d, p, " | ".join("%.0f" % rate[m] if m in rate else "-" for m in methods),
            " | ".join(("%.2f×" if m == "sec2-again" else "**%.2f×**") % (rate[m] / rate["sec2"])
                       if m in rate else "-" for m in methods[1:])))
    return "\n".join(out)


def compute_table(runs):
    out = ["| dataset | pattern | method | ms per read | alone s | in H5Dread alone s | "
           "compute alone s | both s | in H5Dread s | overlap | reads hidden | both / sec2's |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for d, p in cells(runs):
        alone = runs.get((d, p, "compute-only", True))
        sec2 = runs.get((d, p, "sec2", True))
        if not alone or not sec2:
            continue
        compute = med(alone, "elapsed_s")
        for m in METHODS:
            if m == "sec2-again":  # its time to solution is the range above the table
                continue
            io, both = runs.get((d, p, m, False)), runs.get((d, p, m, True))
            if not io or not both:
                continue
            t_io, t_both, r_io = med(io, "elapsed_s"), med(both, "elapsed_s"), med(io, "read_s")
            saved = t_io + compute - t_both
            out.append("| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | "
                       "%.2f× |" % (d, p, m, med(alone, "compute_ms"), t_io, r_io, compute,
                                    t_both, med(both, "read_s"), saved / min(t_io, compute),
                                    saved / r_io if r_io > 0 else 0,
                                    t_both / med(sec2, "elapsed_s")))
    return "\n".join(out)


def aa_with_compute(runs):
    """sec2-again's time to solution over sec2's, per cell: the A/A of the table with computation."""
    out = []
    for d, p in cells(runs):
        a, b = runs.get((d, p, "sec2-again", True)), runs.get((d, p, "sec2", True))
        if a and b:
            out.append(med(a, "elapsed_s") / med(b, "elapsed_s"))
    return out


def main():
    with open(os.path.join(RESULTS, "machine.json")) as f:
        machine = json.load(f)
    profile = machine["profile"]
    rows = machine["rows"]
    parts = [BEGIN, "", "## HDF5 on the disk and the test bed, with computation", "",
             "`bash scripts/bench.sh h5bench-compute` (%s, %s, %d cores, HDF5 %s): `pfio-h5bench "
             "--compute auto` on one file of %d × %d 64-bit values per dataset (%d MiB each), on "
             "this VM's disk and on the `%s` test bed serving the same file, %d rounds (medians), "
             "methods alternating; every run its own process, the file evicted from the page "
             "cache before it, every value checked. The computation per `H5Dread` is sec2's time "
             "inside `H5Dread` per selection in the same round (a busy loop, not a sleep). "
             "*Alone* runs from `H5Fopen` to the last value checked (declaring and checking "
             "included); *overlap* = (alone + compute alone - both) / the shorter of the two; "
             "*reads hidden* = the same saving / the time inside `H5Dread` alone; `sec2-again` is sec2 "
             "run once more, so that its ratio to sec2 (the A/A) shows the invocation's spread."
             % (machine["date"], machine["cpu"], machine["cores"], machine["hdf5"], rows, rows,
                rows * rows * 8 >> 20, profile, machine["rounds"]), ""]
    fio = os.path.join(RESULTS, "fio-%s.txt" % profile)
    for target in ["disk", profile]:
        runs = load(target)
        if runs is None:
            continue
        title = "This VM's disk" if target == "disk" else "The `%s` test bed" % target
        if target != "disk" and os.path.exists(fio):
            title += " (" + open(fio).read().strip().splitlines()[-1] + ")"
        aa = aa_with_compute(runs)
        parts += ["**%s**: without computation" % title, "", rate_table(runs), "",
                  "With computation between reads%s:" % (
                      " (sec2-again's time to solution, the A/A: %.2f–%.2f× sec2's)"
                      % (min(aa), max(aa)) if aa else ""), "", compute_table(runs), ""]
    parts.append(END)
    replace_section(DOC, BEGIN, END, parts)
    print("render_h5bench_compute: %s updated" % DOC)


if __name__ == "__main__":
    sys.exit(main())
