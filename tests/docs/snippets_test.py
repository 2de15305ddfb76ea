#!/usr/bin/python3
"""The documents run as written: the links of README.md, docs/*.md and research's pages lead to
files and headings that exist; every ```python block of docs/python.md runs, in order, each
its own process in one scratch directory (a block may use the files an earlier one made), with
the environment docs/python.md gives for a build tree (PYTHONPATH=python,
LIBPFIO_DIR=build/hdf5-vfd:build/src); and every block fenced ```sh run in README.md and docs/*.md
runs as one bash script (errors stop it) from a scratch top of the tree whose build/, examples/ and
scripts/ are the real ones. Run by ctest with DOCS_SOURCE_DIR and DOCS_BUILD_DIR (not PFIO_*:
pfio takes those as its settings and refuses names it does not know)."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("DOCS_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("DOCS_BUILD_DIR", os.path.join(SOURCE, "build"))


def read(path):
    with open(path) as f:
        return f.read()


def blocks(doc, language):
    """The fenced blocks of `language` (the fence's whole info string) in `doc`, in order; `doc`
    relative to the top of the tree."""
    text = read(os.path.join(SOURCE, doc))
    return re.findall(r"^```%s\n(.*?)^```$" % re.escape(language), text, re.M | re.S)


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation but - and _ dropped, spaces -."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


class Snippets(unittest.TestCase):
    def test_links(self):
        """Every relative link of README.md, docs/*.md and research's pages (its experiments too)
        names a file of the repository, and its #anchor a heading of that file."""
        pages = ["README.md"]
        for folder in ("docs", "research", "research/papers", "research/experiments"):
            names = sorted(os.listdir(os.path.join(SOURCE, folder)))
            pages += [folder + "/" + n for n in names if n.endswith(".md")]
        broken = []
        for page in pages:
            text = read(os.path.join(SOURCE, page))
            for target in re.findall(r"\]\(([^)\s]+)\)", text):
                if re.match(r"[a-z]+:", target):
                    continue  # http:, https:, mailto:
                path, _, anchor = target.partition("#")
                where = os.path.normpath(os.path.join(os.path.dirname(os.path.join(SOURCE, page)),
                                                      path)) if path else os.path.join(SOURCE, page)
                if not os.path.exists(where):
                    broken.append("%s: %s (no such file)" % (page, target))
                elif anchor and where.endswith(".md"):
                    headings = re.findall(r"^#+ (.*)$", read(where), re.M)
                    if anchor not in {slug(h) for h in headings}:
                        broken.append("%s: %s (no such heading)" % (page, target))
        self.assertEqual(broken, [], "links that lead nowhere:\n" + "\n".join(broken))

    def test_python_md(self):
        found = blocks("docs/python.md", "python")
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

    def test_shell_blocks(self):
        """Every ```sh run block of README.md and docs/*.md exits 0 from the top of the tree."""
        pages = ["README.md"] + ["docs/" + n for n in sorted(os.listdir(os.path.join(SOURCE, "docs")))
                                 if n.endswith(".md")]
        found = [(page, code) for page in pages for code in blocks(page, "sh run")]
        self.assertGreaterEqual(len(found), 1, "expected docs/usage.md's MPI-IO lines")
        with tempfile.TemporaryDirectory() as top:
            # The tree as its readers have it, with the build where ctest built it.
            os.symlink(BUILD, os.path.join(top, "build"))
            for folder in ("examples", "scripts"):
                os.symlink(os.path.join(SOURCE, folder), os.path.join(top, folder))
            env = {k: v for k, v in os.environ.items() if not k.startswith(("PFIO_", "OMPI_"))}
            for page, code in found:
                done = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=top,
                                      env=dict(env, PWD=top), capture_output=True, text=True,
                                      timeout=600)
                self.assertEqual(done.returncode, 0, "%s, block:\n%s\n%s\n%s" % (
                    page, code, done.stdout[-2000:], done.stderr[-3000:]))
                print("%s: a sh run block: ok\n%s" % (page, done.stdout[-600:]))


if __name__ == "__main__":
    unittest.main()
