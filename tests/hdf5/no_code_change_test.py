"""HDF5 readers that were not written for pfio, read through its driver with no code change.

Each case starts an unmodified program (a C program of either HDF5 build, h5dump, nccopy,
h5py serial and MPI, netCDF4, xarray) with libpfio_hdf5_preload.so in LD_PRELOAD and
PFIO_STATS_PATH set, checks every value it reads (element i of a dataset is i: each value names
its own place), and checks the driver's counters file (<stats path>.hdf5) to prove the reads went
through pfio. The fallback cases check that a file the driver cannot serve is still read, with one
message, and that PFIO_HDF5=off leaves the program alone.

Run by ctest with the paths in the environment:
  NCC_PRELOAD        libpfio_hdf5_preload.so
  NCC_PLAIN_SERIAL   plain_reader built against the serial HDF5
  NCC_PLAIN_OPENMPI  plain_reader built against the Open MPI HDF5
  PFIO_TEST_DIR      where files go (a fresh directory under it); not passed to the programs
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

PYTHON = "/usr/bin/python3"  # Debian's, which sees python3-h5py and python3-netcdf4
ROWS, COLS, CROWS, CCOLS = 256, 512, 32, 64


def run(argv, env_extra=None, preload=True, check=True):
    env = dict(os.environ)
    for key in list(env):
        if key.startswith("PFIO_"):  # pfio refuses a PFIO_* variable it does not know
            del env[key]
    if preload:
        env["LD_PRELOAD"] = os.environ["NCC_PRELOAD"]
    env.update(env_extra or {})
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=240)
    if check and done.returncode != 0:
        raise AssertionError("%s exited %d\nstdout:\n%s\nstderr:\n%s" %
                             (argv, done.returncode, done.stdout[-3000:], done.stderr[-3000:]))
    return done


def open_mpi_run(ranks):
    """Open MPI's mpirun for `ranks` ranks on this machine (as root too)."""
    mpirun = ["mpirun.openmpi", "--oversubscribe", "-np", str(ranks)]
    if os.getuid() == 0:
        mpirun.insert(1, "--allow-run-as-root")
    return mpirun


class NoCodeChange(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        base = os.environ.get("PFIO_TEST_DIR") or tempfile.gettempdir()
        os.makedirs(base, exist_ok=True)
        cls.dir = tempfile.mkdtemp(prefix="pfio-no-code-change-", dir=base)
        cls.h5 = os.path.join(cls.dir, "grid.h5")
        run([os.environ["NCC_PLAIN_SERIAL"], cls.h5, "create", str(ROWS), str(COLS), str(CROWS),
             str(CCOLS)], preload=False)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def stats_path(self, name):
        path = os.path.join(self.dir, name)
        for old in (path, path + ".hdf5"):
            if os.path.exists(old):
                os.remove(old)
        return path

    def values_checked_counters(self, script, stats, file_name):
        """Runs a Python script under the preload with PFIO_STATS_PATH=stats; it must print
        'values checked'. Returns the driver's counters of file_name."""
        done = run([PYTHON, "-c", script], {"PFIO_STATS_PATH": stats})
        self.assertIn("values checked", done.stdout)
        return self.driver_counters(stats, file_name)

    def driver_counters(self, stats, file_name):
        with open(stats + ".hdf5") as f:
            counters = json.load(f)
        self.assertEqual(os.path.basename(counters["file"]), os.path.basename(file_name))
        self.assertEqual(counters["hdf5"], "1.10.8")
        return counters

    def test_c_programs_of_both_hdf5_builds(self):
        for build in ("NCC_PLAIN_SERIAL", "NCC_PLAIN_OPENMPI"):
            # Two threads at once only through the serial build: Debian's Open MPI build of HDF5
            # is not thread-safe (its libhdf5.settings: "Threadsafety: no"; it crashes so
            # without pfio too).
            threads = ("threads",) if build == "NCC_PLAIN_SERIAL" else ()
            for pattern in ("rows", "columns", "tiles") + threads:
                stats = self.stats_path("plain-%s-%s" % (build, pattern))
                done = run([os.environ[build], self.h5, pattern], {"PFIO_STATS_PATH": stats})
                self.assertIn("%d x %d values checked" % (ROWS, COLS), done.stdout)
                self.assertEqual(done.stderr, "")
                counters = self.driver_counters(stats, self.h5)
                chunks = (ROWS // CROWS) * (COLS // CCOLS)
                self.assertGreaterEqual(counters["raw_reads"], chunks, (build, pattern))
                self.assertTrue(counters["read_only"])

    def test_h5dump(self):
        stats = self.stats_path("h5dump")
        done = run(["h5dump", "-d", "x", "-s", "5,0", "-c", "1,8", self.h5],
                   {"PFIO_STATS_PATH": stats})
        values = done.stdout.split("DATA {")[1].split("}")[0]
        numbers = [int(v) for v in values.replace(":", ",").replace("(", " ").replace(")", " ")
                   .replace(",", " ").split()]
        self.assertEqual(numbers[-8:], [5 * COLS + c for c in range(8)])
        self.assertGreaterEqual(self.driver_counters(stats, self.h5)["raw_reads"], 1)

    def test_h5py_serial_tiles_and_strips(self):
        stats = self.stats_path("h5py")
        script = """
import h5py, numpy as np, random
R, C, CR, CC = %d, %d, %d, %d
expect = np.arange(R * C, dtype='u8').reshape(R, C)
with h5py.File(%r, 'r') as f:
    x = f['x']
    assert f.driver == 'unknown', f.driver  # not sec2: pfio's driver, which h5py does not name
    tiles = [(r, c) for r in range(0, R, CR) for c in range(0, C, CC)]
    random.Random(7).shuffle(tiles)
    for r, c in tiles:
        assert (x[r:r + CR, c:c + CC] == expect[r:r + CR, c:c + CC]).all(), (r, c)
    for c in range(0, C, CC):
        assert (x[:, c:c + CC] == expect[:, c:c + CC]).all(), c
print('h5py values checked', h5py.version.hdf5_version)
""" % (ROWS, COLS, CROWS, CCOLS, self.h5)
        done = run([PYTHON, "-c", script], {"PFIO_STATS_PATH": stats})
        self.assertIn("h5py values checked 1.10.8", done.stdout)
        counters = self.driver_counters(stats, self.h5)
        # Every chunk reached the driver at least once (HDF5's chunk cache serves repeats).
        self.assertGreaterEqual(counters["raw_reads"], (ROWS // CROWS) * (COLS // CCOLS))

    def test_each_h5dread_is_its_own_plan(self):
        # Issue 55, item 1: a read of several chunks (or runs) in one call is handed to pfio as
        # that call's plan before HDF5 reads it; a one-chunk read is passed on; what a call
        # leaves unread (chunks in HDF5's chunk cache) is dropped and breaks nothing.
        stats, contig = self.stats_path("per-call"), os.path.join(self.dir, "contig.h5")
        chunk = CROWS * CCOLS * 8
        script = """
import h5py, numpy as np
R, C, CR, CC = %d, %d, %d, %d
expect = np.arange(R * C, dtype='u8').reshape(R, C)
with h5py.File(%r, 'r') as f:
    x = f['x']
    for r, c in ((0, 0), (CR, 3 * CC), (5 * CR, 7 * CC)):  # one chunk each: passed on
        assert (x[r:r + CR, c:c + CC] == expect[r:r + CR, c:c + CC]).all(), (r, c)
    # Parts of two chunks, 32 KiB: too little to plan on a local file system.
    assert (x[CR - 1:CR + 1, CC:CC + 1] == expect[CR - 1:CR + 1, CC:CC + 1]).all()
    # Parts of 2 x 4 chunks, then a column of R / CR chunks: HDF5's chunk cache (1 MiB) keeps
    # every chunk read, and serves the column's first two.
    assert (x[CR - 1:CR + 1, 0:4 * CC] == expect[CR - 1:CR + 1, 0:4 * CC]).all()
    assert (x[:, 0:CC] == expect[:, 0:CC]).all()
    assert (x[:, 0:CC] == expect[:, 0:CC]).all()  # all in the chunk cache: its plan goes unread
    assert (x[2 * CR:6 * CR, 2 * CC:6 * CC] == expect[2 * CR:6 * CR, 2 * CC:6 * CC]).all()
    assert (x[6 * CR:8 * CR, 0:4 * CC] == expect[6 * CR:8 * CR, 0:4 * CC]).all()
print('values checked')
""" % (ROWS, COLS, CROWS, CCOLS, self.h5)
        counters = self.values_checked_counters(script, stats, self.h5)
        column = ROWS // CROWS
        # Planned: the 2 x 4 parts (6 chunks read: the 32 KiB call's two stay in HDF5's cache;
        # each row's run of 4 is found by looking up its ends), the column (6 read, 2 from
        # HDF5's cache), the column again (none read: an unread plan, dropped when the call
        # returned, so the dataset's next call goes unplanned: the 4 x 4 block, 16 chunks),
        # then the 2 x 4 block (6 read, 2 cached).
        # Unplanned: the three tiles, the 32 KiB call, the block after the unread plan.
        self.assertEqual(counters["call_plans"], 4)
        self.assertEqual(counters["call_plans_unread"], 1)
        self.assertEqual(counters["call_plan_bytes"], (8 + 2 * column + 8) * chunk)
        self.assertEqual(counters["calls_unplanned"], 3 + 1 + 1)
        self.assertEqual(counters["unplanned_reads"], 3 + 2 + 16)
        self.assertEqual(counters["raw_reads"], 3 + 2 + 6 + (column - 2) + 0 + 16 + 6)

        # A contiguous dataset: a column is a run from every row, each a plan extent, read as
        # such (no sieve blocks); a compressed one: its chunks whole, decompressed by HDF5; a
        # call that reads one stream of chunks: no plan on a local file system.
        script = """
import h5py, numpy as np
expect = np.arange(%d * %d, dtype='u8').reshape(%d, %d)
with h5py.File(%r, 'w') as f:  # created with sec2 (H5Fcreate is left to HDF5), read below
    f.create_dataset('y', data=expect)
    f.create_dataset('z', data=expect, chunks=(%d, %d), compression='gzip')
    f.create_dataset('w', data=np.arange(1 << 20, dtype='u8').reshape(1024, 1024),
                     chunks=(64, 1024))
with h5py.File(%r, 'r') as f:
    assert (f['y'][:, 100:140] == expect[:, 100:140]).all()  # 80 KiB
    assert (f['z'][:, 0:%d] == expect[:, 0:%d]).all()  # a column of compressed chunks
    # 16 chunks of 512 KiB one after another in the file: one stream, left to readahead
    assert (f['w'][:, 0:512] == np.arange(1 << 20, dtype='u8').reshape(1024, 1024)[:, 0:512]).all()
print('values checked')
""" % (ROWS, COLS, ROWS, COLS, contig, CROWS, CCOLS, contig, 2 * CCOLS, 2 * CCOLS)
        stats = self.stats_path("per-call-contiguous")
        counters = self.values_checked_counters(script, stats, contig)
        # The contiguous column: a run from every row. The compressed column: its 2 x R / CR
        # chunks at their stored sizes (gzip makes them smaller than their 16 KiB).
        column = 2 * (ROWS // CROWS)
        self.assertEqual(counters["call_plans"], 2)
        self.assertEqual(counters["calls_unplanned"], 1)
        # (a row's two chunks lie side by side when written in order: one extent)
        self.assertIn(counters["call_plan_extents"] - ROWS, range(column // 2, column + 1))
        self.assertGreater(counters["call_plan_bytes"], ROWS * 40 * 8)
        self.assertLess(counters["call_plan_bytes"], ROWS * 40 * 8 + column * chunk)
        self.assertEqual(counters["raw_reads"], ROWS + column + 16)

    def test_calls_that_move_by_one_shift_are_planned_ahead(self):
        # Issue 55, item 1 across calls: after three planned calls of one box shape, each moved
        # by the same shift, the next call's extents are handed to pfio when the call before it
        # returns; a call that is not the one foreseen drops them and the next foresight waits.
        stats = self.stats_path("ahead")
        script = """
import h5py, numpy as np
R, C, CR, CC = %d, %d, %d, %d
expect = np.arange(R * C, dtype='u8').reshape(R, C)
with h5py.File(%r, 'r') as f:
    x = f['x']
    for c in (0, 1, 2, 3, 4, 6):  # columns of chunks; after 4 comes 6, not the 5 foreseen
        assert (x[:, c * CC:(c + 1) * CC] == expect[:, c * CC:(c + 1) * CC]).all(), c
print('values checked')
""" % (ROWS, COLS, CROWS, CCOLS, self.h5)
        counters = self.values_checked_counters(script, stats, self.h5)
        column = ROWS // CROWS
        self.assertEqual(counters["call_plans"], 6)
        # Foreseen after columns 2, 3 and 4: 3 and 4 as foreseen, 5 not made (6 was).
        self.assertEqual(counters["calls_ahead"], 3)
        self.assertEqual(counters["calls_ahead_used"], 2)
        self.assertEqual(counters["calls_ahead_missed"], 1)
        self.assertEqual(counters["calls_ahead_bytes"], 3 * column * CROWS * CCOLS * 8)
        self.assertEqual(counters["raw_reads"], 6 * column)

    def test_h5py_writes_still_go_through(self):
        copy = os.path.join(self.dir, "written.h5")
        shutil.copy(self.h5, copy)
        stats = self.stats_path("h5py-write")
        write = """
import h5py, numpy as np
with h5py.File(%r, 'r+') as f:
    assert f.driver == 'unknown', f.driver
    before = f['x'][3, :].copy()
    f['x'][3, :] = before + 1
    assert (f['x'][3, :] == before + 1).all()
    f.create_dataset('y', data=np.arange(1000, dtype='u8'))
print('written')
""" % copy
        self.assertIn("written", run([PYTHON, "-c", write], {"PFIO_STATS_PATH": stats}).stdout)
        counters = self.driver_counters(stats, copy)
        self.assertFalse(counters["read_only"])
        self.assertGreater(counters["writes"], 0)
        self.assertGreater(counters["refreshes"], 0)
        read = """
import h5py, numpy as np
with h5py.File(%r, 'r') as f:
    assert (f['y'][:] == np.arange(1000)).all()
    assert (f['x'][3, :] == np.arange(3 * %d, 4 * %d) + 1).all()
    assert (f['x'][4, :] == np.arange(4 * %d, 5 * %d)).all()
print('read back')
""" % (copy, COLS, COLS, COLS, COLS)
        done = run([PYTHON, "-c", read], preload=False)
        self.assertIn("read back", done.stdout)

    def test_h5py_mpi_under_mpirun(self):
        mpirun = open_mpi_run(2)
        script = """
from mpi4py import MPI
import h5py, numpy as np, os
rank = MPI.COMM_WORLD.rank
os.environ['PFIO_STATS_PATH'] = %r + '.%%d' %% rank
assert h5py.get_config().mpi
R, C = %d, %d
with h5py.File(%r, 'r') as f:
    rows = f['x'][rank * R // 2:(rank + 1) * R // 2, :]
expect = np.arange(R * C, dtype='u8').reshape(R, C)[rank * R // 2:(rank + 1) * R // 2, :]
assert (rows == expect).all()
# one write(2) per line: mpirun interleaves the ranks' output at the writes it reads
os.write(1, b'rank %%d values checked\\n' %% rank)
""" % (os.path.join(self.dir, "h5py-mpi"), ROWS, COLS, self.h5)
        done = run(mpirun + ["-x", "LD_PRELOAD", PYTHON, "-c", script])
        for rank in (0, 1):
            self.assertIn("rank %d values checked" % rank, done.stdout)
            counters = self.driver_counters(os.path.join(self.dir, "h5py-mpi.%d" % rank), self.h5)
            self.assertGreaterEqual(counters["raw_reads"], ROWS // CROWS // 2)

    def test_one_file_object_per_file_as_hdf5_has_it(self):
        # Round 4, item 10 (and h5py's own TestFileLocking.test_reopen): with file locking off,
        # "r+" after "r" was refused by pfio's driver and then opened by the sec2 retry, and a
        # reader opened while the program's own writer held the file became a second file
        # object that missed the writer's unflushed objects. Now a file the program already has
        # open goes through the driver it was opened with: the same outcome as plain HDF5.
        path, made = os.path.join(self.dir, "reopen.h5"), os.path.join(self.dir, "made.h5")
        script = """
import h5py, numpy as np
out = []
with h5py.File(%r, 'w') as f:
    f['x'] = np.arange(8)
f = h5py.File(%r, 'r')
try:
    g = h5py.File(%r, 'r+')
    out.append('r+ after r: opened, ' + ','.join(g.keys()))
    g.close()
except Exception as e:
    out.append('r+ after r: refused, ' + type(e).__name__ + ': ' + str(e))
f.close()
w = h5py.File(%r, 'w')
w['a'] = np.arange(4)
w.flush()
w['b'] = np.arange(4)
r = h5py.File(%r, 'r')
out.append('reader sees ' + ','.join(sorted(r.keys())))
r.close()
w.close()
print(';'.join(out))
""" % (path, path, path, made, made)
        locking = {"HDF5_USE_FILE_LOCKING": "FALSE"}
        plain = run([PYTHON, "-c", script], locking, preload=False).stdout.strip()
        # The refusal as HDF5 gives it (h5py's OSError from HDF5's error stack), not "Unspecified
        # error in H5Fopen" (a RuntimeError) as when the driver's clean-up cleared that stack.
        self.assertEqual(plain, "r+ after r: refused, OSError: Unable to open file (file is "
                                "already open for read-only);reader sees a,b")
        done = run([PYTHON, "-c", script], locking)
        self.assertEqual(done.stdout.strip(), plain, done.stderr[-2000:])

    def test_two_hdf5_libraries_in_one_process(self):
        # Round 4, item 11: netCDF4 (Debian's serial HDF5) beside h5py's MPI build in one
        # process. The preload sent every H5Fopen to the first HDF5 it found, and netCDF4's open
        # failed ("NetCDF: HDF error"); each open now goes to the HDF5 its caller linked, and
        # through that HDF5's driver.
        nc = os.path.join(self.dir, "two.nc")
        make = """
import netCDF4, numpy as np
d = netCDF4.Dataset(%r, 'w')
d.createDimension('t', 16); d.createDimension('x', 2048)
v = d.createVariable('v', 'u8', ('t', 'x'), chunksizes=(1, 2048))
v[:] = np.arange(16 * 2048, dtype='u8').reshape(16, 2048)
d.close()
""" % nc
        run([PYTHON, "-c", make], preload=False)
        h5_stats, nc_stats = self.stats_path("two-h5py"), self.stats_path("two-netcdf")
        script = """
from mpi4py import MPI
import h5py, netCDF4, numpy as np, os
assert h5py.get_config().mpi
os.environ['PFIO_STATS_PATH'] = %r
with h5py.File(%r, 'r') as f:
    assert (f['x'][0:64, :] == np.arange(64 * %d, dtype='u8').reshape(64, %d)).all()
os.environ['PFIO_STATS_PATH'] = %r
with netCDF4.Dataset(%r) as d:
    for t in range(16):
        assert (d['v'][t, :] == np.arange(t * 2048, (t + 1) * 2048)).all(), t
os.write(1, b'both values checked\\n')
""" % (h5_stats, self.h5, COLS, COLS, nc_stats, nc)
        mpirun = open_mpi_run(1)
        done = run(mpirun + ["-x", "LD_PRELOAD", PYTHON, "-c", script])
        self.assertIn("both values checked", done.stdout)
        self.assertGreaterEqual(self.driver_counters(h5_stats, self.h5)["raw_reads"], 1)
        self.assertGreaterEqual(self.driver_counters(nc_stats, nc)["raw_reads"], 16)

    def test_netcdf4_xarray_and_nccopy(self):
        nc = os.path.join(self.dir, "series.nc")
        make = """
import netCDF4, numpy as np
d = netCDF4.Dataset(%r, 'w')
d.createDimension('t', 64); d.createDimension('x', 2048)
v = d.createVariable('v', 'u8', ('t', 'x'), chunksizes=(1, 2048))
v[:] = np.arange(64 * 2048, dtype='u8').reshape(64, 2048)
d.close()
""" % nc
        run([PYTHON, "-c", make], preload=False)
        stats = self.stats_path("netcdf")
        read = """
import netCDF4, xarray, numpy as np
with netCDF4.Dataset(%r) as d:
    for t in range(0, 64, 3):
        assert (d['v'][t, :] == np.arange(t * 2048, (t + 1) * 2048)).all(), t
ds = xarray.open_dataset(%r, engine='netcdf4')
for t in range(64):
    assert (ds['v'][t].values == np.arange(t * 2048, (t + 1) * 2048)).all(), t
ds.close()
print('netCDF4 and xarray values checked')
""" % (nc, nc)
        done = run([PYTHON, "-c", read], {"PFIO_STATS_PATH": stats})
        self.assertIn("values checked", done.stdout)
        self.assertGreaterEqual(self.driver_counters(stats, nc)["raw_reads"], 64)
        stats = self.stats_path("nccopy")
        copy = os.path.join(self.dir, "series-copy.nc")
        run(["nccopy", nc, copy], {"PFIO_STATS_PATH": stats})
        self.assertGreaterEqual(self.driver_counters(stats, nc)["raw_reads"], 64)
        check = """
import netCDF4, numpy as np
with netCDF4.Dataset(%r) as d:
    assert (d['v'][:] == np.arange(64 * 2048).reshape(64, 2048)).all()
print('copy checked')
""" % copy
        self.assertIn("copy checked", run([PYTHON, "-c", check], preload=False).stdout)

    def test_a_file_the_driver_cannot_serve_falls_back_with_one_message(self):
        stats = self.stats_path("fallback")
        done = run([os.environ["NCC_PLAIN_SERIAL"], self.h5, "rows"],
                   {"PFIO_STATS_PATH": stats, "PFIO_BUDGET": "lots"})
        self.assertIn("values checked", done.stdout)
        lines = done.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, done.stderr)
        self.assertIn("opened with HDF5's sec2 driver, not pfio's", lines[0])
        self.assertIn("PFIO_BUDGET = \"lots\"", lines[0])
        self.assertIn(os.path.basename(self.h5), lines[0])
        self.assertFalse(os.path.exists(stats + ".hdf5"))

    def test_a_missing_file_is_the_program_s_own_error_only(self):
        done = run([os.environ["NCC_PLAIN_SERIAL"], os.path.join(self.dir, "none.h5"), "rows"],
                   check=False)
        self.assertEqual(done.returncode, 1)
        self.assertNotIn("pfio:", done.stderr)
        self.assertIn("H5FD__sec2_open", done.stderr)  # HDF5's own error, from its own driver
        self.assertIn("H5Fopen failed", done.stderr)

    def test_the_switch_is_a_setting_like_the_others(self):
        # PFIO_HDF5 is pfio's key "hdf5": "on" keeps the driver (a variable pfio did not know
        # would make every open fall back), and a bad value is named like any other.
        stats = self.stats_path("switch-on")
        done = run([os.environ["NCC_PLAIN_SERIAL"], self.h5, "rows"],
                   {"PFIO_STATS_PATH": stats, "PFIO_HDF5": "on"})
        self.assertEqual(done.stderr, "")
        self.assertGreaterEqual(self.driver_counters(stats, self.h5)["raw_reads"], 1)
        stats = self.stats_path("switch-bad")
        done = run([os.environ["NCC_PLAIN_SERIAL"], self.h5, "rows"],
                   {"PFIO_STATS_PATH": stats, "PFIO_HDF5": "maybe"})
        self.assertIn("values checked", done.stdout)
        self.assertIn('PFIO_HDF5 = "maybe"', done.stderr)
        self.assertFalse(os.path.exists(stats + ".hdf5"))

    def test_switched_off_and_swmr_readers_are_left_to_hdf5(self):
        stats = self.stats_path("off")
        done = run([os.environ["NCC_PLAIN_SERIAL"], self.h5, "tiles"],
                   {"PFIO_STATS_PATH": stats, "PFIO_HDF5": "off"})
        self.assertIn("values checked", done.stdout)
        self.assertFalse(os.path.exists(stats + ".hdf5"))
        latest = os.path.join(self.dir, "swmr.h5")
        run([PYTHON, "-c", "import h5py, numpy as np\n"
             "with h5py.File(%r, 'w', libver='latest') as f:\n"
             "    f.create_dataset('y', data=np.arange(100, dtype='u8'))\n" % latest],
            preload=False)
        stats = self.stats_path("swmr")
        done = run([PYTHON, "-c", "import h5py, numpy as np\n"
                    "with h5py.File(%r, 'r', swmr=True) as f:\n"
                    "    assert (f['y'][:] == np.arange(100)).all()\n"
                    "print('swmr read')\n" % latest], {"PFIO_STATS_PATH": stats})
        self.assertIn("swmr read", done.stdout)
        self.assertFalse(os.path.exists(stats + ".hdf5"))


if __name__ == "__main__":
    unittest.main(argv=sys.argv, verbosity=2)
