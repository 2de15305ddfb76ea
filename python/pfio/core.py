"""pfio's C API from Python (libpfio.so.0 through ctypes): a context, files, a plan, reads.

    import pfio.core
    with pfio.core.Context(budget="256M") as ctx:       # settings are pfio's keys
        f = ctx.open("/scratch/matrix.bin")
        ctx.plan([(f, off, 1 << 20) for off in order])  # what will be read, in order
        for off in order:
            block = ctx.read(f, off, 1 << 20)            # bytes, served from the reorder buffer
        print(ctx.stats()["hits"])

Every failure raises pfio.PfioError with pfio's message (the argument, its value, what is
allowed). The library is looked for in $LIBPFIO_DIR, then on the loader's path.
"""
import ctypes
import os

from . import PfioError
from ._loader import load
from ._stats import _EngineStats, as_dict

_lib = None


class _Extent(ctypes.Structure):  # pfio_extent
    _fields_ = [("file", ctypes.c_int32), ("marked", ctypes.c_int32),
                ("offset", ctypes.c_uint64), ("length", ctypes.c_uint64)]


def _library():
    global _lib
    if _lib is None:
        _lib = load("libpfio.so.0", "libpfio.so.0")
        _lib.pfio_last_error.restype = ctypes.c_char_p
        _lib.pfio_strerror.restype = ctypes.c_char_p
        _lib.pfio_read.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p,
                                   ctypes.c_uint64, ctypes.c_uint64, ctypes.POINTER(ctypes.c_uint64)]
        for fn in ("pfio_config_set", "pfio_config_create", "pfio_context_create",
                   "pfio_file_open", "pfio_plan_append", "pfio_stats_get", "pfio_file_close",
                   "pfio_context_destroy", "pfio_stats_write"):
            getattr(_lib, fn).restype = ctypes.c_int
    return _lib


def _check(status, what):
    if status != 0:
        lib = _library()
        raise PfioError("%s: %s (%s)" % (what, lib.pfio_last_error().decode(errors="replace"),
                                         lib.pfio_strerror(status).decode()))


class Context:
    """A pfio context: its own reorder buffer, memory budget and I/O thread."""

    def __init__(self, **settings):
        lib = _library()
        config = ctypes.c_void_p()
        _check(lib.pfio_config_create(ctypes.byref(config)), "the PFIO_* environment")
        try:
            for key, value in settings.items():
                _check(lib.pfio_config_set(config, key.encode(), str(value).encode()),
                       "setting %s = %r" % (key, value))
            self._ctx = ctypes.c_void_p()
            _check(lib.pfio_context_create(config, ctypes.byref(self._ctx)), "creating the context")
        finally:
            lib.pfio_config_destroy(config)

    def open(self, path):
        """Opens a file for reading; its id."""
        fid = ctypes.c_int32()
        _check(_library().pfio_file_open(self._ctx, os.fsencode(path), ctypes.byref(fid)),
               "opening %s" % path)
        return fid.value

    def close_file(self, fid):
        _check(_library().pfio_file_close(self._ctx, fid), "closing file %d" % fid)

    def plan(self, extents):
        """Appends (file, offset, length) extents to the plan, in the order they will be read."""
        arr = (_Extent * len(extents))(*[_Extent(f, 0, o, n) for f, o, n in extents])
        _check(_library().pfio_plan_append(self._ctx, arr, len(extents)),
               "appending %d extents" % len(extents))

    def read(self, fid, offset, length):
        """The bytes [offset, offset + length) of the file (fewer only at its end)."""
        buf = ctypes.create_string_buffer(length)
        got = ctypes.c_uint64()
        _check(_library().pfio_read(self._ctx, fid, buf, offset, length, ctypes.byref(got)),
               "reading %d bytes at %d of file %d" % (length, offset, fid))
        return buf.raw[:got.value]

    def stats(self):
        """pfio's counters (pfio_stats) as a dict."""
        raw = _EngineStats()
        _check(_library().pfio_stats_get(self._ctx, ctypes.byref(raw), ctypes.sizeof(raw)),
               "pfio_stats_get")
        return as_dict(raw)

    def write_stats(self, path):
        """Writes pfio's counters as JSON to path (as the setting stats_path does at the end)."""
        _check(_library().pfio_stats_write(self._ctx, os.fsencode(path)),
               "writing stats to %s" % path)

    def close(self):
        if self._ctx:
            ctx, self._ctx = self._ctx, None
            _check(_library().pfio_context_destroy(ctx), "destroying the context")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
