"""docs/engine-benchmarks.md's single-rank engine sections: pfio-bench runs, their targets, infill,
layouts, Engine 2's CPU per read and the yardstick against fio."""

import glob
import os
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from render_common import GiB, MiB, arg, label, load, median_by, size  # noqa: E402


def pfio_stats_table(doc):
    lines = [
        "| method | budget | hits | misses | stalls | stall s | bytes read / served | requests | windows | memory peak |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    served = doc["file_size"] if doc["workload"] != "strided" else None
    for r in doc["runs"]:
        s = r.get("stats")
        if not s:
            continue
        ratio = s["bytes_read"] / r["bytes"] if r["bytes"] else 0
        lines.append(
            f"| {r['method']} | {size(r['budget'])} | {s['hits']} | {s['misses']} | {s['stalls']} | "
            f"{s['stall_seconds']:.2f} | {ratio:.2f} | {s['requests']} | {s['windows']} | "
            f"{s['memory_peak'] / MiB:.0f} MiB |"
        )
    del served
    return "\n".join(lines)


def command(doc):
    """The pfio-bench command line that produced doc (as scripts/bench.sh benchmarks runs it)."""
    budgets = sorted({r["budget"] for r in doc["runs"] if r.get("budget")})
    methods = list(dict.fromkeys(r["method"] for r in doc["runs"]))
    repeat = sum(1 for r in doc["runs"] if r["method"] == methods[0])
    cmd = (f"pfio-bench --workload {doc['workload']} --file-size {arg(doc['file_size'])} "
           f"--block {arg(doc['block'])} --budget {','.join(arg(b) for b in budgets)}")
    if len(methods) < 6:
        cmd += " --methods " + ",".join(methods)
    if repeat > 1:
        cmd += f" --repeat {repeat}"
    return cmd


def machine(doc):
    m = doc["machine"]
    return (
        f"{m['cpu']}, {m['cores']} cores, {m['mem_total'] / GiB:.1f} GiB RAM, {m['kernel']}; "
        f"data on `{m['device']}` (rotational={m['rotational']}, scheduler `{m['scheduler']}`), "
        f"{m['filesystem']}"
    )


def plot_dense(doc, path):
    file_size = doc["file_size"]
    med = median_by(doc["runs"], lambda r: (r["method"], r.get("budget", 0)))
    naive = med[("naive", 0)][0]
    raw = med.get(("raw-qd32", 0), (None,))[0]
    plt.figure(figsize=(6.4, 4.2))
    for method, marker in (("pfio-pipelined", "o"), ("pfio-batch", "s")):
        pts = sorted((b / file_size, naive / secs) for (m, b), (secs, _) in med.items() if m == method)
        if pts:
            plt.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, label=method)
    if raw:
        plt.axhline(naive / raw, color="grey", linestyle="--", label="raw-qd32 (no plan)")
    plt.ylim(bottom=0)
    plt.xscale("log", base=2)
    plt.xlabel("budget / file size")
    plt.ylabel("speedup over naive (same invocation)")
    plt.title(f"dense, {size(file_size)} file, {size(doc['block'])} blocks")
    plt.grid(True, which="both", alpha=0.3)
    plt.legend()
    plt.tight_layout()
    plt.savefig(path, dpi=110)
    plt.close()


def plot_methods(docs, path):
    fig, axes = plt.subplots(1, len(docs), figsize=(4.2 * len(docs), 4.0), squeeze=False)
    for ax, doc in zip(axes[0], docs):
        med = median_by(doc["runs"], label)
        naive = med["naive"][0]
        names = list(med)
        ax.bar(range(len(names)), [naive / med[n][0] for n in names], color="tab:blue")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels([n.split(" @")[0] for n in names], rotation=40, ha="right")
        ax.set_title(f"{doc['workload']}, {size(doc['file_size'])}")
        ax.set_ylabel("speedup over naive")
        ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def infill_rows(results):
    rows = []
    for path in sorted(glob.glob(os.path.join(results, "infill-*.json"))):
        doc = load(path)
        infill = os.path.basename(path)[len("infill-"):-len(".json")]
        runs = {r["method"]: r for r in doc["runs"]}
        p, raw = runs.get("pfio-pipelined"), runs.get("raw-qd32")
        if not p or not raw:
            continue
        s = p["stats"]
        rows.append((infill, p["seconds"], raw["seconds"] / p["seconds"], s["bytes_read"] / p["bytes"],
                     s["requests"]))
    order = {"0": 0}
    rows.sort(key=lambda r: order.get(r[0], 1) * (int(r[0][:-1]) if r[0] != "0" else 0))
    return rows


def targets(named):
    """The foundation issue's targets, checked against the measured medians."""
    rows = []

    def med(doc, method, budget=None):
        xs = [r["seconds"] for r in doc["runs"] if r["method"] == method
              and (budget is None or r.get("budget") == budget) and r["verified"]]
        return statistics.median(xs) if xs else None

    def row(what, value, goal, ok):
        rows.append(f"| {what} | {value} | {goal} | {'met' if ok else '**not met**'} |")

    if "gather" in named:
        d = named["gather"]
        n, raw, p = med(d, "naive"), med(d, "raw-qd32"), med(d, "pfio-pipelined")
        if n and raw and p:
            row("gather: pfio-pipelined vs naive", f"{n / p:.2f}×", "≥ 4×", n / p >= 4)
            row("gather: pfio-pipelined vs raw-qd32", f"{raw / p * 100:.0f} %", "≥ 80 %", raw / p >= 0.8)
    if "dense-sweep" in named:
        d = named["dense-sweep"]
        half = d["file_size"] // 2
        n, p = med(d, "naive"), med(d, "pfio-pipelined", half)
        if n and p:
            row(f"dense: pfio-pipelined vs naive, budget {size(half)}", f"{n / p:.2f}×", "≥ 8×", n / p >= 8)
    if "seq" in named:
        d = named["seq"]
        n, p = med(d, "naive"), med(d, "pfio-pipelined")
        if n and p:
            row("seq: pfio-pipelined time vs naive (medians)", f"{(p / n - 1) * 100:+.1f} %", "≤ +3 %",
                p <= n * 1.03)
    worst = None
    for d in named.values():
        for r in d["runs"]:
            if r["method"].startswith("pfio") and r.get("budget"):
                over = r["peak_rss_bytes"] - r["budget"]
                worst = over if worst is None else max(worst, over)
    if worst is not None:
        row("peak RSS − budget, worst pfio run", f"{worst / MiB:+.0f} MiB", "≤ +32 MiB", worst <= 32 * MiB)
    if not rows:
        return []
    return ["## Targets of the foundation issue", "",
            "| target | measured | goal | |", "|---|---|---|---|"] + rows + [""]


def layout_rows(results):
    """Emulated striping vs one target on this single device (issue 3: no regression)."""
    docs_l = [(n, os.path.join(results, f"layout-{n}.json")) for n in ("one", "striped")]
    docs_l = [(n, load(p)) for n, p in docs_l if os.path.exists(p)]
    if len(docs_l) < 2:
        return []
    out = ["## Emulated striping on the single device (gather, 1 GiB budget)", "",
           "Two invocations, each with raw-qd32 as the yardstick run interleaved with pfio "
           "(`--repeat 2`, medians). `stripe=1MiB,targets=4` makes pfio split reads at 1 MiB "
           "stripes, queue them per target in rounds and cap each target at queue_depth / 4 reads "
           "in flight; the device underneath is the same one.", "",
           "| layout | pfio-pipelined s | raw-qd32 s | pfio / raw-qd32 time | verified |",
           "|---|---:|---:|---:|---|"]
    for name, doc in docs_l:
        med = median_by(doc["runs"], lambda r: r["method"])
        p, raw = med["pfio-pipelined"][0], med["raw-qd32"][0]
        ok = all(r.get("verified", True) for r in doc["runs"])
        what = "one target" if name == "one" else "stripe=1MiB,targets=4"
        out.append(f"| {what} | {p:.2f} | {raw:.2f} | {p / raw:.2f} | {'yes' if ok else 'NO'} |")
    return out + [""]


def uring_rows(results):
    """pfio-pipelined on io_uring against libaio, gather, alternated (docs/results/uring/)."""
    uring = sorted(glob.glob(os.path.join(results, "uring", "uring-gather-*.json")))
    if not uring:
        return []
    out = ["## io_uring against libaio", "",
           "pfio-pipelined on each backend, gather, same file and settings, two invocations:", "",
           "| run | raw-qd32 s | pfio (aio) s | pfio (uring) s | aio CPU µs/read | uring CPU µs/read |",
           "|---|---:|---:|---:|---:|---:|"]
    for i, path in enumerate(uring, 1):
        by = {r["method"]: r for r in load(path)["runs"]}
        out.append(f"| {i} | {by['raw-qd32']['seconds']:.2f} | {by['pfio-pipelined']['seconds']:.2f} | "
                   f"{by['pfio-uring']['seconds']:.2f} | {by['pfio-pipelined']['cpu_us_per_read']:.2f} | "
                   f"{by['pfio-uring']['cpu_us_per_read']:.2f} |")
    return out + [""]


def yardstick_rows(results):
    """raw-qd32 against fio on the same file, alternated (scripts/bench.sh yardstick)."""
    folder = os.path.join(results, "yardstick")
    raw = sorted(glob.glob(os.path.join(folder, "raw-qd32-*.json")))
    fio = sorted(glob.glob(os.path.join(folder, "fio-*.json")))
    if not raw or not fio:
        return []
    raw_mib = [load(p)["runs"][0]["mib_per_s"] for p in raw]
    fio_mib = [load(p)["jobs"][0]["read"]["bw_bytes"] / MiB for p in fio]
    out = ["## The yardstick against fio", "",
           "`raw-qd32` (libaio, O_DIRECT, depth 32, the gather workload's 4 KiB blocks, every byte "
           "checked) and fio (libaio, O_DIRECT, depth 32, uniform random 4 KiB reads with repeats, "
           "`--norandommap`) on the same 1 GiB file, alternated (`scripts/bench.sh yardstick`):", "",
           "| run | raw-qd32 MiB/s | fio MiB/s | raw-qd32 / fio |", "|---|---:|---:|---:|"]
    for i, (a, b) in enumerate(zip(raw_mib, fio_mib), 1):
        out.append(f"| {i} | {a:.1f} | {b:.1f} | {a / b:.2f} |")
    ra, fb = statistics.median(raw_mib), statistics.median(fio_mib)
    out += [f"| median | {ra:.1f} | {fb:.1f} | {ra / fb:.2f} |", ""]
    return out
