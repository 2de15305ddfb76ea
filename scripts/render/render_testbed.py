"""docs/benchmarks.md's test-bed section: pfio-mpibench on the disk and on the latency-bound test
bed side by side (scripts/bench.sh mpibench-testbed), the computation-overlap table and the plot."""

import json
import os
import statistics

from render_common import load_lines, page_reporting_note

WORKLOADS = ["ior-hard", "random", "btio", "tiles", "restart"]
STOCK = ("ompio", "romio")


def _median(values):
    return statistics.median(values) if values else None


def _fmt(x, spec=".0f", none="–"):
    return none if x is None else format(x, spec)


def testbed_rows(results, docs):
    folder = os.path.join(results, "testbed")
    machine_path = os.path.join(folder, "machine.json")
    if not os.path.exists(machine_path):
        return []
    m = json.load(open(machine_path))
    targets = []
    runs = {}
    for name in sorted(os.listdir(folder)):
        if name.startswith("runs-") and name.endswith(".jsonl"):
            target = name[len("runs-"):-len(".jsonl")]
            runs[target] = load_lines(os.path.join(folder, name)) or []
            targets.append(target)
    targets.sort(key=lambda t: t != "disk")
    fio = {}
    for t in targets:
        p = os.path.join(folder, f"fio-{t}.json")
        if os.path.exists(p):
            fio[t] = json.load(open(p))

    def pick(target, ranks, workload, method, compute):
        return [r for r in runs[target] if r["ranks"] == ranks and r["workload"] == workload
                and r["method"] == method and (r.get("compute_ms", 0) > 0) == compute]

    def mib(target, ranks, workload, method):
        return _median([r["mib_s"] for r in pick(target, ranks, workload, method, False)])

    def secs(target, ranks, workload, method, compute, field="seconds"):
        return _median([r[field] for r in pick(target, ranks, workload, method, compute)])

    def best_stock(target, ranks, workload):
        v = [x for x in (mib(target, ranks, workload, s) for s in STOCK) if x]
        return max(v) if v else None

    out = ["## Disk and latency-bound test bed: pfio-mpibench", "",
           f"`scripts/bench.sh mpibench-testbed` runs `pfio-mpibench` under Open MPI on one {m['file_size']} "
           f"self-verifying file on this machine's disk ({m['disk']}; {m['cpu']}, {m['cores']} cores, "
           f"{m['mem_gib']} GiB, Linux {m['kernel']}) and on the same file served by the "
           "latency-bound test bed (`scripts/testbed.sh`: nbdkit's delay filter behind nbdfuse, "
           f"nbdkit {m.get('nbdkit', '?')}, libnbd {m.get('nbdfuse', '?')}; "
           "[limits.md](limits.md#the-latency-bound-test-bed) describes it and its limits), in one "
           "invocation. Every run starts with the file evicted from the page cache on every rank "
           "(`fdatasync`, `POSIX_FADV_DONTNEED`, `drop_caches`: the disk file and the served file "
           "alike), every byte read is checked, times are the slowest rank's from open to the last "
           "byte checked. Methods alternate within each round. `pfio / stock` is pfio's median "
           "against the better of `ompio` and `romio`; `A/A` is `romio-again / romio`, two identical "
           "stock methods, the spread of the invocation."]
    for t, f in fio.items():
        out += ["", f"Test bed profile `{t}` ({f['delay_ms']:g} ms per read request, at most "
                f"{f['inflight']} in flight), fio's direct reads at start-up: 4 KiB random QD1 "
                f"{f['qd1-4k']['iops']} IOPS ({f['qd1-4k']['lat_ms']:.2f} ms), QD32 "
                f"{f['qd32-4k']['iops']} IOPS; 1 MiB sequential QD1 {f['qd1-1m']['mib_s']:.0f} "
                f"MiB/s, QD16 {f['qd16-1m']['mib_s']:.0f} MiB/s."]
    if len(targets) == 1:
        out += ["", "The test bed could not run on the machine of this invocation (no FUSE): the "
                "disk alone."]
    out += page_reporting_note(m)
    rank_counts = sorted({r["ranks"] for t in targets for r in runs[t]})

    def rounds_at(ranks):
        return max((r["round"] for t in targets for r in runs[t] if r["ranks"] == ranks),
                   default=0)

    # The rank count run for most rounds (4 in the script) gets the full table; the others share
    # one table of ratios, each cell pfio / stock with the A/A in brackets (the JSON has them all).
    full = max(rank_counts, key=lambda n: (rounds_at(n), n == 4)) if rank_counts else None
    others = [n for n in rank_counts if n != full]
    if others:
        out += ["", "### Collective reads at " + ", ".join(str(n) for n in others)
                + f" rank{'s' if others[-1] > 1 else ''}: pfio / stock (A/A)", "",
                ("Single runs" if all(rounds_at(n) == 1 for n in others) else "Medians over "
                 + ", ".join(f"{rounds_at(n)} round{'s' if rounds_at(n) > 1 else ''} at {n}"
                             for n in others))
                + f", each row's methods alternating; the full table at {full} ranks below.", "",
                "| workload | " + " | ".join(f"{n} rank{'s' if n > 1 else ''}, {t}"
                                           for n in others for t in targets) + " |",
                "|---|" + "---:|" * (len(others) * len(targets))]
        for w in WORKLOADS:
            cells = []
            for n in others:
                for t in targets:
                    s_, p = best_stock(t, n, w), mib(t, n, w, "pfio")
                    a, b = mib(t, n, w, "romio-again"), mib(t, n, w, "romio")
                    cell = f"{p / s_:.2f}×" if p and s_ else "–"
                    if a and b:
                        cell += f" ({a / b:.2f}×)"
                    cells.append(cell)
            out.append(f"| {w} | " + " | ".join(cells) + " |")
    for ranks in [full] if full is not None else []:
        nrounds = rounds_at(ranks)
        out += ["", f"### {ranks} rank{'s' if ranks > 1 else ''}, collective reads "
                f"(median MiB/s over {nrounds} round{'s' if nrounds > 1 else ''})", ""]
        seq = {t: _median([r["mib_s"] for r in runs[t] if r["ranks"] == ranks
                            and r["method"] == "seq"]) for t in targets}
        head = "| workload |"
        rule = "|---|"
        for t in targets:
            head += f" {t}: stock | {t}: pfio | {t}: pfio-engine | {t}: pfio / stock | {t}: A/A |"
            rule += "---:|---:|---:|---:|---:|"
            if seq[t]:
                head += f" {t}: stock / seq | {t}: pfio / seq |"
                rule += "---:|---:|"
        out += [head, rule]
        for w in WORKLOADS:
            if not any(mib(t, ranks, w, m) for t in targets for m in ("pfio", "romio", "ompio")):
                continue
            row = f"| {w} |"
            for t in targets:
                s, p, e = best_stock(t, ranks, w), mib(t, ranks, w, "pfio"), mib(t, ranks, w, "pfio-engine")
                a, b = mib(t, ranks, w, "romio-again"), mib(t, ranks, w, "romio")
                ratio = f"**{p / s:.2f}×**" if p and s else "–"
                aa = f"{a / b:.2f}×" if a and b else "–"
                row += f" {_fmt(s)} | {_fmt(p)} | {_fmt(e)} | {ratio} | {aa} |"
                if seq[t]:
                    row += f" {_fmt(s and s / seq[t], '.2f')} | {_fmt(p and p / seq[t], '.2f')} |"
            out.append(row)
        if any(seq.values()):
            out += ["", "`seq`: the same file read from one reader (rank 0, O_DIRECT 8 MiB reads, 4 in "
                    "flight) while the other ranks wait in a barrier, in the same invocation: "
                    + ", ".join(f"{t} {v:.0f} MiB/s" for t, v in seq.items() if v) + "."]
        busy = {t: {k: _median([r["node_busy"] for r in runs[t] if r["ranks"] == ranks
                                and r.get("node_busy", -1) >= 0 and not r.get("compute_ms")
                                and (r["method"] in STOCK if k == "stock" else r["method"] == k)])
                    for k in ("stock", "pfio", "seq")} for t in targets}
        if any(v for b in busy.values() for v in b.values()):
            out += ["", "The node's CPUs busy during a run (median share of both cores' time, "
                    "`/proc/stat`): " + "; ".join(
                        f"{t} " + ", ".join(f"{k} {v:.0%}" for k, v in b.items() if v is not None)
                        for t, b in busy.items()) + "."]
    # Computation between reads.
    comp = [(t, ranks) for t in targets for ranks in rank_counts
            if any(r.get("compute_ms", 0) > 0 for r in runs[t] if r["ranks"] == ranks)]
    if comp and not m.get("compute_all_ranks"):
        out += ["", "### Computation between reads (time to solution)", "",
                "Not shown for this invocation: its `--compute auto` gave the computation to rank 0 "
                "only (fixed since; [limits.md](limits.md#computation-between-reads-on-2-cores) has "
                "a run after the fix)."]
    elif comp:
        out += ["", "### Computation between reads (time to solution)", "",
                "Each rank runs a calibrated busy loop after every call (a fixed amount of "
                "arithmetic, not a sleep), worth "
                + ("stock ROMIO's read time per call in the same round" if m.get("compute") == "auto"
                   else f"{m.get('compute')} ms per call")
                + ". `io` is the method's time without the computation, `compute` the computation "
                "alone (the same calls, no I/O), `total` the time to solution with both, `in reads` "
                "the time inside the read calls then; overlap = (io + compute − total) / min(io, "
                "compute): 1 hides the shorter entirely, 0 not at all. `total / stock` is against the "
                "better stock total. Medians of the slowest rank's seconds.", "",
                "| target | ranks | workload | ms / call | method | io s | compute s | total s | "
                "in reads s | overlap | total / stock |",
                "|---|---:|---|---:|---|---:|---:|---:|---:|---:|---:|"]
        for t, ranks in comp:
            for w in WORKLOADS:
                c = secs(t, ranks, w, "compute-only", True)
                ms = secs(t, ranks, w, "compute-only", True, "compute_ms")
                if c is None:
                    continue
                totals = {meth: secs(t, ranks, w, meth, True) for meth in
                          ("ompio", "romio", "pfio", "pfio-engine")}
                stock = [totals[s] for s in STOCK if totals[s]]
                best = min(stock) if stock else None
                for meth in ("ompio", "romio", "pfio", "pfio-engine"):
                    io, tot = secs(t, ranks, w, meth, False), totals[meth]
                    if io is None or tot is None:
                        continue
                    inr = secs(t, ranks, w, meth, True, "in_calls")
                    ov = (io + c - tot) / min(io, c) if min(io, c) > 0 else None
                    rel = f"{tot / best:.2f}×" if best else "–"
                    if meth.startswith("pfio") and best:
                        rel = f"**{rel}**"
                    out.append(f"| {t} | {ranks} | {w} | {ms:.1f} | {meth} | {io:.2f} | {c:.2f} | "
                               f"{tot:.2f} | {inr:.2f} | {_fmt(ov, '.2f')} | {rel} |")
    # Plot: pfio / best stock per workload, disk against the test bed, at the first rank count
    # with every target.
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        ranks = 4 if 4 in rank_counts else rank_counts[0]
        fig, ax = plt.subplots(figsize=(8, 3.4))
        width = 0.8 / len(targets)
        for i, t in enumerate(targets):
            vals = []
            for w in WORKLOADS:
                s, p = best_stock(t, ranks, w), mib(t, ranks, w, "pfio")
                vals.append(p / s if p and s else 0)
            ax.bar([x + i * width for x in range(len(WORKLOADS))], vals, width, label=t)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks([x + width * (len(targets) - 1) / 2 for x in range(len(WORKLOADS))])
        ax.set_xticklabels(WORKLOADS)
        ax.set_ylabel("pfio / better stock")
        ax.set_title(f"pfio against stock MPI-IO, {ranks} ranks, disk and test bed")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(docs, "testbed.png"), dpi=90)
        plt.close(fig)
        out += ["", "![pfio against the better stock driver, disk and test bed](testbed.png)"]
    except ImportError:
        out += ["", "(matplotlib is missing: no plot)"]
    out.append("")
    return out
