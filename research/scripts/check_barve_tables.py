#!/usr/bin/python3
"""A test: pfio-sim's bus simulator at its defaults against Barve's measured Tables 4-6.

Runs `pfio-sim barve-pipeline` for the three platforms and checks, against the paper's cells
(research/papers/barve-tables.json):
  - every 16-128 KB cell, naive and pipelined, within 12 % (the paper's own model-versus-hardware
    accuracy, the issue's target);
  - the LoadIntoDiskBuffer gain: a loss at 8 KB in every row, as measured; about 0 for Wren with
    7 disks at 32-128 KB (|gain| <= 6 points; measured -1 .. +6); a gain of +5 .. +25 % wherever
    the paper measured >= +8 % with 3 or 4 disks at 96-128 KB; and the simulated gain within 5
    points of the measured one on average over each table's 16-128 KB cells.
usage: check_barve_tables.py PFIO_SIM PAPERS_DIR"""
import json
import os
import subprocess
import sys
import tempfile

TABLES = (("table4", "wren"), ("table5", "barracuda"), ("table6", "cheetah"))


def simulate(sim, params):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([sim, "barve-pipeline", "--params", params, "--json", out.name],
                       check=True, stdout=subprocess.DEVNULL)
        rows = json.load(open(out.name))["rows"]
    return {(r["disks"], r["block"] // 1024): r for r in rows}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sim_path, papers = sys.argv[1], sys.argv[2]
    tables = json.load(open(os.path.join(papers, "barve-tables.json")))
    failures, checked = [], 0
    for key, params in TABLES:
        sim = simulate(sim_path, params)
        gaps = []
        for kb_text, row in tables[key]["rows"].items():
            kb = int(kb_text)
            for d_text, cell in row.items():
                d = int(d_text.split("=")[1])
                s = sim[(d, kb)]
                where = f"{params} D={d} {kb} KB"
                gain = 100 * (s["pipelined_mb_s"] / s["naive_mb_s"] - 1)
                if kb >= 16:
                    for col, simcol in (("naive", "naive_mb_s"), ("pipeline", "pipelined_mb_s")):
                        err = s[simcol] / cell[col] - 1
                        checked += 1
                        if abs(err) > 0.12:
                            failures.append(f"{where} {col}: simulated {s[simcol]:.2f} MB/s, paper "
                                            f"{cell[col]:.2f}: {100 * err:+.1f} %, expected within "
                                            f"12 %")
                    gaps.append(gain - cell["percent"])
                if kb == 8 and not gain < 0:
                    failures.append(f"{where}: gain {gain:+.1f} %, expected a loss as measured "
                                    f"({cell['percent']:+d} %)")
                if params == "wren" and d == 7 and kb >= 32 and abs(gain) > 6:
                    failures.append(f"{where}: gain {gain:+.1f} %, expected about 0 (|gain| <= 6; "
                                    f"measured {cell['percent']:+d} %)")
                if d in (3, 4) and kb >= 96 and cell["percent"] >= 8 and not 5 <= gain <= 25:
                    failures.append(f"{where}: gain {gain:+.1f} %, expected +5 .. +25 % (measured "
                                    f"{cell['percent']:+d} %)")
        mean_gap = sum(abs(g) for g in gaps) / len(gaps)
        if mean_gap > 5:
            failures.append(f"{params}: simulated gain {mean_gap:.1f} points from the measured one "
                            f"on average over 16-128 KB, expected <= 5")
    for f in failures:
        print("FAIL", f)
    print(f"{checked} MB/s cells checked, {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
