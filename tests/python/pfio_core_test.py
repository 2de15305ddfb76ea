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
        # the mirror and the JSON come from the library's one list of its fields: every field
        # in both, the same values (the counters were read before the write, none moved since)
        self.assertEqual(set(s), set(written) - {"pfio", "aimd_history"})
        for name in ("reads", "hits", "misses", "bytes_served", "memory_peak", "budget_cap",
                     "policy", "backend", "stage_mode", "stall_seconds"):
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

    def test_values_ctypes_would_take_silently_are_refused_by_name(self):
        # Round 4, item 13: "64M\0anything" was 64M, offset -1 read b'', file 2**32 was file 0.
        with self.assertRaisesRegex(pfio.PfioError, r"setting budget = .64M.x00anything.: "
                                                    r"contains a NUL character"):
            pfio.core.Context(budget="64M\0anything")
        with pfio.core.Context() as ctx:
            f = ctx.open(self.path)
            with self.assertRaisesRegex(pfio.PfioError, r"offset = -1: expected 0 \.\. "):
                ctx.read(f, -1, 10)
            with self.assertRaisesRegex(pfio.PfioError, r"file id = %d: expected 0 \.\. "
                                                        r"2147483647" % (2 ** 32 + f)):
                ctx.read(2 ** 32 + f, 0, 8)
            with self.assertRaisesRegex(pfio.PfioError, r"length = '8': expected an integer"):
                ctx.read(f, 0, "8")
            with self.assertRaisesRegex(pfio.PfioError, r"offset = -8: expected"):
                ctx.plan([(f, -8, 8)])
            self.check_block(ctx.read(f, 64, 64), 64)

    def test_close_waits_for_a_read_in_another_thread(self):
        # Round 4, item 7: close() while another thread was in read() freed the context under it
        # (rc 139, or a reader blocked on the destroyed context's mutex). Now close waits for the
        # read, which returns its bytes, and calls after close are refused by name.
        import threading
        errors, reads = [], [0]
        ctx = pfio.core.Context(budget="4M")
        f = ctx.open(self.path)
        started = threading.Event()

        def reader():
            try:
                while True:
                    for k in range(BLOCKS):
                        self.check_block(ctx.read(f, k * BLOCK, BLOCK), k * BLOCK)
                        reads[0] += 1
                        started.set()
            except pfio.PfioError as e:
                if "the context is closed" not in str(e):
                    errors.append(e)
            except Exception as e:  # a wrong block
                errors.append(e)
            finally:
                started.set()

        threads = [threading.Thread(target=reader) for _ in range(2)]
        for t in threads:
            t.start()
        self.assertTrue(started.wait(60))
        ctx.close()
        for t in threads:
            t.join(60)
            self.assertFalse(t.is_alive(), "a reader is still blocked after close")
        self.assertEqual(errors, [])
        self.assertGreater(reads[0], 0)
        with self.assertRaisesRegex(pfio.PfioError, "reading 8 bytes at 0 of file %d: the context "
                                                    "is closed" % f):
            ctx.read(f, 0, 8)
        ctx.close()  # twice: nothing more to do


if __name__ == "__main__":
    unittest.main(argv=sys.argv, verbosity=2)
