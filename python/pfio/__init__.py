"""pfio from Python: declared read plans for h5py files, and the driver's counters.

    import h5py, pfio.h5

    f = pfio.h5.open("data.h5", budget="512M")       # an h5py.File read through pfio's driver
    x = f["matrix"]
    tiles = [(slice(r, r + 256), slice(c, c + 256)) for r, c in order]
    pfio.h5.declare(x, tiles)                         # what will be read next, in that order
    for sel in tiles:
        block = x[sel]                                # read ahead of you, within the budget
    print(pfio.h5.stats(f)["declared_extents"])

A file opened by plain h5py under LD_PRELOAD=libpfio_hdf5_preload.so (no code change) is read
through the same driver, and pfio.h5.declare and pfio.h5.stats work on it too. Only ctypes and
Debian's python3-h5py are needed (serial, or the MPI build under mpirun).
"""

__all__ = ["h5", "PfioError"]


class PfioError(RuntimeError):
    """A call of pfio's driver failed; the message is the driver's (what, its value, expected)."""
