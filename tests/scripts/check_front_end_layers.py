#!/usr/bin/env python3
"""The files of a front end call each other one way only: no cycle among them.

A front end's files are layered as src/'s are (docs/architecture.md, "Layers and the build"): a
lower file never calls a higher one. This reads the object files with nm: a file calls another
when it uses a symbol the other defines; the graph of such calls must have no cycle, and the
script prints the layering it found (lowest first).

usage: check_front_end_layers.py OBJECT... | --find ROOT PATTERN
  OBJECT...       the object files of one front end (a ;-separated list is split), or
  --find ROOT P   every directory under ROOT holding object files named P (a glob, e.g.
                  'ad_prefetch*.o') is checked on its own; at least one must be found.
Exit status 0 when every group is acyclic, 1 with the cycle named otherwise, 2 on bad usage.
"""
import collections
import fnmatch
import os
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRC":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def name_of(obj):
    base = os.path.basename(obj)
    return base[:-2] if base.endswith(".o") else base


def check(objects):
    """Returns (layers, cycle): layers lowest first, or the first cycle found."""
    defines, uses = {}, {}
    for obj in objects:
        defined, used = symbols(obj)
        uses[name_of(obj)] = used
        for s in defined:
            defines[s] = name_of(obj)
    calls = collections.defaultdict(set)
    for f, used in uses.items():
        calls[f] = {defines[s] for s in used if s in defines and defines[s] != f}
    # Layers by repeatedly taking the files that call nothing left (Kahn's algorithm).
    left = dict(calls)
    layers = []
    while left:
        ready = sorted(f for f, callees in left.items() if not (callees & left.keys()))
        if not ready:
            break
        layers.append(ready)
        for f in ready:
            del left[f]
    if not left:
        return layers, None
    # A cycle among what is left: walk calls until a file repeats.
    path, seen, f = [], {}, sorted(left)[0]
    while f not in seen:
        seen[f] = len(path)
        path.append(f)
        f = sorted(calls[f] & left.keys())[0]
    return layers, path[seen[f]:] + [f]


def main(argv):
    if len(argv) >= 2 and argv[1] == "--find":
        if len(argv) != 4:
            print(__doc__, file=sys.stderr)
            return 2
        root, pattern = argv[2], argv[3]
        groups = collections.defaultdict(list)
        for d, _, files in os.walk(root):
            for name in files:
                if fnmatch.fnmatch(name, pattern):
                    groups[d].append(os.path.join(d, name))
        if not groups:
            print(f"check_front_end_layers: no object files {pattern} under {root}: expected a "
                  "built front end", file=sys.stderr)
            return 1
    else:
        objects = [o for arg in argv[1:] for o in arg.split(";") if o]
        if not objects:
            print(__doc__, file=sys.stderr)
            return 2
        groups = {"objects": objects}
    status = 0
    for group, objects in sorted(groups.items()):
        layers, cycle = check(sorted(objects))
        if cycle:
            print(f"{group}: files call each other in a loop: {' -> '.join(cycle)}")
            status = 1
        else:
            print(f"{group}: {len(objects)} files, one way, lowest first: "
                  + " < ".join("{" + ", ".join(layer) + "}" for layer in layers))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
