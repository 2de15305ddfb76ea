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
import threading

from . import PfioError
from ._loader import load
from ._stats import as_dict, engine_stats

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


def _text(what, value):
    """A setting's value as C text: a NUL inside would cut it short silently, so it is refused."""
    text = str(value)
    if "\0" in text:
        raise PfioError("%s = %r: contains a NUL character: expected text without one"
                        % (what, value))
    return text.encode()


def _whole(what, value, low, high):
    """An integer argument within [low, high]; ctypes would wrap one outside silently."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise PfioError("%s = %r: expected an integer" % (what, value))
    number = value.__index__()
    if not low <= number <= high:
        raise PfioError("%s = %d: expected %d .. %d" % (what, number, low, high))
    return number


_INT32_MAX = 2 ** 31 - 1
_UINT64_MAX = 2 ** 64 - 1


class Context:
    """A pfio context: its own reorder buffer, memory budget and I/O thread.

    Its calls may come from several threads. close() waits for the calls under way (a read in
    another thread) and then destroys the context; a call made after close() raises PfioError.
    """

    def __init__(self, **settings):
        lib = _library()
        self._ctx = None
        self._state = threading.Condition()
        self._calls = 0  # calls under way, which close() waits for
        config = ctypes.c_void_p()
        _check(lib.pfio_config_create(ctypes.byref(config)), "the PFIO_* environment")
        try:
            for key, value in settings.items():
                _check(lib.pfio_config_set(config, _text("setting name", key),
                                           _text("setting %s" % key, value)),
                       "setting %s = %r" % (key, value))
            ctx = ctypes.c_void_p()
            _check(lib.pfio_context_create(config, ctypes.byref(ctx)), "creating the context")
            self._ctx = ctx
        finally:
            lib.pfio_config_destroy(config)

    def _call(self, what, fn, *args):
        """fn(context, *args) checked, counted as a call under way so close() waits for it."""
        with self._state:
            if not self._ctx:
                raise PfioError("%s: the context is closed" % what)
            ctx = self._ctx
            self._calls += 1
        try:
            _check(fn(ctx, *args), what)
        finally:
            with self._state:
                self._calls -= 1
                self._state.notify_all()

    def open(self, path):
        """Opens a file for reading; its id."""
        fid = ctypes.c_int32()
        self._call("opening %s" % path, _library().pfio_file_open, os.fsencode(path),
                   ctypes.byref(fid))
        return fid.value

    def close_file(self, fid):
        fid = _whole("file id", fid, 0, _INT32_MAX)
        self._call("closing file %d" % fid, _library().pfio_file_close, fid)

    def plan(self, extents):
        """Appends (file, offset, length) extents to the plan, in the order they will be read."""
        arr = (_Extent * len(extents))(*[
            _Extent(_whole("file id", f, 0, _INT32_MAX), 0,
                    _whole("offset", o, 0, _UINT64_MAX), _whole("length", n, 0, _UINT64_MAX))
            for f, o, n in extents])
        self._call("appending %d extents" % len(extents), _library().pfio_plan_append, arr,
                   len(extents))

    def read(self, fid, offset, length):
        """The bytes [offset, offset + length) of the file (fewer only at its end)."""
        fid = _whole("file id", fid, 0, _INT32_MAX)
        offset = _whole("offset", offset, 0, _UINT64_MAX)
        length = _whole("length", length, 0, _UINT64_MAX)
        buf = ctypes.create_string_buffer(length)
        got = ctypes.c_uint64()
        self._call("reading %d bytes at %d of file %d" % (length, offset, fid),
                   _library().pfio_read, fid, buf, offset, length, ctypes.byref(got))
        return buf.raw[:got.value]

    def stats(self):
        """pfio's counters (pfio_stats) as a dict."""
        raw = engine_stats(_library())()
        self._call("pfio_stats_get", _library().pfio_stats_get, ctypes.byref(raw),
                   ctypes.sizeof(raw))
        return as_dict(raw)

    def write_stats(self, path):
        """Writes pfio's counters as JSON to path (as the setting stats_path does at the end)."""
        self._call("writing stats to %s" % path, _library().pfio_stats_write, os.fsencode(path))

    def close(self):
        """Waits for the calls under way in other threads, then destroys the context."""
        with self._state:
            ctx, self._ctx = self._ctx, None
            while self._calls > 0:
                self._state.wait()
        if ctx:
            _check(_library().pfio_context_destroy(ctx), "destroying the context")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
