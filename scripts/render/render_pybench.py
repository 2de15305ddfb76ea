#!/usr/bin/python3
"""docs/benchmarks.md's section "Python readers" and docs/pybench.png from docs/results/pybench/
(scripts/bench.sh pybench): per target and workload the median MiB/s of h5py/xarray through
Debian's HDF5 alone (sec2), through pfio with no code change (preload) and with a declared plan,
with the A/A (sec2 again) beside, and what pfio's counters say the reads were.

usage: render_pybench.py RESULTS_DIR DOCS_DIR
"""
import json
import os
import statistics
import sys

from render_common import machine, replace_section, target_title

BEGIN, END = "<!-- pybench -->", "<!-- /pybench -->"
WORKLOADS = {"tiles": "h5py, 256 random 512 KiB tiles", "strips": "h5py, 8 column strips",
             "columns": "h5py, 8 lone column strips (no sweep)",
             "block": "h5py, one call of 16 x 16 chunks",
             "zstrips": "h5py, 8 column strips of gzip-compressed chunks",
             "time": "xarray, 128 time slices",
             "point": "xarray, one point's series over 128 times"}
METHODS = ["sec2", "preload", "declared", "sec2-again"]


def values(runs, target, workload, method, field="mib_s"):
    return [r[field] for r in runs
            if r["target"] == target and r["workload"] == workload and r["method"] == method]


def counters(runs, target, workload, method):
    """Median raw, advised and unplanned reads of pfio's counters for a method's runs."""
    c = [r["counters"] for r in runs if r["target"] == target and r["workload"] == workload
         and r["method"] == method and r.get("counters")]
    if not c:
        return ""
    med = lambda k: int(statistics.median(x.get(k, 0) for x in c))  # noqa: E731
    sweeps = f", {med('sweeps')} column sweeps followed" if med("sweeps") else ""
    plans = ""
    if med("call_plans"):
        plans = f", {med('call_plans')} calls planned"
        if med("calls_ahead_used"):
            plans += f" ({med('calls_ahead_used')} of them ahead)"
    return (f"{med('raw_reads')} raw reads: {med('advised_reads')} advised, "
            f"{med('predicted_extents')} predicted extents, {med('unplanned_reads')} unplanned"
            f"{sweeps}{plans}")


def table(runs, target):
    out = ["| workload | sec2 | pfio, no code change | pfio, declared | no change / sec2 | "
           "declared / sec2 | A/A | runs | pfio's counters (no change; declared) |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for w, what in WORKLOADS.items():
        med = {m: statistics.median(values(runs, target, w, m))
               for m in METHODS if values(runs, target, w, m)}
        if len(med) < len(METHODS):
            continue
        n = len(values(runs, target, w, "sec2"))
        out.append(f"| {w} ({what}) | {med['sec2']:.0f} | {med['preload']:.0f} | "
                   f"{med['declared']:.0f} | {med['preload'] / med['sec2']:.2f} | "
                   f"{med['declared'] / med['sec2']:.2f} | {med['sec2-again'] / med['sec2']:.2f} | "
                   f"{n} | {counters(runs, target, w, 'preload')}; "
                   f"{counters(runs, target, w, 'declared')} |")
    return out


def cpu_table(runs, target):
    """Where the test bed's server shares this machine's cores: each method's time per run beside
    the floor its CPU gives, (reader + server CPU) / cores, medians."""
    names = {"sec2": "sec2", "preload": "no code change", "declared": "declared"}
    head = "| workload |" + "".join(f" {n}: time | {n}: floor |" for n in names.values())
    out = [head, "|---|" + "---:|---:|" * len(names)]
    for w in WORKLOADS:
        cells = []
        for m in names:
            runs_of = [r for r in runs if r["target"] == target and r["workload"] == w
                       and r["method"] == m and r.get("cpu_server") is not None]
            if not runs_of:
                break
            floor = statistics.median((r["cpu_reader"] + r["cpu_server"]) / r["cores"]
                                      for r in runs_of)
            cells.append(f" {statistics.median(r['seconds'] for r in runs_of):.3f} | {floor:.3f} |")
        if len(cells) == len(names):
            out.append(f"| {w} |" + "".join(cells))
    return out if len(out) > 2 else []


def plot(runs, targets, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(targets), figsize=(5.5 * len(targets), 3.6), squeeze=False)
    for ax, target in zip(axes[0], targets):
        width = 0.2
        for i, m in enumerate(METHODS):
            meds = [statistics.median(values(runs, target, w, m) or [0]) for w in WORKLOADS]
            ax.bar([k + (i - 1.5) * width for k in range(len(WORKLOADS))], meds, width, label=m)
        ax.set_xticks(range(len(WORKLOADS)))
        ax.set_xticklabels(list(WORKLOADS))
        ax.set_ylabel("MiB/s (median)")
        ax.set_title("disk" if target == "disk" else f"test bed: {target}")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    folder, docs = sys.argv[1], sys.argv[2]
    m = json.load(open(os.path.join(folder, "machine.json")))
    runs = [json.loads(line) for line in open(os.path.join(folder, "runs.jsonl")) if line.strip()]
    targets = sorted({r["target"] for r in runs}, key=lambda t: (t != "disk", t))
    body = [BEGIN, "", "## Python readers: h5py and xarray, with and without pfio", "",
            f"`bash scripts/bench.sh pybench` (`bench/python/pybench.py`): one "
            f"{m['file_size'] / 2**30:.1f} GiB netCDF-4 file ({machine(m)}; HDF5 {m['hdf5']}, "
            f"h5py {m['h5py']}, xarray {m['xarray']}), 128 MiB read per run, {m['rounds']} rounds, "
            "the four methods in a balanced order (over 4 rounds each runs once at every place and "
            "once right after every other, the runs of a round reading the same chunks), each run "
            "its own Python process "
            "started after a `sync` and the data file's pages were dropped (fincore: 0 bytes "
            "resident before every run; the libraries stay cached, as for a program run again), "
            "every value checked; MiB/s from the open to the last value checked, medians. "
            "`sec2` is Debian's h5py or xarray as they are; `pfio, no code change` the same "
            "program under `LD_PRELOAD=libpfio_hdf5_preload.so`; `pfio, declared` "
            "`pfio.h5.declare` of the tiles, strips or slices before reading them (xarray: "
            "declared through an h5py handle on the same file, under the preload); `A/A` is "
            "`sec2` run again over `sec2`."]
    for target in targets:
        body += ["", target_title(folder, target), ""] + table(runs, target)
        cpu = cpu_table(runs, target)
        if cpu:
            body += ["", f"Time and CPU floor per run on the test bed `{target}`, seconds "
                     "(medians): the floor is the CPU the run took, the reader's (every thread) "
                     "and the test bed server's (nbdkit and nbdfuse, on this machine's cores as a "
                     "storage target on other machines would not be), over the cores. No reader "
                     "here takes less than its floor, whatever it asks of the target.", ""] + cpu
    body += ["", "![Python readers](pybench.png)", "", END]
    plot(runs, targets, os.path.join(docs, "pybench.png"))
    replace_section(os.path.join(docs, "benchmarks.md"), BEGIN, END, body)


main()
