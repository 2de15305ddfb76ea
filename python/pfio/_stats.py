"""pfio_stats (pfio/pfio.h) as a ctypes struct: the one mirror, shared by pfio.core and pfio.h5."""
import ctypes

_U64 = ctypes.c_uint64
_ENGINE_FIELDS = [  # pfio_stats, in the order of pfio/pfio.h
    ("reads", _U64), ("hits", _U64), ("passthrough_reads", _U64), ("misses", _U64),
    ("stalls", _U64), ("stall_seconds", ctypes.c_double), ("bytes_served", _U64),
    ("bytes_read", _U64), ("bytes_wasted", _U64), ("bytes_passthrough", _U64),
    ("requests", _U64), ("io_errors", _U64), ("plan_resyncs", _U64), ("windows", _U64),
    ("budget_bytes", _U64), ("budget_cap", _U64), ("budget_cuts", _U64),
    ("memory_in_use", _U64), ("memory_peak", _U64), ("backend", ctypes.c_char * 16),
    ("evictions", _U64), ("bytes_evicted", _U64), ("stages", _U64), ("stages_small", _U64),
    ("policy_holds", _U64), ("policy", ctypes.c_char * 16), ("stage_mode", ctypes.c_char * 16),
    ("stage_note", ctypes.c_char * 112), ("files_changed", _U64), ("memory_charged", _U64),
    ("advised_now", _U64), ("advised_inline", _U64), ("advised_dropped", _U64),
    ("advised_now_bytes", _U64), ("advice_failed", _U64)]


class _EngineStats(ctypes.Structure):
    _fields_ = _ENGINE_FIELDS


def as_dict(struct):
    """A ctypes struct's fields as a dict, text fields (char arrays) decoded."""
    out = {}
    for name, _ in struct._fields_:
        value = getattr(struct, name)
        out[name] = value.decode(errors="replace") if isinstance(value, bytes) else value
    return out
