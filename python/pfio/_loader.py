"""Loading one of pfio's shared libraries: from $LIBPFIO_DIR first (a build tree), then from the
loader's path (an install)."""
import ctypes
import os

from . import PfioError


def load(name, what):
    """ctypes.CDLL of `name`; PfioError naming every place tried and `what` it is for."""
    where = os.environ.get("LIBPFIO_DIR")
    tried = []
    for candidate in ([os.path.join(where, name)] if where else []) + [name]:
        try:
            return ctypes.CDLL(candidate)
        except OSError as error:
            tried.append("%s (%s)" % (candidate, error))
    raise PfioError("%s could not be loaded: tried %s; set LIBPFIO_DIR to the directory that "
                    "holds it" % (what, "; ".join(tried)))
