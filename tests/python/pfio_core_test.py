"""pfio.core (python/pfio/core.py): pfio's C API from Python, on a real file whose every 8-byte
word holds its own offset. Run by ctest with PYTHONPATH at python/ and LIBPFIO_DIR at the
build's src/; files under PFIO_TEST_DIR (taken out of the environment: pfio refuses PFIO_*
variables it does not know)."""
import json
import os
import struct
import sys
import tempfile
import unittest

import pfio
import pfio.core

TEST_DIR = os.environ.pop("PFIO_TEST_DIR", None) or tempfile.gettempdir()
BLOCK, BLOCKS = 256 << 10, 32


class Core(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(TEST_DIR, exist_ok=True)
        fd, cls.path = tempfile.mkstemp(prefix="pfio-core-", dir=TEST_DIR)
        with os.fdopen(fd, "wb") as f:
            f.write(struct.pack("<%dQ" % (BLOCK * BLOCKS // 8), *range(0, BLOCK * BLOCKS, 8)))

    @classmethod
    def tearDownClass(cls):
        os.remove(cls.path)

    def check_block(self, data, offset):
        words = struct.unpack("<%dQ" % (len(data) // 8), data)
        self.assertEqual(list(words), list(range(offset, offset + len(data), 8)))

    def test_a_planned_scattered_read_is_served_from_the_buffer_within_the_budget(self):
        order = [(k * 7 % BLOCKS) * BLOCK for k in range(BLOCKS)]
        with pfio.core.Context(budget="4M") as ctx:
            f = ctx.open(self.path)
            ctx.plan([(f, o, BLOCK) for o in order])
            for o in order:
                self.check_block(ctx.read(f, o, BLOCK), o)
            self.check_block(ctx.read(f, 123 * 8, 4096), 123 * 8)  # outside the plan: direct
            self.assertEqual(ctx.read(f, BLOCK * BLOCKS - 8, 64), struct.pack("<Q", BLOCK * BLOCKS - 8))
            s = ctx.stats()
            stats_path = os.path.join(TEST_DIR, "pfio-core-stats.json")
            ctx.write_stats(stats_path)
        self.assertEqual(s["hits"], BLOCKS)
        self.assertGreaterEqual(s["misses"], 1)
        self.assertLessEqual(s["memory_peak"], 4 << 20)
        with open(stats_path) as j:
            written = json.load(j)
        os.remove(stats_path)
        for name in ("reads", "hits", "misses", "bytes_served", "memory_peak", "budget_cap",
                     "policy", "backend", "stage_mode"):  # the ctypes mirror, checked
            self.assertEqual(s[name], written[name], name)

    def test_bad_input_is_named(self):
        with self.assertRaisesRegex(pfio.PfioError, r'setting budget = .lots.: budget = "lots": expected'):
            pfio.core.Context(budget="lots")
        with pfio.core.Context() as ctx:
            with self.assertRaisesRegex(pfio.PfioError, "opening /nonexistent/x"):
                ctx.open("/nonexistent/x")
            with self.assertRaisesRegex(pfio.PfioError, "file 7"):
                ctx.read(7, 0, 8)
            f = ctx.open(self.path)
            with self.assertRaisesRegex(pfio.PfioError, "ends past the end"):
                ctx.plan([(f, BLOCK * BLOCKS - 8, 64)])
            self.check_block(ctx.read(f, 0, 64), 0)  # still reads after the refusals


if __name__ == "__main__":
    unittest.main(argv=sys.argv, verbosity=2)
