"""pfio's counters as ctypes structs, built from the lists the libraries give of their own fields
(pfio_stats_fields, H5FD_prefetch_stats_fields), so that the mirror is the loaded library's struct
whatever its version: shared by pfio.core and pfio.h5."""
import ctypes

from . import PfioError

_U64 = ctypes.c_uint64


class _Field(ctypes.Structure):  # pfio_stats_field
    _fields_ = [("name", ctypes.c_char_p), ("offset", ctypes.c_size_t),
                ("size", ctypes.c_size_t), ("kind", ctypes.c_int)]


class _DriverField(ctypes.Structure):  # H5FD_prefetch_stats_field
    _fields_ = [("name", ctypes.c_char_p), ("offset", ctypes.c_size_t)]


_KINDS = {0: lambda size: _U64, 1: lambda size: ctypes.c_double,
          2: lambda size: ctypes.c_char * size}  # PFIO_STATS_U64, _DOUBLE, _TEXT
_structs = {}


def _listed(lib, function, field_type):
    """The (name, offset, entry) of each field `function` of `lib` lists."""
    fn = getattr(lib, function)
    fn.restype = ctypes.POINTER(field_type)
    fn.argtypes = [ctypes.POINTER(ctypes.c_size_t)]
    count = ctypes.c_size_t(0)
    fields = fn(ctypes.byref(count))
    return [fields[i] for i in range(count.value)]


def _struct(name, fields, offsets, library):
    """A ctypes struct of `fields`, checked against the library's offsets of them."""
    made = type(name, (ctypes.Structure,), {"_fields_": fields})
    for (field, _), offset in zip(fields, offsets):
        if getattr(made, field).offset != offset:
            raise PfioError("%s: field %s at offset %d, expected %d as %s lists it: the mirror "
                            "does not match the library" % (name, field, getattr(made, field).offset,
                                                            offset, library))
    return made


def engine_stats(lib):
    """pfio_stats as `lib` (libpfio, or a library linked with it) has it."""
    if "engine" not in _structs:
        listed = _listed(lib, "pfio_stats_fields", _Field)
        fields = [(f.name.decode(), _KINDS[f.kind](f.size)) for f in listed]
        _structs["engine"] = _struct("pfio_stats", fields, [f.offset for f in listed],
                                     "pfio_stats_fields")
    return _structs["engine"]


def driver_stats(lib):
    """H5FD_prefetch_stats_t as the HDF5 driver `lib` has it: `engine`, then its counters."""
    if "driver" not in _structs:
        listed = _listed(lib, "H5FD_prefetch_stats_fields", _DriverField)
        fields = [("engine", engine_stats(lib))] + [(f.name.decode(), _U64) for f in listed]
        _structs["driver"] = _struct("H5FD_prefetch_stats_t", fields,
                                     [0] + [f.offset for f in listed],
                                     "H5FD_prefetch_stats_fields")
    return _structs["driver"]


def as_dict(struct):
    """A ctypes struct's fields as a dict, text fields (char arrays) decoded, structs as dicts."""
    out = {}
    for name, _ in struct._fields_:
        value = getattr(struct, name)
        if isinstance(value, ctypes.Structure):
            value = as_dict(value)
        out[name] = value.decode(errors="replace") if isinstance(value, bytes) else value
    return out
