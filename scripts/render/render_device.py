#!/usr/bin/python3
"""docs/limits.md's "The device" table (scripts/bench.sh device): fio's rates for each pattern and
depth, and the cost of a random read at depth 32 fitted as a + bytes x b.

usage: render_device.py RESULTS_DIR LIMITS_MD"""
import glob
import json
import os
import sys

from render_common import MiB, replace_section

BLOCK = {"4k": 4, "16k": 16, "64k": 64, "1m": 1024, "4m": 4096}


def rows(folder):
    """(pattern, KiB, depth, MiB/s, IOPS) per job, in the order the script ran them."""
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "*-qd*.json")), key=os.path.getmtime):
        name = os.path.basename(path)[:-len(".json")]
        rw, bs, depth = name.rsplit("-", 2)
        read = json.load(open(path))["jobs"][0]["read"]
        out.append((rw, BLOCK[bs], int(depth[2:]), read["bw_bytes"] / MiB, read["iops"]))
    return out


def fit(points):
    """Least squares of microseconds per request = a + KiB x b."""
    n = len(points)
    sx = sum(x for x, _ in points)
    sy = sum(y for _, y in points)
    sxx = sum(x * x for x, _ in points)
    sxy = sum(x * y for x, y in points)
    b = (n * sxy - sx * sy) / (n * sxx - sx * sx)
    return (sy - b * sx) / n, b


def main():
    folder, doc = sys.argv[1], sys.argv[2]
    m = json.load(open(os.path.join(folder, "machine.json")))
    found = rows(folder)
    body = ["<!-- device -->", "",
            f"`bash scripts/bench.sh device` ({m['date']}, {m['cpu']}, {m['cores']} cores, "
            f"{m['mem_gib']} GiB, Linux {m['kernel']}, {m['disk']}; {m['fio']}): libaio, "
            f"O_DIRECT, a {m['file_size']} file, {m['seconds_each']} s per row, the page cache "
            "dropped before each.", "",
            "| pattern | queue depth | throughput | requests/s |", "|---|---:|---:|---:|"]
    for rw, kib, depth, mib, iops in found:
        what = ("random" if rw == "randread" else "sequential") + \
            (f" {kib} KiB" if kib < 1024 else f" {kib // 1024} MiB")
        body.append(f"| {what} | {depth} | {mib:.0f} MiB/s | {iops / 1000:.1f} K |")
    random32 = [(kib, 1e6 / iops) for rw, kib, depth, _, iops in found
                if rw == "randread" and depth == 32]
    if len(random32) >= 2:
        a, b = fit(random32)
        worst = max(abs(a + b * x - y) / y for x, y in random32)
        body += ["", f"So a random read of *s* KiB at depth 32 costs about {a:.1f} µs + *s* × "
                 f"{b:.2f} µs of device time (the {len(random32)} random rows at depth 32 fit "
                 f"this within {worst:.0%}): a gap of *g* KiB between two wanted blocks is worth "
                 f"reading when *g* × {b:.2f} µs < {a:.1f} µs, about {a / b:.0f} KiB."]
    body += ["", "<!-- /device -->"]
    replace_section(doc, "<!-- device -->", "<!-- /device -->", body)
    print(f"render_device: {doc} updated")


if __name__ == "__main__":
    main()
