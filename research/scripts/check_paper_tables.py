#!/usr/bin/env python3
"""Checks the transcribed paper tables (research/papers/) for typos: every Barve percentage column
must match its naive and pipeline MB/s within rounding (1.5 points), except the cells the file
lists as the paper's own inconsistencies; Kimbrel's Table 2 must have both policies for every
disk count of both simulators. Usage: check_paper_tables.py DOCS_PAPERS_DIR"""
import json
import os
import sys


def main():
    folder = sys.argv[1]
    bad = []
    barve = json.load(open(os.path.join(folder, "barve-tables.json")))
    known = " ".join(barve.get("printed_inconsistencies", []))
    cells = 0
    for name in ("table4", "table5", "table6"):
        for kb, row in barve[name]["rows"].items():
            for d, c in row.items():
                cells += 1
                pct = 100 * (c["pipeline"] / c["naive"] - 1)
                if abs(pct - c["percent"]) > 1.5:
                    where = f"Table {barve[name]['table']}, {kb} KB, {d}"
                    if where not in known:
                        bad.append(f"{where}: {c} gives {pct:.1f} %")
    kim = json.load(open(os.path.join(folder, "kimbrel-tables.json")))["table2_elapsed_seconds"]
    for trace in ("xds", "synth"):
        for disks, row in kim[trace].items():
            for sim in ("CMU", "UW"):
                if set(row[sim]) != {"fixed_horizon", "aggressive"}:
                    bad.append(f"Kimbrel Table 2 {trace} {disks} disks {sim}: {row[sim]}")
    for b in bad:
        print("check_paper_tables:", b)
    print(f"check_paper_tables: {cells} Barve cells, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
