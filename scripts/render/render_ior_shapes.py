#!/usr/bin/python3
"""docs/small-calls.md's tables of the field's call shapes from pfio-mpibench's JSON lines:
"IOR's calls" (scripts/bench.sh ior-shapes: per device, MPI, ranks and calls, the median MiB/s of
stock ROMIO, pfio's driver and stock ROMIO again (the A/A), how many calls pfio's driver gave to
ROMIO's path and how many collective calls it read alone) and "Many small files"
(scripts/bench.sh small-files: the same medians, and each file's open and close in ms); each
with a plot of pfio / ROMIO per row, the A/A beside it (docs/ior-shapes.png, small-files.png).

usage: render_ior_shapes.py RESULTS_DIR DOCS_DIR [ior-shapes|small-files ...]  (default: both)"""
import glob
import json
import os
import statistics
import sys

from render_common import load_lines, page_reporting_note, replace_section, size_mib

WHERE = {"hot": "page cache hot", "disk": "disk"}


def groups_of(folder):
    """Runs by (device, MPI, ranks, calls), the page cache hot first, Open MPI first."""
    groups = {}
    names = sorted(n for n in os.listdir(folder) if n.startswith("runs-") and n.endswith(".jsonl"))
    for name in names:
        where, mpi = name[len("runs-"):-len(".jsonl")].rsplit("-", 1)
        for run in load_lines(os.path.join(folder, name)) or []:
            key = (mpi != "openmpi", where != "hot", where != "disk", where, mpi, -run["ranks"],
                   run["calls"] != "collective", run["calls"])
            groups.setdefault(key, []).append(run)
    for key in sorted(groups):
        by = {}
        for run in groups[key]:
            by.setdefault(run["method"], []).append(run)
        if {"romio", "pfio", "romio-again"} <= by.keys():
            yield key[3], key[4], -key[5], key[7], by


def ratios(folder):
    """Per row: its label, pfio / romio and romio-again / romio (medians)."""
    out = []
    for where, mpi, ranks, calls, by in groups_of(folder):
        med = {m: statistics.median(r["mib_s"] for r in v) for m, v in by.items()}
        device = WHERE.get(where, f"test bed {where}")
        label = f"{'MPICH, ' if mpi == 'mpich' else ''}{device}, {ranks} ranks, {calls}"
        out.append((label, med["pfio"] / med["romio"], med["romio-again"] / med["romio"]))
    return out


def plot(rows, title, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    top = 1.5  # ratios beyond it are drawn to it and written out
    fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(rows) + 1.2))
    y = list(range(len(rows)))[::-1]
    ax.barh(y, [min(r[1], top) for r in rows], height=0.6, color="#4c72b0",
            label="pfio / stock ROMIO")
    ax.plot([min(r[2], top) for r in rows], y, "o", color="#dd8452",
            label="A/A: ROMIO again / ROMIO")
    for yy, r in zip(y, rows):
        if r[1] > top:
            ax.text(top - 0.02, yy, f"{r[1]:.0f}×", ha="right", va="center", color="white",
                    fontsize=7)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.axvline(0.97, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlim(0, top)
    ax.set_yticks(y)
    ax.set_yticklabels([r[0] for r in rows], fontsize=7)
    ax.set_xlabel("ratio of medians (dashed: 0.97)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def first_cells(where, mpi, ranks, calls, by):
    """The row's cells up to the A/A, and the medians."""
    med = {m: statistics.median(r["mib_s"] for r in v) for m, v in by.items()}
    device = WHERE.get(where, f"test bed `{where}`")
    if mpi == "mpich":
        device = "MPICH, " + device
    ratio = med["pfio"] / med["romio"]
    cell = f"{ratio:.2f}×"
    if ratio < 0.97 and ratio < med["romio-again"] / med["romio"]:
        cell = f"**{cell}**"
    return (f"| {device} | {ranks} | {calls} | {med['romio']:,.0f} | {med['pfio']:,.0f} | "
            f"{med['romio-again']:,.0f} | {cell} | {med['romio-again'] / med['romio']:.2f}× |")


def ior_rows(folder):
    out = []
    for where, mpi, ranks, calls, by in groups_of(folder):
        pfio = by["pfio"]
        to_romio = statistics.median(r["to_romio"] for r in pfio)
        judged = statistics.median(r["judged"] for r in pfio)
        unit = "calls" if calls == "collective" else "reads"
        alone = statistics.median(r.get("alone", -1) for r in pfio)
        if alone > 0:
            unit += f", {alone:,.0f} read alone"
        out.append(first_cells(where, mpi, ranks, calls, by) +
                   f" {to_romio:,.0f} of {judged:,.0f} {unit} |")
    return out


def small_rows(folder, files):
    out = []
    for where, mpi, ranks, calls, by in groups_of(folder):
        def per_file(method):  # ms per file in MPI_File_open and MPI_File_close, the slowest rank
            return statistics.median((r["open_s"] + r["close_s"]) * 1000 / files for r in by[method])
        out.append(first_cells(where, mpi, ranks, calls, by) +
                   f" {per_file('romio'):.2f} | {per_file('pfio'):.2f} |")
    return out


def machine_line(m, command, what):
    return (f"`{command}` ({m['date']}, {m['commit']}; {m['cpu']}, {m['cores']} cores, "
            f"{m['mem_gib']} GiB; Open MPI {m['openmpi']}" +
            (f", MPICH {m['mpich']}" if m.get("mpich") else "") + f"): {what}, medians of "
            f"{m['rounds']} rounds, methods alternating, every byte checked; page cache hot (read "
            "when the file was made) or evicted before every run; each row an invocation of its "
            "own. Bold: below 0.97× and below the A/A.")


def ior_shapes(results, docs):
    folder = os.path.join(results, "ior-shapes")
    m = json.load(open(os.path.join(folder, "machine.json")))
    body = ["<!-- ior-shapes -->", "",
            machine_line(m, "scripts/bench.sh ior-shapes",
                         f"{m['file_size']} file, blocks of 47,008 bytes, one per rank per call "
                         "at explicit offsets"), ""]
    for path in sorted(glob.glob(os.path.join(folder, "fio-*.txt"))):  # the test bed's, if it ran
        body += ["The test bed at the start (fio): " + " ".join(open(path).read().split()), ""]
    body += ["| device | ranks | calls | romio | pfio | romio-again | pfio / romio | A/A | "
             "pfio's driver gave ROMIO (read alone: collective calls each rank read by itself) |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    body += ior_rows(folder) + page_reporting_note(m)
    plot(ratios(folder), "IOR's calls: one block per rank per call", os.path.join(docs, "ior-shapes.png"))
    body += ["", "![pfio / stock ROMIO per row of the table, the A/A beside](ior-shapes.png)", "",
             "<!-- /ior-shapes -->"]
    replace_section(os.path.join(docs, "small-calls.md"), body[0], body[-1], body)
    print("wrote docs/small-calls.md (IOR's calls)")


def small_files(results, docs):
    folder = os.path.join(results, "small-files")
    m = json.load(open(os.path.join(folder, "machine.json")))
    small = m["small_file"]
    files = min(int(size_mib(m["file_size"]) // size_mib(small)), 256)  # as pfio-mpibench counts
    body = ["<!-- small-files -->", "",
            machine_line(m, "scripts/bench.sh small-files",
                         f"{files} files of {small} (each opened, read whole and closed), blocks "
                         "of 47,008 bytes, one per rank per call at explicit offsets"), "",
            "| device | ranks | calls | romio | pfio | romio-again | pfio / romio | A/A | "
            "open + close per file, romio (ms) | pfio (ms) |",
            "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    body += small_rows(folder, files) + page_reporting_note(m)
    plot(ratios(folder), f"{files} files of {small}, each opened, read and closed",
         os.path.join(docs, "small-files.png"))
    body += ["", "![pfio / stock ROMIO per row of the table, the A/A beside](small-files.png)", "",
             "<!-- /small-files -->"]
    replace_section(os.path.join(docs, "small-calls.md"), body[0], body[-1], body)
    print("wrote docs/small-calls.md (many small files)")


def main():
    results, docs = sys.argv[1], sys.argv[2]
    for which in sys.argv[3:] or ["ior-shapes", "small-files"]:
        if not os.path.isdir(os.path.join(results, which)):
            continue
        {"ior-shapes": ior_shapes, "small-files": small_files}[which](results, docs)


if __name__ == "__main__":
    main()
