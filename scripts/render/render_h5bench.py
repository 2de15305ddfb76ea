"""docs/benchmarks.md's pfio-h5bench section: the table, the targets and the plot."""

import json
import os
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from render_common import MiB, device_sentence, fio_sequential, load, load_lines, size_mib  # noqa: E402


H5_DATASETS = [("c8k", "8 KiB chunks"), ("c128k", "128 KiB chunks"), ("c1m", "1 MiB chunks"),
               ("contig", "contiguous")]
H5_PATTERNS = ["tiles", "columns", "rows", "random-points"]
H5_METHODS = ["sec2", "prefetch", "prefetch-declared", "declared-engine", "sec2-cached", "sec2-again"]


def bounds(mib, med, values, seq, rand, budget):
    """What the device and HDF5 itself leave for the targets, counted from the same run."""
    tiles_sec2, tiles_cached = med("c8k", "tiles", "sec2"), med("c8k", "tiles", "sec2-cached")
    declare = values("c8k", "tiles", "prefetch-declared", "declare_s")
    if not (tiles_sec2 and tiles_cached and declare and seq):
        return []
    t_sec2, t_cached = mib / tiles_sec2, mib / tiles_cached
    t_declare, t_pass = statistics.median(declare), mib / max(seq)
    least = t_declare + t_pass + t_cached
    said = [f"a reader in random order can use almost nothing of a pass over the file in file "
            f"order before the pass ends, so the declared random 8 KiB tiles take at least: "
            f"opening and declaring ({t_declare:.3f} s) + one pass over the dataset at the device's best "
            f"sequential rate ({t_pass:.3f} s at {max(seq):.0f} MiB/s) + HDF5's own work on "
            f"chunks in memory (`sec2-cached`, {t_cached:.3f} s) = {least:.3f} s, against "
            f"{t_sec2 / 4:.3f} s for 4× sec2: at most {t_sec2 / least:.2f}× sec2, and that with "
            f"the whole dataset ({mib:.0f} MiB) in memory at once (pfio's budget here: {budget})"]
    if rand:
        t_rand = mib / max(rand.values())
        said[-1] += (f"; reading exactly the declared chunks one at a time at fio's best random "
                     f"8 KiB rate takes {t_rand:.3f} s ({t_sec2 / (t_declare + t_rand):.2f}× sec2 "
                     f"with the declaring; the driver gets past that by joining the neighbouring "
                     f"chunks of each 64 MiB window into larger reads)")
    rows128 = med("c128k", "rows", "sec2")
    if rows128:
        said.append(f"1.5× sec2 on the 128 KiB rows is {1.5 * rows128:.0f} MiB/s, against the "
                    f"device's best sequential rate of {max(seq):.0f} MiB/s")
    for d in ("c8k", "c128k", "c1m"):
        a, b = med(d, "columns", "sec2-cached"), med(d, "columns", "sec2")
        if a and b:
            said.append(f"{d} columns with every byte already in the page cache run at "
                        f"{a / b:.2f}× sec2")
    return ["", "### What the device and HDF5 leave for the targets", "",
            "Counted from this run: " + "; ".join(said) + "."]


def h5bench_rows(results, docs):
    """pfio-h5bench (scripts/bench.sh h5bench): tables, targets and a plot."""
    folder = os.path.join(results, "h5bench")
    lines = load_lines(os.path.join(folder, "runs.jsonl"))
    if lines is None:
        return []
    runs = [r for r in lines if "method" in r]
    lookups = [r for r in lines if "lookup_chunks" in r]
    m = json.load(open(os.path.join(folder, "machine.json")))
    fio = fio_sequential(folder)
    budget = runs[0]["budget"] if runs else "?"
    failed = [r for r in runs if not r["ok"]]

    def values(d, p, k, field="mib_s"):
        return [r[field] for r in runs if r["dataset"] == d and r["pattern"] == p
                and r["method"] == k and r["ok"]]

    def med(d, p, k):
        v = values(d, p, k)
        return statistics.median(v) if v else None

    def rss(d, p, k):
        v = values(d, p, k, "peak_rss_kib")
        return max(v) / 1024 if v else None

    mib = m["rows"] * m["rows"] * 8 / MiB
    methods = len({r["method"] for r in runs if r["method"] != "compute-only"})
    cycle = methods * (2 if methods % 2 else 1)
    out = ["## HDF5 through the driver: pfio-h5bench", "",
           f"`scripts/bench.sh h5bench`"
           + (f" ({m['date']}, at {m['commit']})" if m.get("date") and m.get("commit") else "")
           + f" runs `pfio-h5bench` on one HDF5 file of four {m['rows']} × "
           f"{m['rows']} datasets of 64-bit values ({mib:.0f} MiB each; chunks of 8 KiB, 128 KiB, "
           f"1 MiB, and contiguous) on {m['cpu']}, {m['cores']} cores, {m['mem_gib']} GiB, Linux "
           f"{m['kernel']}, {m.get('device', '?')} {m.get('fs', '')}, HDF5 {m['hdf5']} (Debian's "
           f"libhdf5-openmpi). Every dataset, pattern and method in one invocation, methods "
           f"alternating over {m['rounds']} rounds in the order of a balanced design "
           f"(`bench/common/balanced_order.h`: over {cycle} rounds each method runs once at every "
           f"place and right after every other equally often); "
           f"each run is its own process; the file is "
           f"evicted from the page cache before every run (`fdatasync`, `POSIX_FADV_DONTNEED`, "
           f"`drop_caches`) except for `sec2-cached`; every value read is checked ({len(runs)} "
           f"runs, {len(failed)} failed). Time runs from `H5Fopen` to the last value checked. "
           f"`sec2` is HDF5's default driver through HDF5's own `H5Dread` (the program without "
           f"pfio); `prefetch` is `H5Pset_fapl_prefetch` and nothing else changed, the program "
           f"linked with the driver ahead of HDF5, whose `H5Dread` makes each call of several "
           f"pieces its own plan; `prefetch-declared` adds `H5FD_prefetch_declare` for every selection "
           f"before reading (through the page cache, the default); `declared-engine` the same with "
           f"`engine_min` = 64 KiB (extents of 64 KiB and more through pfio's engine); "
           f"`sec2-cached` is sec2 with the whole file already in the page cache, "
           f"which no driver can beat: it is HDF5's own cost per `H5Dread` on this machine; "
           f"`sec2-again` is sec2 once more, so that `sec2-again / sec2` (the A/A) shows how far "
           f"apart this invocation puts two identical methods. "
           f"pfio's budget: {budget}."]
    seq = [r["seq_mib_s"] for r in lines if "seq_mib_s" in r and r["seq_mib_s"] > 0]
    said = device_sentence(fio, seq, "sequential read (O_DIRECT 8 MiB reads, 4 in flight, into "
                           "buffers on transparent huge pages, after the runs)")
    if said:
        out += ["", said + "."]
    rand = {d: load(os.path.join(folder, f"fio-rand8k-qd{d}.json"))["jobs"][0]["read"]["bw_bytes"]
            / MiB for d in (32, 128) if os.path.exists(os.path.join(folder, f"fio-rand8k-qd{d}.json"))}
    tiles_sec2 = med("c8k", "tiles", "sec2")
    if rand and tiles_sec2:
        best = max(rand.values())
        out[-1] += (" Random 8 KiB reads anywhere in the file (fio, O_DIRECT, libaio, 512 MiB of "
                    "reads, after the runs): " +
                    ", ".join(f"{v:.0f} MiB/s at depth {d}" for d, v in sorted(rand.items())) +
                    f", {best / tiles_sec2:.1f}× sec2's rate on the random 8 KiB tiles (this "
                    "disk's random rate moves by 2× within minutes: read it as an order of "
                    "magnitude, not a bound).")
    out += ["", "Median MiB/s (min–max), and the ratio of medians to sec2 in the same invocation:", "",
            "| dataset | pattern | sec2 | prefetch | declared | declared-engine | prefetch / sec2 | "
            "declared / sec2 | engine / sec2 | A/A (sec2-again / sec2) | sec2-cached | "
            "RSS over sec2 (MiB, engine) |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for d, what in H5_DATASETS:
        for p in H5_PATTERNS:
            if not values(d, p, "sec2"):
                continue
            cells = []
            def num(x):
                return f"{x:.0f}" if x >= 10 else f"{x:.2f}"

            for k in ("sec2", "prefetch", "prefetch-declared", "declared-engine"):
                v = values(d, p, k)
                cells.append(f"{num(statistics.median(v))} ({num(min(v))}–{num(max(v))})" if v else "–")
            base = med(d, p, "sec2")
            for k in ("prefetch", "prefetch-declared", "declared-engine", "sec2-again"):
                x = med(d, p, k)
                cells.append(f"{x / base:.2f}×" if x and base else "–")
            c = med(d, p, "sec2-cached")
            cells.append(f"{c:.0f}" if c else "–")
            a, b = rss(d, p, "declared-engine"), rss(d, p, "sec2")
            cells.append(f"{a - b:.0f}" if a and b else "–")
            out.append(f"| {d} ({what}) | {p} | " + " | ".join(cells) + " |")
    # The targets.
    rows = []

    def target(what, value, goal, ok):
        if value is not None:
            rows.append(f"| {what} | {value} | {goal} | {'met' if ok else '**missed**'} |")

    def ratio(d, p, k):
        a, b = med(d, p, k), med(d, p, "sec2")
        return a / b if a and b else None

    r = ratio("c8k", "tiles", "prefetch-declared")
    target("8 KiB chunks, random tiles, declared / sec2", f"{r:.2f}×" if r else None, "≥ 4×",
           r is not None and r >= 4)
    for d in ("c8k", "c128k", "c1m", "contig"):
        r = ratio(d, "columns", "prefetch")
        target(f"{d} columns, no code change / sec2", f"{r:.2f}×" if r else None, "≥ 1.5×",
               r is not None and r >= 1.5)
    for p in ("tiles", "columns", "rows"):
        r = ratio("c128k", p, "prefetch-declared")
        target(f"128 KiB chunks, {p}, declared / sec2", f"{r:.2f}×" if r else None, "≥ 1.5×",
               r is not None and r >= 1.5)
    slower = []
    for d, _ in H5_DATASETS:
        for p in H5_PATTERNS:
            for k in ("prefetch", "prefetch-declared"):
                r = ratio(d, p, k)
                if r is not None and r < 0.97:
                    aa = ratio(d, p, "sec2-again")
                    slower.append(f"{d} {p} {k} ({r:.2f}×" + (f", A/A {aa:.2f}×" if aa else "") + ")")
    target("patterns more than 3 % slower than sec2", str(len(slower)), "0", not slower)
    budget_mib = size_mib(budget)
    over = []
    for d, _ in H5_DATASETS:
        for p in H5_PATTERNS:
            for k in ("prefetch", "prefetch-declared", "declared-engine"):
                a, b = rss(d, p, k), rss(d, p, "sec2")
                if a and b and budget_mib and a - b > budget_mib + 32:
                    over.append(f"{d} {p} {k} (+{a - b:.0f} MiB)")
    target("peak RSS over sec2's, any run", "worst "
           + (f"{max((rss(d, p, k) or 0) - (rss(d, p, 'sec2') or 0) for d, _ in H5_DATASETS for p in H5_PATTERNS for k in ('prefetch', 'prefetch-declared', 'declared-engine')):.0f} MiB"),
           f"≤ budget + 32 MiB ({budget_mib + 32 if budget_mib else '?'} MiB)", not over)
    same = [(d, p) for d, _ in H5_DATASETS for p in H5_PATTERNS
            if values(d, p, "prefetch") and all(
                r["unplanned"] == r["raw_reads"] and not r.get("sweep_advised")
                and not r.get("chunk_lookups") for r in runs
                if r["dataset"] == d and r["pattern"] == p and r["method"] == "prefetch")]
    if same:
        spread = [ratio(d, p, "prefetch") for d, p in same]
        spread = [x for x in spread if x]
        out += ["", f"Where `prefetch` predicted and advised nothing (every raw read served by "
                f"`pread` as sec2 serves it, no column sweep, no chunk looked up: {', '.join(f'{d} {p}' for d, p in same)}), the two methods make the same "
                f"system calls, so their ratio ({min(spread):.2f}–{max(spread):.2f}×) is this "
                f"machine's run-to-run noise at {m['rounds']} rounds: differences inside that band "
                f"are not measured differences."]
    out += ["", "### Targets", "", "| target | measured | goal | |", "|---|---|---|---|"] + rows
    if slower:
        out += ["", "Slower than sec2 by more than 3 %: " + ", ".join(slower) + "."]
    if over:
        out += ["", "Over the memory bound: " + ", ".join(over) + "."]
    out += bounds(mib, med, values, seq, rand, budget)
    if lookups:
        out += ["", "### Finding chunk addresses", "",
                "Declaring a chunked selection needs each touched chunk's file address. HDF5 1.10's "
                "`H5Dget_chunk_info_by_coord` walks the chunk index up to the chunk; the driver "
                "instead lets `H5Dread_chunk` search the index and records the address of the read "
                "it then makes (without making it). Time per chunk for random chunks of c8k:", "",
                "| chunks looked up | chunks in dataset | H5Dget_chunk_info_by_coord (µs) | "
                "H5FD_prefetch_declare (µs) |", "|---:|---:|---:|---:|"]
        out += [f"| {r['lookup_chunks']} | {r['dataset_chunks']} | {r['by_coord_us']:.0f} | "
                f"{r['declare_us']:.1f} |" for r in lookups]
    # Plot: ratio to sec2 per dataset and pattern, both pfio methods.
    fig, axes = plt.subplots(1, len(H5_DATASETS), figsize=(15, 3.4), sharey=True)
    for ax, (d, what) in zip(axes, H5_DATASETS):
        xs = range(len(H5_PATTERNS))
        for i, (k, label) in enumerate((("prefetch", "prefetch (no code change)"),
                                        ("prefetch-declared", "prefetch, declared"),
                                        ("declared-engine", "declared, pfio's engine"),
                                        ("sec2-cached", "sec2, file cached (ceiling)"))):
            ys = [ratio(d, p, k) or 0 for p in H5_PATTERNS]
            ax.bar([x + (i - 1.5) * 0.2 for x in xs], ys, width=0.2, label=label)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(list(xs))
        ax.set_xticklabels(H5_PATTERNS, fontsize=8)
        ax.set_title(what)
    axes[0].set_ylabel("× sec2 (median)")
    axes[-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(docs, "h5bench.png"), dpi=90)
    plt.close(fig)
    out += ["", "![speed over sec2 by dataset and pattern](h5bench.png)", ""]
    return out
