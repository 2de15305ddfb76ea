#!/usr/bin/python3
"""docs/engine-benchmarks.md's section "Computation between reads, one rank" from
docs/results/compute-1rank/ (scripts/bench.sh compute-1rank): per target, workload and method the
median seconds of the read alone, the busy loop alone, both together, the time inside the read
calls, the overlap, how much longer the busy loop took beside the reads (its stretch), and the
time to solution against stock ROMIO's."""
import json
import os
import statistics
import sys

from render_common import replace_section

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "docs", "results", "compute-1rank")
DOC = os.path.join(ROOT, "docs", "engine-benchmarks.md")
BEGIN, END = "<!-- compute-1rank -->", "<!-- /compute-1rank -->"


def load(target):
    runs = {}
    path = os.path.join(RESULTS, "runs-%s.jsonl" % target)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            key = (r["workload"], r["method"], r["compute_ms"] > 0)
            runs.setdefault(key, []).append(r)
    return runs


def med(rows, field):
    return statistics.median(r[field] for r in rows)


def table(target, runs):
    out = ["| workload | method | read alone s | in reads alone s | compute alone s | both s | "
           "in reads s | overlap | reads hidden | compute stretch | both / ROMIO's |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for w in ["ior-hard", "btio", "tiles", "random"]:
        alone = runs.get((w, "compute-only", True))
        romio = runs.get((w, "romio", True))
        if not alone or not romio:
            continue
        compute = med(alone, "busy_s")
        for m in ["romio", "pfio", "pfio-declared", "pfio-engine"]:
            io, both = runs.get((w, m, False)), runs.get((w, m, True))
            if not io or not both:
                continue
            t_io, t_both = med(io, "seconds"), med(both, "seconds")
            in_alone = med(io, "in_calls")
            overlap = (t_io + compute - t_both) / min(t_io, compute)
            hidden = (t_io + compute - t_both) / in_alone
            stretch = med(both, "busy_s") / compute
            out.append("| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2fx |"
                       % (w, m, t_io, in_alone, compute, t_both, med(both, "in_calls"), overlap,
                          hidden, stretch, t_both / med(romio, "seconds")))
    return "\n".join(out)


def main():
    with open(os.path.join(RESULTS, "machine.json")) as f:
        machine = json.load(f)
    parts = [BEGIN, "", "## Computation between reads, one rank", "",
             "`bash scripts/bench.sh compute-1rank` (%s, %s, %d cores): one rank of `pfio-mpibench "
             "--compute auto` on a %s file, %d rounds (medians), every run cache-evicted and every "
             "byte verified; the computation per call is stock ROMIO's read time per call. The "
             "rank is not bound to a core (`--bind-to none`; Open MPI binds one rank to core 0, "
             "and pfio's threads with it), so the busy loop and the I/O path can use a core "
             "each; the test bed's server (nbdkit, nbdfuse) runs on the last core only, standing "
             "in for a storage target on other machines. `pfio-declared` is pfio with every call of the workload declared right after "
             "the open (`pfio_mpi_file_plan`, the time it takes counted). *Read alone* is the run "
             "without computation, open to last byte checked (the byte checks are in every run); "
             "*in reads* the time inside the read calls. *Overlap* = (read alone + compute alone "
             "- both) / the shorter of the two (issue 31's measure; 1: the shorter is hidden "
             "entirely); since the checks are in *read alone* but cannot be hidden, *reads "
             "hidden* divides the same saving by the time in the read calls alone instead "
             "(1: every second of reading hidden); *compute stretch* = the busy loop's seconds "
             "beside the reads / alone."
             % (machine["date"], machine["cpu"], machine["cores"], machine["file_size"],
                machine["rounds"]), ""]
    fio = os.path.join(RESULTS, "fio-%s.txt" % machine["profile"])
    for target in ["disk", machine["profile"]]:
        runs = load(target)
        if runs is None:
            continue
        parts.append("**%s**%s" % ("This VM's disk" if target == "disk" else
                                   "The `%s` test bed" % target,
                                   "" if target == "disk" or not os.path.exists(fio) else
                                   " (" + open(fio).read().strip().splitlines()[-1] + ")"))
        parts += ["", table(target, runs), ""]
    parts.append(END)
    replace_section(DOC, BEGIN, END, parts)
    print("render_compute: %s updated" % DOC)


if __name__ == "__main__":
    sys.exit(main())
