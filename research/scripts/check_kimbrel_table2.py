#!/usr/bin/env python3
"""Runs `pfio-sim kimbrel --workload synth` at its defaults for 1-4 disks and checks it against
Kimbrel's Table 2 (UW simulator) and §4.2 as transcribed in research/papers/kimbrel-tables.json:
every fixed-horizon and aggressive elapsed time within TOLERANCE, fixed horizon first beating
aggressive at the paper's disk count, and fixed horizon's fetch count within 5 % of the paper's.
The tolerance is the issue's target, 10 % (with the paper's Poisson compute times the worst
cell is +5.0 %; with a fixed 1 ms per reference it was +10.4 %, 2 disks, aggressive).
Usage: check_kimbrel_table2.py PFIO_SIM DOCS_PAPERS_DIR"""
import json
import os
import subprocess
import sys
import tempfile

TOLERANCE = 10.0  # percent


def main():
    sim, papers = sys.argv[1], sys.argv[2]
    kim = json.load(open(os.path.join(papers, "kimbrel-tables.json")))
    table = kim["table2_elapsed_seconds"]["synth"]
    fetches = kim["section_4_2_synth_fetches"]["fixed_horizon"]
    bad, got = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for disks in sorted(table, key=int):
            out = os.path.join(tmp, f"synth-{disks}.json")
            for pol in ("fixed-horizon", "aggressive"):
                subprocess.run([sim, "kimbrel", "--workload", "synth", "--disks", disks,
                                "--policy", pol, "--json", out], check=True,
                               stdout=subprocess.DEVNULL)
                got[(int(disks), pol)] = json.load(open(out))
    for disks, row in table.items():
        for key, pol in (("fixed_horizon", "fixed-horizon"), ("aggressive", "aggressive")):
            paper = row["UW"][key]
            r = got[(int(disks), pol)]
            err = 100 * (r["elapsed_s"] - paper) / paper
            print(f"{disks} disks {pol:14} paper {paper:6.1f} s  sim {r['elapsed_s']:6.1f} s  "
                  f"{err:+5.1f} %")
            if abs(err) > TOLERANCE:
                bad.append(f"{disks} disks {pol}: {err:+.1f} % (tolerance {TOLERANCE} %)")
        f = got[(int(disks), "fixed-horizon")]["fetches"]
        if abs(f - fetches) > 0.05 * fetches:
            bad.append(f"{disks} disks fixed-horizon: {f} fetches, paper {fetches}")

    def crossover(elapsed):
        wins = [d for d in sorted(elapsed) if elapsed[d][0] < elapsed[d][1]]
        return wins[0] if wins else None
    paper_x = crossover({int(d): (r["UW"]["fixed_horizon"], r["UW"]["aggressive"])
                         for d, r in table.items()})
    sim_x = crossover({d: (got[(d, "fixed-horizon")]["elapsed_s"],
                           got[(d, "aggressive")]["elapsed_s"]) for d, _ in got})
    if sim_x != paper_x:
        bad.append(f"fixed horizon first wins at {sim_x} disks, in the paper at {paper_x}")
    for b in bad:
        print("check_kimbrel_table2:", b)
    print(f"check_kimbrel_table2: {len(got)} cells, crossover {sim_x} (paper {paper_x}), "
          f"{len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
