#!/usr/bin/python3
"""The documents' examples run as written: every ```python block of docs/python.md, in order, each
its own process in one scratch directory (a block may use the files an earlier one made), with the
environment docs/python.md gives for a build tree (PYTHONPATH=python,
LIBPFIO_DIR=build/hdf5-vfd:build/src). Run by ctest with DOCS_SOURCE_DIR and DOCS_BUILD_DIR (not
PFIO_*: pfio takes those as its settings and refuses names it does not know)."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("DOCS_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("DOCS_BUILD_DIR", os.path.join(SOURCE, "build"))


def blocks(doc, language):
    """The fenced blocks of `language` in `doc`, in order."""
    text = open(os.path.join(SOURCE, "docs", doc)).read()
    return re.findall(r"^```%s\n(.*?)^```$" % language, text, re.M | re.S)


class Snippets(unittest.TestCase):
    def test_python_md(self):
        found = blocks("python.md", "python")
        self.assertGreaterEqual(len(found), 3, "docs/python.md: expected its three examples")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.path.join(SOURCE, "python")
        env["LIBPFIO_DIR"] = os.pathsep.join([os.path.join(BUILD, "hdf5-vfd"),
                                              os.path.join(BUILD, "src")])
        with tempfile.TemporaryDirectory() as scratch:
            for number, code in enumerate(found, 1):
                done = subprocess.run([sys.executable, "-c", code], cwd=scratch, env=env,
                                      capture_output=True, text=True, timeout=300)
                self.assertEqual(done.returncode, 0, "docs/python.md, example %d:\n%s\n%s"
                                 % (number, code, done.stderr[-3000:]))
                print("docs/python.md example %d: ok %s" % (number, done.stdout.strip()))


if __name__ == "__main__":
    unittest.main()
