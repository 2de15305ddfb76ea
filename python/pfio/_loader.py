"""Loading one of pfio's shared libraries: from the directories of $LIBPFIO_DIR first (a build
tree: build/hdf5-vfd:build/src, separated as in PATH), then from the loader's path (an install)."""
import ctypes
import os

from . import PfioError


def load(name, what):
    """ctypes.CDLL of `name`; PfioError naming every place tried and `what` it is for."""
    where = [d for d in os.environ.get("LIBPFIO_DIR", "").split(os.pathsep) if d]
    tried = []
    for candidate in [os.path.join(d, name) for d in where] + [name]:
        if os.path.dirname(candidate) and not os.path.exists(candidate):
            tried.append("%s (no such file)" % candidate)
            continue
        try:
            return ctypes.CDLL(candidate)
        except OSError as error:
            tried.append("%s (%s)" % (candidate, error))
    raise PfioError("%s could not be loaded: tried %s; set LIBPFIO_DIR to the directory that "
                    "holds it (several separated by %r)" % (what, "; ".join(tried), os.pathsep))
