"""h5py with a declared plan: read the tiles of a chunked dataset in a shuffled order.

    PYTHONPATH=python LIBPFIO_DIR=build/hdf5-vfd python3 examples/h5py_declared.py FILE
    (installed: python3 h5py_declared.py FILE)

FILE is made: a 1024 x 1024 dataset of uint64 in 128 x 128 chunks, element (r, c) = r*1024 + c.
pfio.h5.declare tells pfio's driver which tiles come next; it reads their chunks ahead.
"""
import os
import random
import sys

import h5py
import numpy as np

import pfio.h5

N, T = 1024, 128
path = sys.argv[1]
with h5py.File(path, "w") as f:  # plain h5py writes the file
    f.create_dataset("x", data=np.arange(N * N, dtype="u8").reshape(N, N), chunks=(T, T))

order = [(r, c) for r in range(0, N, T) for c in range(0, N, T)]
random.Random(1).shuffle(order)
with pfio.h5.open(path, budget="64M") as f:  # an h5py.File read through pfio
    x = f["x"]
    pfio.h5.declare(x, [(slice(r, r + T), slice(c, c + T)) for r, c in order])
    wrong = 0
    for r, c in order:
        tile = x[r:r + T, c:c + T]
        rows = np.arange(r, r + T, dtype="u8")[:, None]
        wrong += int((tile != rows * N + np.arange(c, c + T, dtype="u8")).sum())
    stats = pfio.h5.stats(f)
os.remove(path)
print("h5py_declared: %d tiles, %d wrong values, %d declared, %d unplanned reads"
      % (len(order), wrong, stats["declared_extents"], stats["unplanned_reads"]))
sys.exit(wrong != 0 or stats["declared_extents"] != len(order))
