"""Finding pfio's HDF5 driver for the HDF5 that h5py runs with (one HDF5 per process).

h5py's serial build loads Debian's serial HDF5, its MPI build the Open MPI one; the driver built
against the same library is libpfio_hdf5_serial.so.0 or libpfio_hdf5.so.0. They are looked for
in $LIBPFIO_DIR first (a build tree: build/hdf5-vfd), then on the loader's path (an install). A
driver the preload library loaded already is the same library object, not a second copy.
"""
import ctypes

import h5py

from . import PfioError
from ._loader import load

_driver = None


def driver_name():
    return "libpfio_hdf5.so.0" if h5py.get_config().mpi else "libpfio_hdf5_serial.so.0"


class _Error(ctypes.Structure):  # H5E_error2_t
    _fields_ = [("cls_id", ctypes.c_int64), ("maj_num", ctypes.c_int64),
                ("min_num", ctypes.c_int64), ("line", ctypes.c_uint),
                ("func_name", ctypes.c_char_p), ("file_name", ctypes.c_char_p),
                ("desc", ctypes.c_char_p)]


_WALK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint, ctypes.POINTER(_Error), ctypes.c_void_p)


def driver():
    """The driver library (ctypes.CDLL), loaded once."""
    global _driver
    if _driver is None:
        lib = load(driver_name(), "pfio's HDF5 driver for h5py's HDF5 %s"
                   % h5py.version.hdf5_version)
        for fn in ("H5FD_prefetch_config_init", "H5FD_prefetch_config_set",
                   "H5Pset_fapl_prefetch", "H5FD_prefetch_declare", "H5FD_prefetch_get_stats"):
            getattr(lib, fn).restype = ctypes.c_int
        lib.H5FD_prefetch_declare.argtypes = [ctypes.c_int64, ctypes.c_int64]
        lib.H5FD_prefetch_get_stats.argtypes = [ctypes.c_int64, ctypes.c_void_p]
        lib.H5Pset_fapl_prefetch.argtypes = [ctypes.c_int64, ctypes.c_void_p]
        lib.H5Ewalk2.argtypes = [ctypes.c_int64, ctypes.c_int, _WALK, ctypes.c_void_p]
        lib.H5Eclear2.argtypes = [ctypes.c_int64]
        _driver = lib
    return _driver


def check(result, what):
    """Raises PfioError with the messages HDF5's error stack holds when result < 0."""
    if result >= 0:
        return result
    lib = driver()
    messages = []

    def collect(n, err, data):
        desc = err.contents.desc
        if desc:
            messages.append(desc.decode(errors="replace"))
        return 0

    H5E_DEFAULT, H5E_WALK_DOWNWARD = 0, 1
    lib.H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, _WALK(collect), None)
    lib.H5Eclear2(H5E_DEFAULT)
    pfio_messages = [m for m in messages if m] or ["no message on HDF5's error stack"]
    raise PfioError("%s: %s" % (what, "; ".join(dict.fromkeys(pfio_messages))))
