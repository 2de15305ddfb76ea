"""docs/benchmarks.md's memory-contention section: three jobs on one node, their budgets and
MemAvailable."""

import glob
import json
import os
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from render_common import GiB, MiB, load  # noqa: E402


def memory_rows(results, docs):
    """Three jobs at once on one node (scripts/bench.sh memory-contention)."""
    folder = os.path.join(results, "memory")
    summaries = sorted(glob.glob(os.path.join(folder, "*-summary.json")))
    if not summaries:
        return []
    out = ["## Three jobs on one node: memory control", "",
           "`scripts/bench.sh memory-contention`: three (or, `auto-8`, eight) `pfio-bench` runs "
           "started together (`serial-auto`: the same three one after another, each alone), each "
           "reading every 64 KiB block of the same file once in random order (dense, "
           "pfio-pipelined, every byte checked, page cache dropped before each case), with the "
           "budgets of the case. MemAvailable and the jobs' summed RSS sampled every 100 ms (the "
           "summed RSS at its peak is what the jobs held together at one moment; the sum of their "
           "peaks adds peaks of different moments); the reserve is `reserve_percent` (8 %) of "
           "MemTotal; the node's share is MemAvailable above the reserve when the case started.",
           "",
           "| case | file | exit statuses (137 = killed) | seconds per job | total s | peak RSS per job (GiB) | sum of peak RSS (GiB) | summed RSS at its peak (GiB) | node's share (GiB) | peak RSS − highest budget, worst job (MiB) | budget cuts per job | least MemAvailable (GiB) | reserve (GiB) |",
           "|---|---|---|---|---:|---|---:|---:|---:|---:|---|---:|---:|"]
    hog_lines = []
    fig, axes = plt.subplots(len(summaries), 1, figsize=(8, 2.6 * len(summaries)), squeeze=False)
    for ax, path in zip(axes[:, 0], summaries):
        sm = json.load(open(path))
        case = sm["case"]
        lines = [list(map(float, line.split())) for line in open(os.path.join(folder, f"{case}-memavailable.txt"))
                 if len(line.split()) in (2, 3)]
        mem = [(f[0], f[1]) for f in lines]
        together = max((f[2] for f in lines if len(f) == 3), default=None)
        together_s = f"{together * 1024 / GiB:.1f}" if together is not None else "–"
        least = min(v for _, v in mem) * 1024 / GiB if mem else float("nan")
        reserve = sm["mem_total_kb"] * 1024 / 100 * 8 / GiB
        share_s = f"{mem[0][1] * 1024 / GiB - reserve:.1f}" if mem else "–"
        secs, rss, cuts = [], [], []
        rss_sum, over = 0.0, None
        jobs = sm.get("jobs", 3)
        starts = {}
        sp = os.path.join(folder, f"{case}-starts.txt")
        if os.path.exists(sp):
            for line in open(sp):
                j, t = line.split()
                starts[int(j)] = float(t)
        for j in range(1, jobs + 1):
            bp = os.path.join(folder, f"{case}-bench{j}.json")
            sp_ = os.path.join(folder, f"{case}-job{j}.json")
            if os.path.exists(bp):
                run = load(bp)["runs"][0]
                secs.append(f"{run['seconds']:.0f}" + ("" if run["verified"] else " (wrong bytes)"))
                rss.append(f"{run['peak_rss_bytes'] / GiB:.1f}")
                rss_sum += run["peak_rss_bytes"] / GiB
                if os.path.exists(sp_):
                    hist_ = load(sp_).get("aimd_history", [{"budget": 0}])
                    if len(hist_) > 1 and "start at the fair share" in hist_[1]["reason"]:
                        hist_ = hist_[1:]  # the cap before the start share was never in force
                    top = max(h["budget"] for h in hist_)
                    d = (run["peak_rss_bytes"] - top) / MiB
                    over = d if over is None else max(over, d)
            else:
                secs.append("–")
                rss.append("–")
            if os.path.exists(sp_):
                st = load(sp_)
                cuts.append(str(st["budget_cuts"]))
                hist = st.get("aimd_history", [])
                t0 = starts.get(j, sm["t0"]) - sm["t0"]
                ax.step([t0 + h["seconds"] for h in hist] + ([sm["t1"] - sm["t0"]] if hist else []),
                        [h["budget"] / GiB for h in hist] + ([hist[-1]["budget"] / GiB] if hist else []),
                        where="post", label=f"job {j} budget" if jobs <= 3 else None)
            else:
                cuts.append("–")
        if mem:
            ax.plot([t - sm["t0"] for t, _ in mem], [v * 1024 / GiB for _, v in mem], "k-",
                    linewidth=1, label="MemAvailable")
        ax.axhline(reserve, color="r", linestyle=":", label="reserve")
        hog_notes = []
        if sm.get("hog_start"):
            th = sm["hog_start"] - sm["t0"]
            ax.axvline(th, color="m", linestyle="--", label="memory-hog starts (80 %)")
            first = None
            st1 = os.path.join(folder, f"{case}-job1.json")
            if os.path.exists(st1):
                tj = starts.get(1, sm["t0"]) - sm["t0"]
                cuts_after = [tj + h["seconds"] for h in load(st1).get("aimd_history", [])
                              if h["reason"].startswith(("halve", "clamp")) and
                              tj + h["seconds"] >= th]
                first = min(cuts_after) - th if cuts_after else None
            # When the hog held its 80 % (its log: "<s> s  holding ..."), and when MemAvailable
            # first fell below the reserve (100 ms samples): the moments a cut is owed.
            held = None
            hp = os.path.join(folder, f"{case}-hog.log")
            if os.path.exists(hp):
                for line in open(hp):
                    m = re.search(r"([0-9.]+) s\s+holding", line)
                    if m:
                        held = float(m.group(1))
            below = next((t - sm["t0"] for t, v in mem if v * 1024 / GiB < reserve), None)
            note = (f"{case}: memory-hog (80 % of MemTotal for 10 s) started {th:.1f} s in and "
                    f"exited with status {sm['hog_exit']} (137 = killed)")
            if held is not None:
                note += (f"; it took {held:.1f} s to get its 80 % (the kernel reclaiming page "
                         f"cache meanwhile), holding it from {th + held:.1f} s")
            if below is not None:
                note += f"; MemAvailable first fell below the reserve at {below:.1f} s"
            if sm.get("method", "pfio-pipelined").startswith("pfio") is False:
                note += f"; the job read with `{sm['method']}` (no pfio)."
            elif first is None:
                note += "; pfio never cut."
            else:
                note += f"; pfio's first cut came at {th + first:.1f} s"
                if below is not None:
                    note += f" ({th + first - below:+.2f} s from MemAvailable reaching the reserve"
                    note += (f", {th + first - th - held:+.2f} s from the hog holding its 80 %)."
                             if held is not None else ").")
                else:
                    note += "."
            hog_notes.append(note)
        ax.set_title(f"{case}: {jobs} jobs, budget {sm['budget']} each")
        ax.set_ylabel("GiB")
        ax.legend(fontsize=7, loc="upper right")
        hog_lines += hog_notes
        out.append(f"| {case} | {sm['file_size']} | {', '.join(map(str, sm['exit']))} | "
                   f"{', '.join(secs)} | {sm['t1'] - sm['t0']:.0f} | {', '.join(rss)} | "
                   f"{rss_sum:.1f} | {together_s} | {share_s} | {'–' if over is None else f'{over:.0f}'} | "
                   f"{', '.join(cuts)} | {least:.2f} | {reserve:.2f} |")
    axes[-1, 0].set_xlabel("seconds since the three jobs started")
    fig.tight_layout()
    fig.savefig(os.path.join(docs, "memory-contention.png"), dpi=110)
    plt.close(fig)
    out += [""] + run_line(summaries) + hog_lines
    out += cache_kind_lines(folder, summaries)
    out += ["", "![AIMD budgets of the three jobs and MemAvailable](memory-contention.png)", ""]
    return out


def run_line(summaries):
    """Where, when and at which commit the cases ran (each case is its own invocation), and
    whether free page reporting was held back; nothing for summaries written before they said so."""
    runs = [json.load(open(p)) for p in summaries]
    dated = sorted({(r["date"], r["commit"]) for r in runs if r.get("date")})
    if not dated:
        return []
    machines = set()
    for p in summaries:
        bench = p.replace("-summary.json", "-bench1.json")
        if os.path.exists(bench):
            m = load(bench)["machine"]
            machines.add(f"{m['cpu']}, {m['cores']} cores, {m['mem_total'] / GiB:.1f} GiB, "
                         f"{m['kernel']}, {m['device']} {m['filesystem']}")
    held = sorted({r.get("page_reporting", "") for r in runs if r.get("date")})
    held_s = "; ".join(h for h in held if h) or "not held back"
    return ["Cases run " + ", ".join(f"{d} at `{c}`" for d, c in dated)
            + (" on " + "; ".join(sorted(machines)) if machines else "")
            + f"; free page reporting: {held_s}.", ""]


def cache_kind_lines(folder, summaries):
    """What the cases run with the engine's page-cache kind (BUFFER=cache) show."""
    summaries = [json.load(open(p)) for p in summaries]
    cases = [c for c in summaries if c.get("buffer") == "cache"]
    if not cases:
        return []
    peaks = []
    for c in cases:
        for j in range(1, c.get("jobs", 3) + 1):
            sp = os.path.join(folder, f"{c['case']}-job{j}.json")
            if os.path.exists(sp):
                st = load(sp)
                hist = st.get("aimd_history", [])
                if len(hist) > 1 and "start at the fair share" in hist[1]["reason"]:
                    hist = hist[1:]  # as in the table: the cap before the start share
                top = max((h["budget"] for h in hist), default=0)
                peaks.append(f"{c['case']} job {j} {st['memory_peak'] / GiB:.1f} of {top / GiB:.1f}")
    yardsticks = [(c["case"], c["method"]) for c in summaries
                  if not c.get("method", "pfio-pipelined").startswith("pfio")]
    stock = ("a reader without pfio leaves the file's pages in the cache the same way (" +
             ", ".join(f"`{y}` above: pfio-bench's `{m}` method, no pfio" for y, m in yardsticks)
             + ")." if yardsticks else
             "a stock buffered reader leaves the file's pages in the cache the same way (not "
             "run here as a yardstick).")
    return ["", "Cases named `-cache` ran with `BUFFER=cache`: the engine's page-cache buffer kind "
            "(pfio-bench's `pfio-cache` method: pfio-pipelined with `buffer = cache`), the kind "
            "the front ends open files in by default. The "
            "bytes are then the kernel's page cache, not the jobs' memory, so their RSS stays "
            "small, and the three jobs read the same file and find the pages the others advised: "
            "that, not the engine, is why they finish sooner than the reorder-buffer cases. The "
            "budget bounds each job's advised and unread bytes (`memory_peak` of its highest "
            "budget, GiB: " + "; ".join(peaks) + "). Under memory-hog the kernel reclaims those "
            "pages itself (clean page cache; a page reclaimed before it is read is read again "
            "when asked for), so no cut is owed to give memory back, and the time memory-hog takes "
            "to get its memory is the kernel's reclaim of the file's pages: " + stock]
