#!/usr/bin/python3
"""docs/hdf5-driver.md's section "What a call of one chunk costs" from
docs/results/h5-call-cost/ (scripts/bench.sh h5-call-cost): per dataset, the median microseconds
per one-chunk H5Dread (wall and CPU) of sec2 and of the same program under the preload, and what
the preload adds."""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from render_common import replace_section  # noqa: E402

BEGIN, END = "<!-- h5-call-cost -->", "<!-- /h5-call-cost -->"


def main():
    out, doc = sys.argv[1], sys.argv[2]
    machine = json.load(open(os.path.join(out, "machine.json")))
    runs = [json.loads(l) for l in open(os.path.join(out, "runs.jsonl"))]
    if any(r["wrong"] for r in runs):
        sys.exit("render_h5_call_cost: a run read wrong values; not rendered")
    body = [BEGIN, "",
            f"`scripts/bench.sh h5-call-cost` ({machine['commit']}; {machine['cpu']}, "
            f"{machine['cores']} cores, {machine['mem_gib']} GiB; HDF5 {machine['hdf5']}): "
            "`pfio-h5callcost` reads one chunk per `H5Dread` at seeded random places of "
            "pfio-h5bench's file, page cache hot (a first pass reads them all), every value "
            "checked; `sec2` is the program as it is, `preload` the same program under "
            "`LD_PRELOAD=libpfio_hdf5_preload.so`, alternating, medians of "
            f"{machine['rounds']} rounds, µs per call (the check included):", "",
            "| dataset | chunk | calls | sec2 wall | preload wall | sec2 CPU (min–max) | "
            "preload CPU (min–max) | added CPU per call | added, round by round (min–max) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name in ("c8k", "c128k", "c1m"):
        mine = [r for r in runs if r["dataset"] == name]
        if not mine:
            continue
        med = {(m, k): statistics.median(r[k] for r in mine if r["method"] == m)
               for m in ("sec2", "preload") for k in ("wall_us", "cpu_us")}
        added = med[("preload", "cpu_us")] - med[("sec2", "cpu_us")]
        cpu = {m: [r["cpu_us"] for r in mine if r["method"] == m] for m in ("sec2", "preload")}
        # The two methods of a round ran next to each other: their difference, round by round,
        # shows how much of the added CPU is the machine moving between rounds.
        by_round = {}
        for r in mine:
            by_round.setdefault(r["round"], {})[r["method"]] = r["cpu_us"]
        pairs = [d["preload"] - d["sec2"] for d in by_round.values() if len(d) == 2]
        body.append(f"| {name} | {mine[0]['chunk_bytes'] // 1024} KiB | {mine[0]['calls']:,} | "
                    f"{med[('sec2', 'wall_us')]:.2f} | {med[('preload', 'wall_us')]:.2f} | "
                    f"{med[('sec2', 'cpu_us')]:.2f} ({min(cpu['sec2']):.2f}–"
                    f"{max(cpu['sec2']):.2f}) | {med[('preload', 'cpu_us')]:.2f} "
                    f"({min(cpu['preload']):.2f}–{max(cpu['preload']):.2f}) | {added:+.2f} | "
                    f"{min(pairs):+.2f} to {max(pairs):+.2f} |")
    body += ["", END]
    replace_section(doc, BEGIN, END, body)
    print(f"wrote {doc} (what a call of one chunk costs)")


if __name__ == "__main__":
    main()
