"""xarray over a netCDF-4 file, read through pfio with no change to the code: only the switch.

    LD_PRELOAD=libpfio_hdf5_preload.so PFIO_STATS_PATH=/tmp/run python3 xarray_no_code_change.py FILE
    (from a build tree: LD_PRELOAD=$PWD/build/hdf5-vfd/libpfio_hdf5_preload.so)

FILE is made: a variable v(t, x) of 128 time steps of 8192 values, v[t, i] = t * 8192 + i, one
chunk per time step. The script then reads it one time slice at a time, as an analysis would;
nothing in it names pfio. Whether pfio read the file shows in /tmp/run.hdf5 (the driver's
counters), written when the file is closed.
"""
import os
import sys

import netCDF4
import numpy as np
import xarray

T, X = 128, 8192
path = sys.argv[1]
with netCDF4.Dataset(path, "w") as d:  # H5Fcreate: pfio leaves file creation to HDF5
    d.createDimension("t", T)
    d.createDimension("x", X)
    v = d.createVariable("v", "u8", ("t", "x"), chunksizes=(1, X))
    v[:] = np.arange(T * X, dtype="u8").reshape(T, X)

wrong = 0
with xarray.open_dataset(path, engine="netcdf4") as ds:  # H5Fopen: through pfio
    for t in range(T):
        wrong += int((ds["v"][t].values != np.arange(t * X, (t + 1) * X, dtype="u8")).sum())
os.remove(path)
print("xarray_no_code_change: %d time slices, %d wrong values" % (T, wrong))
sys.exit(wrong != 0)
