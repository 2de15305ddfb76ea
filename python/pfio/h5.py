"""pfio's HDF5 driver from h5py: open a file through it, declare what will be read, read counters.

open(path, mode="r", **settings)  an h5py.File whose reads go through pfio's driver; settings are
                                   pfio's keys (budget="512M", engine_min="64K", predict="off",
                                   stats_path=...), checked at once: a bad one raises PfioError
                                   naming it, its value and what was expected.
declare(dataset, selection)        appends to the file's plan the chunks (or contiguous runs) HDF5
                                   will read for `selection`, in order: a tuple of ints and
                                   slices (step 1) as in dataset[...], a list of them (tiles, in
                                   the order they will be read), or None / Ellipsis (everything).
stats(obj)                         the counters of the file holding obj (file, group or dataset),
                                   as a dict: the driver's, and pfio's engine's under "engine".

The file must be read through the driver: opened with open(), or by plain h5py under
LD_PRELOAD=libpfio_hdf5_preload.so. A declared plan that is not followed costs time, never a
wrong value.
"""
import ctypes

import h5py
from h5py import h5f, h5p

from . import PfioError
from ._native import check, driver
from ._stats import as_dict, driver_stats

_SETTINGS_MAX, _KEY_MAX, _VALUE_MAX = 16, 32, 96


class _Setting(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char * _KEY_MAX), ("value", ctypes.c_char * _VALUE_MAX)]


class _Config(ctypes.Structure):  # H5FD_prefetch_config_t
    _fields_ = [("magic", ctypes.c_int32), ("version", ctypes.c_int32),
                ("predict", ctypes.c_int32), ("nsettings", ctypes.c_int32),
                ("settings", _Setting * _SETTINGS_MAX), ("engine_min", ctypes.c_uint64)]


def open(path, mode="r", **settings):  # pylint: disable=redefined-builtin
    """An h5py.File for an existing file, read through pfio's driver ("r" or "r+")."""
    if mode not in ("r", "r+"):
        raise PfioError("mode = %r: expected 'r' or 'r+' (files are created with h5py itself)"
                        % (mode,))
    lib = driver()
    config = _Config()
    check(lib.H5FD_prefetch_config_init(ctypes.byref(config)), "H5FD_prefetch_config_init")
    for key, value in settings.items():
        check(lib.H5FD_prefetch_config_set(ctypes.byref(config), key.encode(), str(value).encode()),
              "setting %s = %r" % (key, value))
    fapl = h5p.create(h5p.FILE_ACCESS)
    fapl.set_fclose_degree(h5f.CLOSE_STRONG)  # as h5py.File does
    check(lib.H5Pset_fapl_prefetch(fapl.id, ctypes.byref(config)), "H5Pset_fapl_prefetch")
    flags = h5f.ACC_RDONLY if mode == "r" else h5f.ACC_RDWR
    name = path.encode() if isinstance(path, str) else bytes(path)
    return h5py.File(h5f.open(name, flags, fapl=fapl))


def _hyperslab(shape, selection):
    """(start, count) of one block selection: a tuple of ints and step-1 slices."""
    if not isinstance(selection, tuple):
        selection = (selection,)
    if len(selection) > len(shape):
        raise PfioError("selection %r has %d indices: the dataset has %d dimensions"
                        % (selection, len(selection), len(shape)))
    selection = selection + (slice(None),) * (len(shape) - len(selection))
    start, count = [], []
    for dim, (index, extent) in enumerate(zip(selection, shape)):
        if isinstance(index, slice):
            first, stop, step = index.indices(extent)
            if step != 1:
                raise PfioError("selection %r: dimension %d has step %d: expected 1"
                                % (selection, dim, step))
            if stop <= first:
                raise PfioError("selection %r: dimension %d selects nothing (%d:%d of %d)"
                                % (selection, dim, first, stop, extent))
            start.append(first)
            count.append(stop - first)
        elif hasattr(index, "__index__") and not isinstance(index, bool):
            index = index.__index__()  # an int, or numpy's integers
            if not -extent <= index < extent:
                raise PfioError("selection %r: index %d of dimension %d: expected 0 .. %d"
                                % (selection, index, dim, extent - 1))
            start.append(index % extent)
            count.append(1)
        else:
            raise PfioError("selection %r: dimension %d is %r (%s): expected an integer or a "
                            "slice" % (selection, dim, index, type(index).__name__))
    return tuple(start), tuple(count)


def declare(dataset, selection=None):
    """Appends the file extents HDF5 will read for `selection` of `dataset` to the file's plan.

    Returns how many selections were declared."""
    if not isinstance(dataset, h5py.Dataset):
        raise PfioError("dataset is %r: expected an h5py.Dataset" % (dataset,))
    lib = driver()
    name = dataset.name  # asked before the call: any HDF5 call clears the stack of its errors
    if selection is None or selection is Ellipsis:
        check(lib.H5FD_prefetch_declare(dataset.id.id, 0), "declaring all of %s" % name)
        return 1
    blocks = selection if isinstance(selection, list) else [selection]
    for block in blocks:
        start, count = _hyperslab(dataset.shape, block)
        space = dataset.id.get_space()
        space.select_hyperslab(start, count)
        check(lib.H5FD_prefetch_declare(dataset.id.id, space.id), "declaring %s[%s]" % (name, block))
    return len(blocks)


def stats(obj):
    """The counters of the file holding obj (an h5py File, Group or Dataset), as a dict."""
    lib = driver()
    raw = driver_stats(lib)()
    check(lib.H5FD_prefetch_get_stats(obj.id.id, ctypes.byref(raw)), "H5FD_prefetch_get_stats")
    return as_dict(raw)
