"""The peers' own test suites under libpfio_hdf5_preload.so: same outcome as without it.

Each case runs one suite that pfio did not write, from Debian's packages, with pytest: h5py's
tests (its serial build, and its Open MPI build through H5PY_ALWAYS_USE_MPI) and xarray's backend
tests of the netCDF4 and h5netcdf engines. A suite runs twice without the preload and once with
it; every test's outcome (passed, failed, error, skipped) under the preload must equal its outcome
without it. A test whose outcome differs between the two plain runs is printed and left out of
the comparison: it is not stable in stock either. The preload's run must have read through pfio:
the driver's counters file (<stats path>.hdf5) is there afterwards, and the plain runs write none.

Run by ctest with the path in the environment:
  NCC_PRELOAD        libpfio_hdf5_preload.so
  PFIO_TEST_DIR      where files go (a fresh directory under it); not passed to the programs
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

PYTHON = "/usr/bin/python3"  # Debian's, which sees python3-h5py, python3-xarray, python3-pytest
H5PY = "/usr/lib/python3/dist-packages/h5py"
XARRAY_BACKENDS = "/usr/lib/python3/dist-packages/xarray/tests/test_backends.py"


def outcomes(report):
    """Each test's outcome in a pytest JUnit XML report: {"module::class::name": outcome}."""
    found = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = child.tag
        found["%s::%s" % (case.get("classname"), case.get("name"))] = outcome
    return found


class PeerSuites(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        base = os.environ.get("PFIO_TEST_DIR") or tempfile.gettempdir()
        os.makedirs(base, exist_ok=True)
        cls.dir = tempfile.mkdtemp(prefix="pfio-peer-suites-", dir=base)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def run_suite(self, label, args, env_extra, preload):
        """Runs pytest over `args` in a directory of its own; returns (outcomes, stats path)."""
        where = os.path.join(self.dir, label)
        os.makedirs(where)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PFIO_")}
        env.pop("LD_PRELOAD", None)
        env.update(env_extra)
        env["TMPDIR"] = where
        stats = os.path.join(where, "stats")
        if preload:
            env["LD_PRELOAD"] = os.environ["NCC_PRELOAD"]
            env["PFIO_STATS"] = stats
        report = os.path.join(where, "report.xml")
        done = subprocess.run(
            [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--basetemp",
             os.path.join(where, "basetemp"), "--junitxml", report] + args,
            cwd=where, env=env, capture_output=True, text=True, timeout=280)
        # pytest exits 1 when some test failed (the suites have stock failures here); anything
        # else (2 interrupted, 3 internal error, 4 usage, 5 no tests) means the suite did not run.
        self.assertIn(done.returncode, (0, 1), "%s: pytest exited %d\n%s\n%s" % (
            label, done.returncode, done.stdout[-3000:], done.stderr[-3000:]))
        found = outcomes(report)
        self.assertGreater(len(found), 100, "%s: %d tests reported" % (label, len(found)))
        return found, stats + ".hdf5"

    def check_same_outcomes(self, name, args, env_extra=None):
        env_extra = env_extra or {}
        plain, plain_stats = self.run_suite(name + "-plain", args, env_extra, False)
        again, _ = self.run_suite(name + "-plain-again", args, env_extra, False)
        under, stats = self.run_suite(name + "-preload", args, env_extra, True)
        self.assertFalse(os.path.exists(plain_stats))
        self.assertTrue(os.path.exists(stats), "%s: no file was read through pfio" % name)
        with open(stats) as f:
            self.assertEqual(json.load(f)["hdf5"], "1.10.8")
        unstable = sorted(t for t in plain if again.get(t) != plain[t])
        if unstable:
            print("%s: outcome differs between two plain runs, not compared: %s" %
                  (name, ", ".join("%s (%s, then %s)" % (t, plain[t], again.get(t))
                                   for t in unstable)))
        self.assertEqual(sorted(under), sorted(plain), "%s: a different set of tests ran" % name)
        differ = ["%s: %s without the preload, %s with it" % (t, plain[t], under[t])
                  for t in sorted(plain) if t not in unstable and under[t] != plain[t]]
        self.assertEqual(differ, [], name)
        counts = {}
        for outcome in under.values():
            counts[outcome] = counts.get(outcome, 0) + 1
        print("%s: %d tests, %s; the same under the preload" %
              (name, len(under), ", ".join("%d %s" % (n, o) for o, n in sorted(counts.items()))))

    def test_h5py_serial(self):
        self.check_same_outcomes("h5py-serial", [H5PY + "/_debian_h5py_serial/tests"])

    def test_h5py_openmpi_build(self):
        self.check_same_outcomes("h5py-openmpi", [H5PY + "/_debian_h5py_mpi/tests"],
                                 {"H5PY_ALWAYS_USE_MPI": "1"})

    def test_xarray_netcdf4_and_h5netcdf_backends(self):
        self.check_same_outcomes("xarray-backends", ["-k", "NetCDF4 or H5NetCDF", XARRAY_BACKENDS])


if __name__ == "__main__":
    unittest.main()
