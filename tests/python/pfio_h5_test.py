"""The Python package (python/pfio) with Debian's h5py: declared plans, counters, clear errors.

Every value read is checked (element i of a dataset is i). Run by ctest with PYTHONPATH at
python/, LIBPFIO_DIR at the build's hdf5-vfd/ and NCC_PRELOAD at libpfio_hdf5_preload.so; files
go under PFIO_TEST_DIR (not passed on: pfio refuses PFIO_* variables it does not know).
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest

import h5py
import numpy as np

import pfio
import pfio.h5

TEST_DIR = os.environ.pop("PFIO_TEST_DIR", None) or tempfile.gettempdir()
ROWS, COLS, CROWS, CCOLS = 512, 512, 64, 64


def expected(r0, r1, c0, c1):
    return np.arange(ROWS * COLS, dtype="u8").reshape(ROWS, COLS)[r0:r1, c0:c1]


class Package(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(TEST_DIR, exist_ok=True)
        cls.dir = tempfile.mkdtemp(prefix="pfio-python-", dir=TEST_DIR)
        cls.h5 = os.path.join(cls.dir, "grid.h5")
        with h5py.File(cls.h5, "w") as f:
            f.create_dataset("x", data=np.arange(ROWS * COLS, dtype="u8").reshape(ROWS, COLS),
                             chunks=(CROWS, CCOLS))
            f.create_dataset("flat", data=np.arange(100000, dtype="u8"))
            f.create_dataset("one", data=np.uint64(7))  # a scalar dataset

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def tiles(self, seed):
        order = [(r, c) for r in range(0, ROWS, CROWS) for c in range(0, COLS, CCOLS)]
        random.Random(seed).shuffle(order)
        return order

    def test_declared_tiles_are_read_as_declared(self):
        with pfio.h5.open(self.h5) as f:
            self.assertEqual(f.driver, "unknown")  # not sec2: pfio's, which h5py does not name
            x = f["x"]
            order = self.tiles(1)
            sels = [(slice(r, r + CROWS), slice(c, c + CCOLS)) for r, c in order]
            self.assertEqual(pfio.h5.declare(x, sels), len(sels))
            for (r, c), sel in zip(order, sels):
                np.testing.assert_array_equal(x[sel], expected(r, r + CROWS, c, c + CCOLS))
            s = pfio.h5.stats(f)
        self.assertEqual(s["declared_extents"], len(order))
        self.assertEqual(s["declared_bytes"], len(order) * CROWS * CCOLS * 8)
        self.assertEqual(s["advised_reads"], len(order))  # every read was one declared extent
        self.assertEqual(s["unplanned_reads"], 0)

    def test_the_engine_serves_a_declared_plan_within_its_budget(self):
        with pfio.h5.open(self.h5, engine_min="0", budget="16M") as f:
            x = f["x"]
            pfio.h5.declare(x, [(slice(None), slice(c, c + CCOLS)) for c in range(0, COLS, CCOLS)])
            for c in range(0, COLS, CCOLS):
                np.testing.assert_array_equal(x[:, c:c + CCOLS], expected(0, ROWS, c, c + CCOLS))
            s = pfio.h5.stats(x)
        engine = s["engine"]
        self.assertEqual(engine["budget_cap"] > 0, True)
        self.assertGreater(engine["hits"], 0)
        self.assertEqual(engine["bytes_served"], ROWS * COLS * 8)
        self.assertLessEqual(engine["memory_peak"], 16 << 20)
        self.assertIn(engine["backend"].split("+")[0], ("aio", "uring", "sync"))

    def test_a_contiguous_dataset_and_everything_declared(self):
        with pfio.h5.open(self.h5) as f:
            flat = f["flat"]
            self.assertEqual(pfio.h5.declare(flat), 1)
            self.assertEqual(pfio.h5.declare(flat, (slice(10, 20000),)), 1)
            np.testing.assert_array_equal(flat[:], np.arange(100000))
            np.testing.assert_array_equal(flat[10:20000], np.arange(10, 20000))
            self.assertGreaterEqual(pfio.h5.stats(f)["declared_extents"], 2)

    def test_counters_agree_with_the_file_the_driver_writes_at_close(self):
        stats_path = os.path.join(self.dir, "agree")
        with pfio.h5.open(self.h5, stats_path=stats_path) as f:
            x = f["x"]
            pfio.h5.declare(x, (slice(0, 128), slice(None)))
            np.testing.assert_array_equal(x[0:128, :], expected(0, 128, 0, COLS))
            np.testing.assert_array_equal(x[300, 17:99], expected(300, 301, 17, 99)[0])
            live = pfio.h5.stats(f)
        with open(stats_path + ".hdf5") as j:
            written = json.load(j)
        counters = set(live) - {"engine"}
        self.assertEqual(counters, set(written) - {"pfio", "file", "hdf5", "read_only"})
        for name in counters:  # the struct's layout, field by field
            self.assertEqual(live[name], written[name], name)
        self.assertGreater(written["raw_reads"], 0)
        self.assertGreater(len(live["engine"]), 30)  # pfio_stats, as its own list gives it
        self.assertIsInstance(live["engine"]["backend"], str)

    def test_bad_input_is_named(self):
        with self.assertRaisesRegex(pfio.PfioError, r'budget = "lots": expected'):
            pfio.h5.open(self.h5, budget="lots")
        with self.assertRaisesRegex(pfio.PfioError, r"queue_dpth"):
            pfio.h5.open(self.h5, queue_dpth="4")
        with self.assertRaisesRegex(pfio.PfioError, r"mode = 'w': expected 'r' or 'r\+'"):
            pfio.h5.open(self.h5, "w")
        with self.assertRaises(OSError) as missing:  # h5py's own error, as for any h5py.File
            pfio.h5.open(os.path.join(self.dir, "none.h5"))
        self.assertIn("none.h5", str(missing.exception))
        self.assertIn("No such file or directory", str(missing.exception))
        with pfio.h5.open(self.h5) as f:
            x = f["x"]
            with self.assertRaisesRegex(pfio.PfioError, "dimension 0 has step 2: expected 1"):
                pfio.h5.declare(x, (slice(0, 10, 2), slice(None)))
            with self.assertRaisesRegex(pfio.PfioError, "index 512 of dimension 1: expected 0 .. 511"):
                pfio.h5.declare(x, (0, 512))
            with self.assertRaisesRegex(pfio.PfioError, "has 3 indices: the dataset has 2"):
                pfio.h5.declare(x, (0, 0, 0))
            with self.assertRaisesRegex(pfio.PfioError, "expected an h5py.Dataset"):
                pfio.h5.declare(f, (0, 0))
            # Round 4, item 14: numpy's integers are integers ("dimension 0 is 3: expected an int
            # or a slice"), and what is refused says its type; a scalar dataset is declared
            # ("could not list the runs of its selection").
            with self.assertRaisesRegex(pfio.PfioError, r"dimension 0 is '3' \(str\): expected an "
                                                        r"integer or a slice"):
                pfio.h5.declare(x, ("3", 0))
            self.assertEqual(pfio.h5.declare(x, (np.int64(3), slice(None))), 1)
            np.testing.assert_array_equal(x[np.int64(3), :], expected(3, 4, 0, COLS)[0])
            before = pfio.h5.stats(f)["declared_bytes"]
            self.assertEqual(pfio.h5.declare(f["one"]), 1)
            self.assertEqual(f["one"][()], 7)
            self.assertEqual(pfio.h5.stats(f)["declared_bytes"], before + 8)
            np.testing.assert_array_equal(x[5, :], expected(5, 6, 0, COLS)[0])  # still reads

    def test_a_file_not_read_through_pfio_is_refused_by_name(self):
        with h5py.File(self.h5, "r") as f:
            with self.assertRaisesRegex(pfio.PfioError, "prefetch driver|not open with"):
                pfio.h5.declare(f["x"], (0, slice(None)))

    def test_plain_h5py_under_the_preload_takes_declarations(self):
        script = """
import h5py, numpy as np, pfio.h5
with h5py.File(%r, 'r') as f:
    x = f['x']
    pfio.h5.declare(x, [(slice(r, r + 64), slice(None)) for r in range(448, -1, -64)])
    for r in range(448, -1, -64):
        assert (x[r:r + 64, :] == np.arange(r * 512, (r + 64) * 512).reshape(64, 512)).all()
    s = pfio.h5.stats(f)
    assert s['declared_bytes'] == 512 * 512 * 8 and s['unplanned_reads'] == 0, s
print('preloaded h5py declared and checked')
""" % self.h5
        env = {k: v for k, v in os.environ.items() if not k.startswith("PFIO_")}
        env["LD_PRELOAD"] = os.environ["NCC_PRELOAD"]
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                              text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("declared and checked", done.stdout)

    def test_h5py_mpi_ranks_declare_their_own_tiles(self):
        script = """
from mpi4py import MPI
import h5py, numpy as np, os, random, pfio.h5
rank, size = MPI.COMM_WORLD.rank, MPI.COMM_WORLD.size
assert h5py.get_config().mpi
order = [(r, c) for r in range(0, 512, 64) for c in range(0, 512, 64)][rank::size]
random.Random(rank).shuffle(order)
with pfio.h5.open(%r) as f:
    x = f['x']
    pfio.h5.declare(x, [(slice(r, r + 64), slice(c, c + 64)) for r, c in order])
    full = np.arange(512 * 512, dtype='u8').reshape(512, 512)
    for r, c in order:
        assert (x[r:r + 64, c:c + 64] == full[r:r + 64, c:c + 64]).all(), (rank, r, c)
    assert pfio.h5.stats(f)['declared_extents'] == len(order)
# one write(2) per line: mpirun interleaves the ranks' output at the writes it reads
os.write(1, b'rank %%d checked %%d tiles\\n' %% (rank, len(order)))
""" % self.h5
        mpirun = ["mpirun.openmpi", "--oversubscribe", "-np", "2", "-x", "PYTHONPATH",
                  "-x", "LIBPFIO_DIR"]
        if os.getuid() == 0:
            mpirun.insert(1, "--allow-run-as-root")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PFIO_")}
        done = subprocess.run(mpirun + ["/usr/bin/python3", "-c", script], env=env,
                              capture_output=True, text=True, timeout=240)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        for rank in (0, 1):
            self.assertIn("rank %d checked 32 tiles" % rank, done.stdout)


if __name__ == "__main__":
    unittest.main(argv=sys.argv, verbosity=2)
