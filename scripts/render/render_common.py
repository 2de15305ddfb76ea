"""What the renderers of docs/ share: loading JSON, sizes, medians, the device sentence, the
method table of a pfio-bench run."""

import glob
import json
import os
import statistics


MiB = 1024 * 1024


GiB = 1024 * MiB


def machine(m):
    """The machine of a machine.json written with scripts/lib/machine-json.sh's fields."""
    return (f"{m['cpu']}, {m['cores']} cores, {m['mem_gib']} GiB, Linux {m['kernel']}; "
            f"disk {m['disk']}")


def target_title(folder, target):
    """The bold heading of a target's table: the disk, or the named test bed with the fio line
    its script saved in `folder` (fio-TARGET.txt), when there is one."""
    title = "This VM's disk" if target == "disk" else f"The `{target}` test bed"
    fio = os.path.join(folder, f"fio-{target}.txt")
    if os.path.exists(fio):
        title += " (" + " ".join(open(fio).read().split()) + ")"
    return f"**{title}**"


def replace_section(doc, begin, end, body):
    """Rewrites the lines of `doc` between the markers `begin` and `end` (both kept, in `body`'s
    first and last line) with `body`; appends it when the markers are not there yet."""
    text = open(doc).read()
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        tail = rest.split(end, 1)[1]
    else:
        head, tail = text.rstrip("\n") + "\n\n", "\n"
    open(doc, "w").write(head + "\n".join(body) + tail)


def result_targets(folder):
    """The targets of a before/after folder's runs-TARGET-SIDE.jsonl files, the disk first."""
    return sorted({f[5:].rsplit("-", 1)[0] for f in os.listdir(folder)
                   if f.startswith("runs-") and f.endswith(".jsonl")},
                  key=lambda t: (t != "disk", t))


def load(path):
    with open(path) as f:
        return json.load(f)


def load_lines(path):
    """The JSON objects of a JSON-lines file (one per non-empty line), or None if it is missing."""
    if not os.path.exists(path):
        return None
    return [json.loads(line) for line in open(path) if line.strip()]


def size(n):
    if n >= GiB and n % GiB == 0:
        return f"{n // GiB} GiB"
    if n >= MiB:
        return f"{n / MiB:.0f} MiB"
    return f"{n // 1024} KiB"


def fio_sequential(folder):
    """fio's sequential rates of the benchmark's file (scripts/bench/fio-seq.sh), MiB/s, one per run."""
    return [load(p)["jobs"][0]["read"]["bw_bytes"] / MiB
            for p in sorted(glob.glob(os.path.join(folder, "fio-seq-*.json")))]


def device_sentence(fio, seq, seq_how):
    """'The device reads the file sequentially at ...' from fio's runs and the benchmark's own
    sequential reader (seq_how says how it reads), or None when neither ran."""
    said = []
    if fio:
        said.append(f"{statistics.median(fio):.0f} MiB/s with fio (O_DIRECT, 1 MiB reads, "
                    f"depth 16, median of {len(fio)})")
    if seq:
        said.append(f"{statistics.median(seq):.0f} MiB/s with the benchmark's own {seq_how}")
    return "The device reads the file sequentially at " + " and ".join(said) if said else None


def page_reporting_note(machine):
    """A sentence on the VM's free page reporting during the runs (scripts/lib), or none."""
    held = machine.get("page_reporting", "")
    if not held:
        return ["", "Free page reporting to the VM's host was not held back in this run "
                "(made before `scripts/lib/hold-page-reporting.sh`): runs that found memory "
                "the host had taken back were up to about twice as slow, at random."]
    if held.startswith("no "):
        return ["", f"Free page reporting: {held}."]
    return ["", f"Free page reporting to the VM's host was held back during the runs ({held}; "
            "`scripts/lib/hold-page-reporting.sh`), so no run found memory the host had taken "
            "back: before, such runs were up to about twice as slow, at random."]


def median_by(runs, key):
    """Groups runs by key(run) and returns {key: (median seconds, run list)}."""
    groups = {}
    for r in runs:
        groups.setdefault(key(r), []).append(r)
    return {k: (statistics.median(r["seconds"] for r in v), v) for k, v in groups.items()}


def label(run):
    return run["method"] + (f" @ {size(run['budget'])}" if run.get("budget") else "")


def table(doc):
    runs = doc["runs"]
    med = median_by(runs, label)
    naive = med.get("naive", (None,))[0]
    raw = med.get("raw-qd32", (None,))[0]
    has_cpu = all("cpu_us_per_read" in r for r in runs)
    lines = [
        "| method | budget | seconds | MiB/s | × naive | × raw-qd32 | peak RSS | RSS − budget | "
        + ("CPU µs/read | " if has_cpu else "") + "verified | runs |",
        "|---|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if has_cpu else "") + "---|---:|",
    ]
    for name, (secs, group) in med.items():
        r = group[0]
        mib_s = statistics.median(g["mib_per_s"] for g in group)
        rss = max(g["peak_rss_bytes"] for g in group)
        budget = r.get("budget") or 0
        over = f"{(rss - budget) / MiB:+.0f} MiB" if budget and r["method"].startswith("pfio") else ""
        verified = "yes" if all(g["verified"] for g in group) else "**NO**"
        lines.append(
            f"| {r['method']} | {size(budget) if budget else '–'} | {secs:.2f} | {mib_s:.1f} | "
            f"{naive / secs if naive else float('nan'):.2f} | {raw / secs if raw else float('nan'):.2f} | "
            f"{rss / MiB:.0f} MiB | {over} | "
            + (f"{statistics.median(g['cpu_us_per_read'] for g in group):.2f} | " if has_cpu else "")
            + f"{verified} | {len(group)} |"
        )
    return "\n".join(lines)


def arg(n):
    for unit, suffix in ((GiB, "G"), (MiB, "M"), (1024, "K")):
        if n >= unit and n % unit == 0:
            return f"{n // unit}{suffix}"
    return str(n)


def size_mib(text):
    units = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}
    try:
        return float(text[:-1]) * units[text[-1]] if text[-1] in units else float(text) / MiB
    except (ValueError, IndexError):
        return None
