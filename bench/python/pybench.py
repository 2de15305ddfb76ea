"""Python readers of HDF5/netCDF-4 data, through Debian's HDF5 alone and through pfio.

    pybench.py --file F --make                        make F (a 1 GiB netCDF-4 file)
    pybench.py --file F [--evict-too PATH] --target disk --rounds 3 --json out.jsonl

F holds three variables, each element its own index in its variable (every value read is checked):
  grid    (8192, 8192) uint64 in (256, 256) chunks (512 KiB), 512 MiB
  series  (512, 256, 512) uint64 in (1, 256, 512) chunks (1 MiB), 512 MiB
  zgrid   grid again, its chunks gzip-compressed (level 1, no shuffle)
--make makes F when it is missing or lacks a variable, and leaves it otherwise.
Workloads, 128 MiB each:
  tiles   h5py: 256 random tiles of grid, one chunk each (a new order every round)
  strips  h5py: 8 column strips of grid, 256 wide, all rows (32 chunks each, 4 MiB apart)
  columns h5py: 8 lone column strips as above, 4 strips apart (each call one column of chunks,
          no sweep: what a reader of single columns does)
  block   h5py: one call, grid[4096:8192, 2048:6144] (16 x 16 chunks)
  zstrips h5py: strips of zgrid (compressed chunks: read ahead by pfio, decompressed by HDF5)
  time    xarray (netcdf4 engine): 128 time slices of series in order, one chunk each
  point   xarray (netcdf4 engine): one call, the time series of one (y, x) of series over 128
          times (HDF5 reads each time's 1 MiB chunk whole for its one value)
Methods:
  sec2        Debian's h5py/netCDF4 as they are (HDF5's sec2 driver)
  preload     the same program under LD_PRELOAD=libpfio_hdf5_preload.so (no code change)
  declared    pfio.h5.declare of what will be read, then the same reads (tiles, strips, columns,
              block: a file opened with pfio.h5.open; time, point: xarray under the preload, with
              the chunks declared through an h5py handle on the same file)
  sec2-again  sec2 again: the A/A spread of the invocation
Each run is its own process started after the file's pages were dropped (a sync, then
POSIX_FADV_DONTNEED on F and on --evict-too, the file behind a test bed's F; fincore checks that
none of F stays resident: evict() says why not drop_caches). Methods run in a balanced order
(balanced_orders). A run reports its time from the open to the last read checked, the reader's CPU time over it (every
thread's), pfio's counters when pfio read it, and, with --server-pid (testbed.sh pids), the CPU the
test bed's server took during the run: on a machine whose cores the server shares, (reader + server)
/ cores is a floor of the run's time.
"""
import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

GRID = (8192, 8192, 256)  # rows, cols, chunk side
SERIES = (512, 256, 512)  # t, y, x
TILES, STRIPS, SLICES = 256, 8, 128
METHODS = ["sec2", "preload", "declared", "sec2-again"]
WORKLOADS = ["tiles", "strips", "columns", "block", "zstrips", "time", "point"]
VARIABLES = ("grid", "series", "zgrid")
COLUMN_GAP = 4  # columns: strips this many apart
HERE = os.path.dirname(os.path.abspath(__file__))


def complete(path):
    """Whether `path` is a benchmark file with every variable."""
    import netCDF4
    try:
        with netCDF4.Dataset(path, "r") as d:
            return all(v in d.variables for v in VARIABLES)
    except OSError:
        return False


def make(path):
    import netCDF4
    rows, cols, side = GRID
    t, y, x = SERIES
    if complete(path):
        return
    with netCDF4.Dataset(path, "w") as d:
        for name, n in (("r", rows), ("c", cols), ("t", t), ("y", y), ("x", x)):
            d.createDimension(name, n)
        grid = d.createVariable("grid", "u8", ("r", "c"), chunksizes=(side, side))
        zgrid = d.createVariable("zgrid", "u8", ("r", "c"), chunksizes=(side, side), zlib=True,
                                 complevel=1, shuffle=False)
        for r in range(0, rows, side):
            rows_of = np.arange(r * cols, (r + side) * cols, dtype="u8").reshape(side, cols)
            grid[r:r + side, :] = rows_of
            zgrid[r:r + side, :] = rows_of
        series = d.createVariable("series", "u8", ("t", "y", "x"), chunksizes=(1, y, x))
        for k in range(0, t, 16):
            series[k:k + 16] = np.arange(k * y * x, (k + 16) * y * x, dtype="u8").reshape(16, y, x)


def tiles_of(seed):
    rows, cols, side = GRID
    every = [(r, c) for r in range(0, rows, side) for c in range(0, cols, side)]
    return random.Random(seed).sample(every, TILES)


def grid_block(r0, r1, c0, c1):
    return (np.arange(r0, r1, dtype="u8")[:, None] * GRID[1] + np.arange(c0, c1, dtype="u8"))


def cpu_seconds():
    """This process's CPU time so far, user and system, every thread's (pfio's too)."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def server_cpu_seconds(pids):
    """The CPU time so far of the test bed's server processes (testbed.sh pids), every thread's."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return total


def worker(workload, method, path, seed):
    """One run in this process: (seconds, bytes, wrong values, CPU seconds of the run)."""
    import h5py
    side, wrong, nbytes = GRID[2], 0, 0
    start, cpu_start = time.perf_counter(), cpu_seconds()
    if workload in ("tiles", "strips", "columns", "block", "zstrips"):
        if method == "declared":
            import pfio.h5
            f = pfio.h5.open(path)
        else:
            f = h5py.File(path, "r")
        grid = f["zgrid" if workload == "zstrips" else "grid"]
        if workload == "tiles":
            blocks = [(r, r + side, c, c + side) for r, c in tiles_of(seed)]
        elif workload == "block":
            blocks = [(GRID[0] // 2, GRID[0], GRID[1] // 4, GRID[1] * 3 // 4)]
        else:
            gap = COLUMN_GAP if workload == "columns" else 1
            first = random.Random(seed).randrange(0, GRID[1] // side - gap * STRIPS + gap - 1)
            blocks = [(0, GRID[0], c * side, (c + 1) * side)
                      for c in range(first, first + gap * STRIPS, gap)]
        if method == "declared":
            pfio.h5.declare(grid, [(slice(a, b), slice(c, d)) for a, b, c, d in blocks])
        for a, b, c, d in blocks:
            got = grid[a:b, c:d]
            wrong += int((got != grid_block(a, b, c, d)).sum())
            nbytes += got.nbytes
        f.close()
    else:
        import xarray
        t, y, x = SERIES
        ds = xarray.open_dataset(path, engine="netcdf4", cache=False)
        handle = None
        if method == "declared":  # the same file through h5py, under the preload: one driver
            import pfio.h5
            handle = h5py.File(path, "r")
            pfio.h5.declare(handle["series"], [(k, slice(None), slice(None)) for k in range(SLICES)])
        if workload == "point":
            py, px = random.Random(seed).randrange(y), random.Random(seed + 1).randrange(x)
            got = ds["series"][0:SLICES, py, px].values
            want = np.arange(SLICES, dtype="u8") * (y * x) + (py * x + px)
            wrong += int((got != want).sum())
            nbytes += SLICES * y * x * 8  # the chunks HDF5 reads for it
        for k in range(SLICES if workload == "time" else 0):
            got = ds["series"][k].values
            wrong += int((got != np.arange(k * y * x, (k + 1) * y * x, dtype="u8").reshape(y, x)).sum())
            nbytes += got.nbytes
        ds.close()
        if handle is not None:
            handle.close()
    return time.perf_counter() - start, nbytes, wrong, cpu_seconds() - cpu_start


def evict(paths):
    """Drops the data file's pages (and those of the file behind a test bed's) from the page cache,
    and says how much of it stays resident (fincore). Only the data: drop_caches would also drop
    the programs' libraries, and pfio's, which the preload loads at the first H5Fopen (inside the
    timed span), would then be read from the disk in every run, about 12 ms that a program whose
    libraries are cached never pays (docs/hdf5-driver.md, "What a call of one chunk costs")."""
    # Everything written so far reaches the disk first (the counters files the run before wrote
    # and removed, on the same disk): else the file system's writeback and journal commit of them
    # fell inside the next run and slowed whichever method came after a pfio one.
    os.sync()
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
    resident = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES", paths[0]],
                              capture_output=True, text=True)
    return int(resident.stdout.split()[0]) if resident.returncode == 0 else None


def run(args, workload, method, seed):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PFIO_")}
    stats = None
    if method in ("preload", "declared"):
        stats = os.path.join(args.scratch, "stats-%s-%s" % (workload, method))
        env["PFIO_STATS_PATH"] = stats
        if not (method == "declared" and workload not in ("time", "point")):
            env["LD_PRELOAD"] = args.preload
    resident = evict([args.file] + args.evict_too)
    if resident:
        raise SystemExit("pybench: %s: %d bytes still in the page cache after eviction: expected 0"
                         % (args.file, resident))
    server_before = server_cpu_seconds(args.server_pid)
    done = subprocess.run([sys.executable, __file__, "--worker", workload, method, args.file,
                           str(seed)], env=env, capture_output=True, text=True, timeout=1800)
    server = server_cpu_seconds(args.server_pid) - server_before if args.server_pid else None
    if done.returncode != 0:
        raise SystemExit("pybench: %s %s failed:\n%s" % (workload, method, done.stderr[-2000:]))
    seconds, nbytes, wrong, cpu = json.loads(done.stdout.strip().splitlines()[-1])
    counters = None
    if stats is not None:
        try:
            with open(stats + ".hdf5") as f:
                counters = json.load(f)
        except OSError:
            raise SystemExit("pybench: %s %s left no pfio counters: pfio did not read the file"
                             % (workload, method))
        for leftover in (stats, stats + ".hdf5"):
            if os.path.exists(leftover):
                os.remove(leftover)
    return {"target": args.target, "workload": workload, "method": method, "seconds": seconds,
            "bytes": nbytes, "mib_s": nbytes / seconds / 2**20, "wrong": wrong,
            "resident_before": resident, "counters": counters, "cpu_reader": cpu,
            "cpu_server": server, "cores": os.cpu_count()}


def balanced_orders(methods):
    """The methods' orders round by round, a Williams design: over len(orders) rounds every method
    runs at every place once and right after every other method once. A run reads what the run
    before it read (the same seed in a round), and a plain rotation put each method always after
    the same one, so whatever a run leaves behind in the device or the host (caches, readahead)
    fell on one method only."""
    n = len(methods)
    first, low, high = [0], 1, n - 1
    while len(first) < n:
        first.append(low)
        low += 1
        if len(first) < n:
            first.append(high)
            high -= 1
    rows = [[(k + shift) % n for k in first] for shift in range(n)]
    if n % 2:  # odd: the mirror square too, so that every pair follows once each way
        rows += [row[::-1] for row in rows]
    return [[methods[k] for k in row] for row in rows]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--file")
    p.add_argument("--make", action="store_true")
    p.add_argument("--evict-too", action="append", default=[])
    p.add_argument("--target", default="disk")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--workloads", default=",".join(WORKLOADS))
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--json")
    p.add_argument("--server-pid", type=int, action="append", default=[],
                   help="a process of the test bed's server (testbed.sh pids): its CPU per run")
    p.add_argument("--preload", default=os.environ.get("PYBENCH_PRELOAD", "libpfio_hdf5_preload.so"))
    p.add_argument("--worker", nargs=4, metavar=("WORKLOAD", "METHOD", "FILE", "SEED"))
    args = p.parse_args()
    if args.worker:
        workload, method, path, seed = args.worker
        print(json.dumps(worker(workload, method, path, int(seed))))
        return
    if not args.file:
        raise SystemExit("pybench: --file is required")
    if args.make:
        make(args.file)
        return
    methods = args.methods.split(",")
    for m in methods:
        if m not in METHODS:
            raise SystemExit("pybench: method %r: expected one of %s" % (m, ", ".join(METHODS)))
    out = open(args.json, "a") if args.json else None
    scratch = tempfile.TemporaryDirectory(prefix="pybench-")  # pfio's counters files, per run
    args.scratch = scratch.name
    orders = balanced_orders(methods)
    for rnd in range(args.rounds):
        for workload in args.workloads.split(","):
            for method in orders[rnd % len(orders)]:
                r = run(args, workload, method, seed=rnd)
                r["round"] = rnd
                server = "" if r["cpu_server"] is None else "  server CPU %.2f s" % r["cpu_server"]
                print("%-5s round %d %-7s %-10s %7.1f MiB/s  %6.2f s  CPU %.2f s%s  wrong %d  "
                      "resident %s" % (args.target, rnd + 1, workload, method, r["mib_s"],
                                       r["seconds"], r["cpu_reader"], server, r["wrong"],
                                       r["resident_before"]), flush=True)
                if r["wrong"]:
                    raise SystemExit("pybench: %d wrong values" % r["wrong"])
                if out:
                    out.write(json.dumps(r) + "\n")
                    out.flush()


if __name__ == "__main__":
    main()
