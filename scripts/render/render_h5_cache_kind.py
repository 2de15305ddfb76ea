#!/usr/bin/python3
"""docs/engine-benchmarks.md's section "HDF5 through the engine's page-cache kind" from
docs/results/h5-cache-kind/ (scripts/bench.sh h5-cache-kind): per target, dataset and pattern the
median rate of sec2, of the HDF5 driver's own page-cache path (undeclared and declared) and of
the same reads through the engine's page-cache buffer kind, and the engine's kind over the
driver's path."""
import json
import os
import statistics

from render_common import replace_section

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "docs", "results", "h5-cache-kind")
DOC = os.path.join(ROOT, "docs", "engine-benchmarks.md")
BEGIN, END = "<!-- h5-cache-kind -->", "<!-- /h5-cache-kind -->"
PAIRS = [("prefetch", "prefetch-cache-kind"), ("prefetch-declared", "declared-cache-kind")]


def load(target):
    path = os.path.join(RESULTS, "runs-%s.jsonl" % target)
    if not os.path.exists(path):
        return None
    runs, order = {}, []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if "dataset" not in r or not r["ok"] or r.get("compute_ms", 0) > 0:
                continue
            runs.setdefault((r["dataset"], r["pattern"], r["method"]), []).append(r["mib_s"])
            if (r["dataset"], r["pattern"]) not in order:
                order.append((r["dataset"], r["pattern"]))
    return runs, order


def table(runs, order):
    out = ["| dataset | pattern | sec2 | driver, undeclared | engine kind, undeclared | "
           "engine / driver | driver, declared | engine kind, declared | engine / driver |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for d, p in order:
        def rate(m):
            v = runs.get((d, p, m))
            return statistics.median(v) if v else None
        cells = ["%.0f" % rate("sec2") if rate("sec2") else "-"]
        for own, kind in PAIRS:
            a, b = rate(own), rate(kind)
            cells += ["%.0f" % a if a else "-", "%.0f" % b if b else "-",
                      "**%.2f×**" % (b / a) if a and b else "-"]
        out.append("| %s | %s | %s |" % (d, p, " | ".join(cells)))
    return out


def main():
    m = json.load(open(os.path.join(RESULTS, "machine.json")))
    body = [BEGIN, "", "## HDF5 through the engine's page-cache kind", "",
            "`bash scripts/bench.sh h5-cache-kind` (%s, at %s): `pfio-h5bench` with %d x %d "
            "uint64 datasets (%d MiB each) on %s (%d cores, Linux %s, HDF5 %s), %s "
            "per target, %d rounds each, methods alternating, every run its own process with the file "
            "evicted first and every value checked; medians of MiB/s from `H5Fopen` to the last "
            "value checked. `driver`: the HDF5 driver's default (`engine_min = never`: its own "
            "page-cache path: it chooses the advice, which its pfio context's advice thread "
            "gives); `engine kind`: the same program with `engine_min = 0` and `buffer = cache`, "
            "every planned byte planned and advised by the engine's page-cache buffer kind (the "
            "driver reading the bytes itself, `pfio_read_done`), where Engine 3 moves the "
            "driver's default. "
            "Undeclared reads are predicted; declared ones use `H5FD_prefetch_declare`." % (
                m["date"], m["commit"], m["rows"], m["rows"], m["rows"] * m["rows"] * 8 >> 20,
                m["cpu"], m["cores"], m["kernel"], m["hdf5"],
                "one invocation" if m.get("invocations", 1) == 1
                else "%d invocations in a row" % m["invocations"], m["rounds"])]
    for target in ("disk", m["profile"]):
        loaded = load(target)
        if loaded is None:
            continue
        title = "This VM's disk" if target == "disk" else "The `%s` test bed" % target
        fio = os.path.join(RESULTS, "fio-%s.txt" % target)
        if os.path.exists(fio):
            title += " (" + " ".join(open(fio).read().split()) + ")"
        body += ["", "**%s**" % title, ""] + table(*loaded)
    body += ["", END]
    replace_section(DOC, BEGIN, END, body)


main()
