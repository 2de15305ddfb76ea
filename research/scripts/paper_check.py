"""The simulator against the papers' own numbers, cell by cell (part of research/simulations.md).

Reads the transcribed tables in research/papers/ and the pfio-sim results in research/results/, and
returns Markdown lines: for each table cell the paper's value, the simulated one and the error,
with the mean and worst absolute error per table. Used by research/scripts/render_simulations.py."""
import json
import os

# Barve's measured tables: which simulator parameter set and which disk counts.
BARVE = (("table4", "wren", "Wren / Sun Sparc-20"),
         ("table5", "barracuda", "Barracuda / DEC Alpha"),
         ("table6", "cheetah", "Cheetah / Sun Ultra-1"))
# research/scripts/fit_barve.py fits each platform's unpublished constants on the rows D = 2 and 4 of its
# table; the other rows are the check.
BARVE_CHECK_DISKS = {"wren": (7,), "barracuda": (3,), "cheetah": (3,)}


def _err(sim, paper):
    return 100.0 * (sim - paper) / paper


def _summary(errs):
    if not errs:
        return "no cells"
    worst = max(errs, key=abs)
    return f"mean |error| {sum(abs(e) for e in errs) / len(errs):.1f} %, worst {worst:+.1f} %"


def barve_lines(results, papers):
    path = os.path.join(papers, "barve-tables.json")
    if not os.path.exists(path):
        return []
    tables = json.load(open(path))
    out = ["## Against Barve's measured tables (4, 5, 6)", "",
           "The paper's MB/s (transcribed in [papers/barve-tables.json](papers/barve-tables.json)) "
           "beside `pfio-sim barve-pipeline` for the same disk, disk count and block size; error = "
           "(simulated − paper) / paper. The gain is pipelined over naive, in %. The simulator "
           "counts MB as 10^6 bytes; the paper does not say which it uses (2^20 would move every "
           "paper value up by 4.9 %).", "",
           "The disks' published constants (rpm, geometry, surface rate, average seek) are Barve's "
           "Table 2. What the paper does not publish (the bus's sustained rate, a command's bus "
           "time, the host's cost of a LoadIntoDiskBuffer, and, bounded by what Table 2 says, the "
           "seek and head rate the host saw) is fitted by `research/scripts/fit_barve.py` on the rows with "
           "D = 2 and 4 of each table, 16–128 KB, and checked on the rows it did not see (D = 3; "
           "Wren: D = 7). The Sparc-20's LoadIntoDiskBuffer cost is not fitted: Barve §5 measured "
           "it (2.1–2.3 ms; 2.2 used). Fitted values, beside the published ones where there are "
           "some: Wren bus 3.18 MB/s (nominal 5), command 0.93 ms, seek 16.7 ms (15); Barracuda "
           "bus 20 MB/s (20), command 0.12 ms, seek 8.94 ms (9.4), head rate 8.03 MB/s (measured "
           "6.25, track geometry 10.0), LoadIntoDiskBuffer 1.56 ms; Cheetah bus 16.7 MB/s (20), "
           "command 0.34 ms, seek 7.70 ms (7.7), head rate 13.2 MB/s (13.2), LoadIntoDiskBuffer "
           "0.38 ms (the paper: the Ultra-1 \"reduces the overhead sufficiently\").", ""]
    unseen = []  # (title, kb, disks, naive error, pipelined error, gain paper, gain sim)
    for key, params, title in BARVE:
        simp = os.path.join(results, f"barve-pipeline-{params}.json")
        if not os.path.exists(simp):
            continue
        sim = {(r["disks"], r["block"] // 1024): r for r in json.load(open(simp))["rows"]}
        tab = tables[key]
        out += [f"### Table {tab['table']}: {title}", "",
                "| KB | D | naive paper | naive sim | error | pipelined paper | pipelined sim | error "
                "| gain paper | gain sim |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        naive_errs, pipe_errs, sign_agree, cells = [], [], 0, 0
        in_range, check, gain_gaps = [], [], []
        for kb, row in tab["rows"].items():
            for d, cell in row.items():
                disks = int(d.split("=")[1])
                s = sim.get((disks, int(kb)))
                if s is None:
                    continue
                cells += 1
                en = _err(s["naive_mb_s"], cell["naive"])
                ep = _err(s["pipelined_mb_s"], cell["pipeline"])
                gain = 100.0 * (s["pipelined_mb_s"] / s["naive_mb_s"] - 1)
                naive_errs.append(en)
                pipe_errs.append(ep)
                if int(kb) >= 16:
                    in_range += [en, ep]
                    gain_gaps.append(gain - cell["percent"])
                    if disks in BARVE_CHECK_DISKS[params]:
                        check += [en, ep]
                if disks in BARVE_CHECK_DISKS[params]:
                    unseen.append((title, int(kb), disks, en, ep, cell["percent"], gain))
                # the sign of the gain agrees, or both are within 2 points of zero
                if (gain > 0) == (cell["percent"] > 0) or (abs(gain) < 2 and abs(cell["percent"]) < 2):
                    sign_agree += 1
                out.append(f"| {kb} | {disks} | {cell['naive']:.2f} | {s['naive_mb_s']:.2f} | "
                           f"{en:+.0f} % | {cell['pipeline']:.2f} | {s['pipelined_mb_s']:.2f} | "
                           f"{ep:+.0f} % | {cell['percent']:+d} | {gain:+.0f} |")
        worst_gap = max(gain_gaps, key=abs) if gain_gaps else 0.0
        out += ["", f"All cells, naive: {_summary(naive_errs)}; pipelined: {_summary(pipe_errs)}. "
                f"16–128 KB (the range of the 12 % target), naive and pipelined: "
                f"{_summary(in_range)}; of which the check rows (D = "
                f"{', '.join(str(d) for d in BARVE_CHECK_DISKS[params])}, not used by the fit): "
                f"{_summary(check)}. Sign of the gain as measured (or both within ±2): {sign_agree} "
                f"of {cells} cells; gain minus measured gain, 16–128 KB: mean "
                f"{sum(abs(g) for g in gain_gaps) / max(1, len(gain_gaps)):.1f} points, worst "
                f"{worst_gap:+.0f}.", ""]
    return out + _barve_unseen(unseen)


def _barve_unseen(unseen):
    """The rows the fit did not see, apart: the only independent check of the fitted constants
    (the rows D = 2 and 4 are the ones the constants were fitted on)."""
    if not unseen:
        return []
    out = ["### The rows the fit did not see", "",
           "The fitted constants come from the rows D = 2 and 4 of the same tables, so agreement "
           "on those rows is partly built in. These are the rows left out of the fit (every block "
           "size, 8 KB included):", "",
           "| table | KB | D | naive error | pipelined error | gain paper | gain sim | gain's sign |",
           "|---|---:|---:|---:|---:|---:|---:|---|"]
    wrong = {}
    for title, kb, disks, en, ep, gp, gs in sorted(unseen):
        agree = (gs > 0) == (gp > 0) or (abs(gs) < 2 and abs(gp) < 2)
        wrong.setdefault((title, disks), [0, 0])
        wrong[(title, disks)][1] += 1
        if not agree:
            wrong[(title, disks)][0] += 1
        out.append(f"| {title} | {kb} | {disks} | {en:+.1f} % | {ep:+.1f} % | {gp:+d} | {gs:+.0f} | "
                   f"{'as measured' if agree else '**wrong**'} |")
    errs = [e for u in unseen for e in (u[3], u[4])]
    out += ["", f"All unseen cells, naive and pipelined: {_summary(errs)}. The pipelining gain has "
            "the wrong sign (neither both within ±2) in: " +
            "; ".join(f"{t} D = {d}: {w} of {n} block sizes" for (t, d), (w, n) in sorted(wrong.items())) +
            ".", ""]
    return out


def kimbrel_lines(results, papers):
    path = os.path.join(papers, "kimbrel-tables.json")
    if not os.path.exists(path):
        return []
    kim = json.load(open(path))
    t2 = kim["table2_elapsed_seconds"]["synth"]
    rows, errs, cmu_errs, spread, sim_runs = [], [], [], [], {}
    for disks, row in sorted(t2.items(), key=lambda kv: int(kv[0])):
        simp = os.path.join(results, f"kimbrel-synth-{disks}.json")
        if not os.path.exists(simp):
            continue
        runs = {r["policy"]: r for r in json.load(open(simp))["runs"]}
        sim_runs[int(disks)] = runs
        for pol, name in (("fixed_horizon", "fixed-horizon"), ("aggressive", "aggressive")):
            if name not in runs:
                continue
            paper = row["UW"][pol]
            sim = runs[name]["elapsed_s"]
            errs.append(_err(sim, paper))
            cmu_errs.append(_err(sim, row["CMU"][pol]))
            spread.append(abs(_err(row["CMU"][pol], paper)))
            rows.append(f"| {disks} | {name} | {paper:.1f} | {row['CMU'][pol]:.1f} | {sim:.1f} | "
                        f"{_err(sim, paper):+.0f} % |")
    if not rows:
        return []

    def crossover(elapsed):  # the fewest disks at which fixed horizon beats aggressive
        wins = [d for d in sorted(elapsed) if elapsed[d][0] < elapsed[d][1]]
        return wins[0] if wins else None
    paper_x = crossover({int(d): (r["UW"]["fixed_horizon"], r["UW"]["aggressive"])
                         for d, r in t2.items()})
    sim_x = crossover({d: (r["fixed-horizon"]["elapsed_s"], r["aggressive"]["elapsed_s"])
                       for d, r in sim_runs.items()})
    summary = (f"{_summary(errs)} (against the CMU simulator: {_summary(cmu_errs)}; the paper's two "
               f"simulators differ by up to {max(spread):.1f} % on the same cell). Fixed horizon "
               f"first beats aggressive at {sim_x} disks here, at "
               f"{paper_x} in the paper.")
    return ["## Against Kimbrel's Table 2 (synth)", "",
            "Elapsed seconds of the synth trace in the paper's two disk-accurate simulators "
            "([papers/kimbrel-tables.json](papers/kimbrel-tables.json)) beside pfio's unit-time "
            "model at its defaults (`pfio-sim kimbrel --workload synth`: F = 8 units = 4 ms per "
            "fetch); error against the UW simulator, whose results the paper reports.", "",
            "| disks | policy | UW (paper) | CMU (paper) | pfio-sim | error |",
            "|---:|---|---:|---:|---:|---:|"] + rows + ["", summary, ""] + \
        _kimbrel_fetch_time(results, t2) + _kimbrel_fetches(kim, sim_runs)


def _kimbrel_fetch_time(results, t2):
    """Table 2 again at each fetch time the sweep of scripts/bench.sh sim ran."""
    rows, worst_at = [], {}
    for fetch in range(1, 64):
        errs = []
        for disks, row in t2.items():
            for pol, name in (("fixed_horizon", "fixed-horizon"), ("aggressive", "aggressive")):
                simp = os.path.join(results, f"kimbrel-fetch-{fetch}-{disks}-{name}.json")
                if os.path.exists(simp):
                    errs.append(_err(json.load(open(simp))["elapsed_s"], row["UW"][pol]))
        if errs:
            worst = max(errs, key=abs)
            worst_at[fetch] = worst
            rows.append(f"| {fetch} ({fetch / 2:g} ms) | {len(errs)} | "
                        f"{sum(abs(e) for e in errs) / len(errs):.1f} % | {worst:+.1f} % |")
    if not rows:
        return []
    return ["The fetch time is a choice, not a measurement: the paper gives synth's average "
            "response as \"between 3 and 4 ms\" (§4.2), and F = 8 units (4 ms) is its upper end. "
            "The same 8 cells of Table 2 (UW) at the fetch times around it:", "",
            "| F (units) | cells | mean \\|error\\| | worst cell |", "|---:|---:|---:|---:|"] + rows + \
        ["", f"Across F = {min(worst_at)}..{max(worst_at)} the worst cell runs from "
         f"{min(worst_at.values(), key=abs):+.1f} % to {max(worst_at.values(), key=abs):+.1f} % "
         f"({worst_at.get(8, 0):+.1f} % at the default F = 8): the table checks the model at one "
         "fetch time chosen within the paper's range, not at a fetch time the paper gives.", ""]


def _kimbrel_fetches(kim, sim_runs):
    """Every policy's fetches beside the only counts §4.2 gives (fixed horizon's, the minimum)."""
    f42 = kim.get("section_4_2_synth_fetches", {})
    if not f42 or not sim_runs:
        return []
    pols = [p for p in ("demand", "fixed-horizon", "aggressive", "forestall", "reverse-aggressive")
            if all(p in sim_runs[d] for d in sim_runs)]
    out = ["Fetches of every policy against §4.2, which gives two counts for synth: fixed horizon "
           f"performs {f42['fixed_horizon']} at every disk count, {f42['fixed_horizon'] - f42['minimum_demand']} "
           f"more than the minimum {f42['minimum_demand']} of optimal demand fetching. The paper "
           "gives no count for the other policies: their excess over that minimum is shown, not "
           "checked.", "",
           "| disks | " + " | ".join(pols) + " |", "|---:|" + "---:|" * len(pols)]
    for d in sorted(sim_runs):
        cells = []
        for p in pols:
            f = sim_runs[d][p]["fetches"]
            ref = f42["fixed_horizon"] if p == "fixed-horizon" else f42["minimum_demand"]
            what = "vs 38000" if p == "fixed-horizon" else "vs minimum"
            cells.append(f"{f} ({_err(f, ref):+.1f} % {what})")
        out.append(f"| {d} | " + " | ".join(cells) + " |")
    fh = [sim_runs[d]["fixed-horizon"]["fetches"] for d in sim_runs]
    agg = {d: _err(sim_runs[d]["aggressive"]["fetches"], f42["minimum_demand"]) for d in sim_runs}
    out += ["", f"Fixed horizon makes {min(fh)}–{max(fh)} fetches here against the paper's "
            f"{f42['fixed_horizon']} ({_err(max(fh), f42['fixed_horizon']):+.1f} %): the paper's "
            f"{f42['fixed_horizon'] - f42['minimum_demand']} fetches over the minimum are not "
            "reproduced (why is not established). Aggressive fetches "
            + ", ".join(f"{agg[d]:+.1f} %" for d in sorted(agg)) + " over the minimum at "
            + ", ".join(str(d) for d in sorted(agg)) + " disks: no number of the paper checks "
            "these.", ""]
    return out


def libprefetch_lines(results, papers):
    path = os.path.join(papers, "libprefetch-figure2.json")
    simp = os.path.join(results, "reorder.json")
    if not os.path.exists(path) or not os.path.exists(simp):
        return []
    sim = {r["buffer"]: r for r in json.load(open(simp))["rows"]}
    out = ["## Against libprefetch's Figure 2 (the points its text gives)", "",
           "| reorder buffer | paper runtime | pfio-sim runtime | error | paper mean seek | "
           "pfio-sim mean seek |", "|---|---:|---:|---:|---:|---:|"]
    size = {"384 KB": 384 << 10, "18 MB": 18 << 20, "256 MB": 256 << 20}
    for p in json.load(open(path))["figure2_points"]["points"]:
        s = sim.get(size.get(p["buffer"]))
        if s is None:
            continue
        paper_rt = p.get("runtime_s")
        err = f"{_err(s['runtime_s'], paper_rt):+.0f} %" if paper_rt else "–"
        out.append(f"| {p['buffer']} | {paper_rt if paper_rt else '–'} | {s['runtime_s']:.1f} s | "
                   f"{err} | {p.get('avg_seek_distance', '–')} | "
                   f"{s['mean_seek_bytes'] / 1024:.0f} KiB |")
    out += ["", "The simulated disk's command overhead (0.2 ms) is fitted on the 256 MB point, where "
            "the buffer holds the whole file and one sorted pass leaves the cost per command as the "
            "whole story. The mean seeks do not check the disk model: sorting K random blocks of "
            "N leaves about 2N(K−1)/(K(K+1)) blocks between neighbours whatever the disk, so they "
            "follow from the file's and the buffer's sizes (they check the sort). The 18 MB "
            "runtime is the one point that checks the disk model (the overhead hides in "
            "rotational waits there). `research/scripts/check_libprefetch_figure2.py` (a test) holds all "
            "four within 15 %."]
    return out + [""]


def fence_lines(results):
    """Barve §4.2: fence 0 gives the largest throughput (rounds or not); the simulator's view."""
    runs = {}
    for name in os.listdir(results):
        if name.startswith("fence-") and name.endswith(".json"):
            d = json.load(open(os.path.join(results, name)))
            runs[(d["params"], d["disks"], d["block"], d["fence"])] = d
    keys = sorted({k[:3] for k in runs})
    if not keys:
        return []
    out = ["## Fence 0 against fence 255 (Barve §4.2)", "",
           "Barve measured the largest throughput with fence 0 on every platform, because rounds "
           "leave no overlap for a disk that waits to fill its cache before it asks for the bus. "
           "`pfio-sim rounds --fence 0 | 255`, one process per disk, random reads:", "",
           "| params | disks | block | MB/s fence 0 | MB/s fence 255 | fence 255 vs 0 |",
           "|---|---:|---:|---:|---:|---:|"]
    wins, rows = [], 0
    for params, disks, block in keys:
        f0, f255 = runs.get((params, disks, block, 0)), runs.get((params, disks, block, 255))
        if not f0 or not f255:
            continue
        rows += 1
        gain = 100.0 * (f255["mb_s"] / f0["mb_s"] - 1)
        if gain > 2:
            wins.append(f"{params} D={disks} {block // 1024} KiB ({gain:+.0f} %)")
        out.append(f"| {params} | {disks} | {block // 1024} KiB | {f0['mb_s']:.2f} | "
                   f"{f255['mb_s']:.2f} | {gain:+.1f} % |")
    out += ["", (f"Fence 0 is best or within 2 % in {rows - len(wins)} of {rows} rows. Fence 255 "
                 "is more than 2 % faster, against the paper, in: " + "; ".join(wins) + ". Why is "
                 "not established here (a candidate: a simulated disk with its whole block cached "
                 "sends it at the bus rate in one go, which with many disks can outweigh the "
                 "round's unoverlapped start).") if wins else
            "Fence 0 is never beaten by more than 2 %, as in the paper.", ""]
    return out


def sections(results, papers):
    return barve_lines(results, papers) + fence_lines(results) + \
        kimbrel_lines(results, papers) + libprefetch_lines(results, papers)
