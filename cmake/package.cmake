# The Debian package: `cpack -G DEB --config build/CPackConfig.cmake` (scripts/package.sh) makes
# pfio_<version>_amd64.deb from the release tree, installed under /usr: libpfio and its headers,
# CMake and pkg-config files, the HDF5 drivers (serial and Open MPI) and the preload library, the
# Open MPI io component in Open MPI's own component directory (found with no variable set), the
# MPICH libromio.so in /usr/lib/pfio/mpich, the Python package in /usr/lib/python3/dist-packages,
# and the tools. Depends lists the Debian packages of every library the binaries are linked with.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pfio)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "plan-driven parallel read prefetching for MPI-IO and HDF5")
set(CPACK_PACKAGE_DESCRIPTION "pfio reads ahead what MPI and HDF5 programs will read next: \
from a collective call, an HDF5 selection, a declared plan or a recorded trace, within a memory \
budget. Switched on with a ROMIO hint (prefetch=enable), a prefetch: file prefix, \
H5Pset_fapl_prefetch, or LD_PRELOAD=libpfio_hdf5_preload.so for unmodified HDF5 programs.")
set(CPACK_PACKAGE_CONTACT "pfio developers <pfio@localhost>")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # pfio_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
set(pfio_deb_depends "libc6 (>= 2.34)" "libstdc++6 (>= 12)" "libaio1" "liburing2"
    "libhdf5-103-1 (>= 1.10.8)" "libhdf5-openmpi-103-1 (>= 1.10.8)")
if(TARGET romio_openmpi)
  list(APPEND pfio_deb_depends "libopenmpi3 (>= 4.1.4)")
endif()
if(TARGET romio_mpich)
  list(APPEND pfio_deb_depends "libmpich12 (>= 4.0.2)")
endif()
list(JOIN pfio_deb_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-h5py, python3-netcdf4, python3-xarray, hdf5-tools")
# ldconfig after install and removal: the libraries go to /usr/lib.
configure_file(${CMAKE_CURRENT_LIST_DIR}/deb-ldconfig.sh ${CMAKE_BINARY_DIR}/deb/postinst COPYONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/deb-ldconfig.sh ${CMAKE_BINARY_DIR}/deb/postrm COPYONLY)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/deb/postinst ${CMAKE_BINARY_DIR}/deb/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
set(CPACK_STRIP_FILES ON) # debug info stays in the build tree
include(CPack)
