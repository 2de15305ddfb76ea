#!/usr/bin/python3
"""A test: pfio-sim reorder at its defaults against the points libprefetch's §3.2 gives for its
Figure 2 (research/papers/libprefetch-figure2.json): runtimes at 18 MB and 256 MB of reorder buffer
and mean seek distances at 384 KB and 18 MB, each within 15 %, and the number of passes (14 and 1).
The paper's MB and KB are taken as 2^20 and 2^10 bytes (its 5.2 MB and 112 KB seeks are the
formula 2N(K-1)/(K(K+1)) in those units).
usage: check_libprefetch_figure2.py PFIO_SIM PAPERS_DIR"""
import json
import os
import subprocess
import sys
import tempfile

UNITS = {"KB": 1 << 10, "MB": 1 << 20}


def size(text):
    number, unit = text.split()
    return float(number) * UNITS[unit]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sim, papers = sys.argv[1], sys.argv[2]
    points = json.load(open(os.path.join(papers, "libprefetch-figure2.json")))["figure2_points"]["points"]
    buffers = ",".join(str(int(size(p["buffer"]))) for p in points)
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([sim, "reorder", "--file-size", "256M", "--block", "4K", "--buffer", buffers,
                        "--json", out.name], check=True, stdout=subprocess.DEVNULL)
        rows = {r["buffer"]: r for r in json.load(open(out.name))["rows"]}
    failures, checked = [], 0

    def within(what, sim_value, paper_value):
        nonlocal checked
        checked += 1
        err = sim_value / paper_value - 1
        if abs(err) > 0.15:
            failures.append(f"{what}: simulated {sim_value:.4g}, paper {paper_value:.4g}: "
                            f"{100 * err:+.1f} %, expected within 15 %")
    for p in points:
        r = rows[int(size(p["buffer"]))]
        if p.get("runtime_s"):
            within(f"runtime at {p['buffer']}", r["runtime_s"], p["runtime_s"])
        if p.get("avg_seek_distance"):
            within(f"mean seek at {p['buffer']}", r["mean_seek_bytes"], size(p["avg_seek_distance"]))
        if p.get("passes") and r["windows"] != p["passes"]:
            failures.append(f"passes at {p['buffer']}: simulated {r['windows']}, paper "
                            f"{p['passes']}, expected equal")
    for f in failures:
        print("FAIL", f)
    print(f"{checked} values checked, {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
