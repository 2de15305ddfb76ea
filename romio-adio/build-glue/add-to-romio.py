#!/usr/bin/env python3
"""Adds the ad_prefetch driver to a ROMIO source tree taken from Debian's source packages.

usage: add-to-romio.py ROMIO_DIR DRIVER_DIR [--standalone]

ROMIO_DIR   ROMIO 3.2.1 (Open MPI 4.1, ompi/mca/io/romio321/romio) or ROMIO of MPICH 4.0.x
            (src/mpi/romio); the two differ in how file-system prefixes are looked up.
DRIVER_DIR  romio-adio/ of this repository (the ad_prefetch*.c/h files are copied from it, and
            collective/pfio_coll.h, the collective layer's C header,
            ../src/api/pfio_front_end.h and ../src/predict/pfio_predict.h).
--standalone  also make MPICH's ROMIO build as a libromio.so of its own against the installed
            libmpich (five places where that mode no longer builds or works in 4.0.2).

Each edit must change the file it names, or the script stops with the file and the text it
looked for, so a ROMIO version that moved things fails here and not at run time. Idempotent:
a tree that already has the driver is left as it is (only the driver sources are refreshed).
"""
import glob
import os
import re
import shutil
import sys


def fail(msg):
    sys.exit("add-to-romio: " + msg)


def edit(romio, path, old, new, count=1):
    p = os.path.join(romio, path)
    with open(p) as f:
        text = f.read()
    if old not in text:
        fail("%s: expected to find %r (is this ROMIO 3.2.1 or 4.0.x?)" % (path, old))
    with open(p, "w") as f:
        f.write(text.replace(old, new, count))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    standalone = "--standalone" in sys.argv[1:]
    if len(args) != 2:
        fail("usage: add-to-romio.py ROMIO_DIR DRIVER_DIR [--standalone]")
    romio, driver = args
    if not os.path.isfile(os.path.join(romio, "adio/common/ad_fstype.c")):
        fail("ROMIO_DIR = %r: expected a ROMIO source tree (adio/common/ad_fstype.c)" % romio)
    table_style = "static struct ADIO_FSTypes fstypes[]" in open(
        os.path.join(romio, "adio/common/ad_fstype.c")).read()
    major = 4 if table_style else 3

    dest = os.path.join(romio, "adio/ad_prefetch")
    os.makedirs(dest, exist_ok=True)
    sources = sorted(os.path.basename(p) for p in glob.glob(os.path.join(driver, "ad_prefetch*.c")))
    headers = sorted(os.path.basename(p) for p in glob.glob(os.path.join(driver, "ad_prefetch*.h")))
    if not sources:
        fail("DRIVER_DIR = %r: expected ad_prefetch*.c files" % driver)
    for f in sources + headers:
        shutil.copy(os.path.join(driver, f), dest)
    # The collective layer's C header (collective/pfio_coll.h) and what pfio's front ends need
    # beside the C API (../src/api/pfio_front_end.h, ../src/predict/pfio_predict.h), next to the
    # driver.
    for header in (("collective", "pfio_coll.h"), ("..", "src", "api", "pfio_front_end.h"),
                   ("..", "src", "predict", "pfio_predict.h")):
        path = os.path.join(driver, *header)
        if not os.path.isfile(path):
            fail("DRIVER_DIR = %r: expected %s in it" % (driver, "/".join(header)))
        shutil.copy(path, dest)
    with open(os.path.join(dest, "ad_prefetch_romio.h"), "w") as f:
        f.write("/* Written by add-to-romio.py: which ROMIO this copy of the driver is built into. */\n"
                "#define PFIO_ROMIO_MAJOR %d\n" % major)
    with open(os.path.join(dest, "Makefile.mk"), "w") as f:
        f.write("if BUILD_AD_PREFETCH\n")
        for h in headers + ["ad_prefetch_romio.h"]:
            f.write("noinst_HEADERS += adio/ad_prefetch/%s\n" % h)
        for c in sources:
            f.write("romio_other_sources += adio/ad_prefetch/%s\n" % c)
        f.write("endif BUILD_AD_PREFETCH\n")

    marker = os.path.join(romio, ".pfio-ad_prefetch-added")
    if os.path.exists(marker):
        print("add-to-romio: driver sources refreshed in %s (hooks already present)" % romio)
        return

    edit(romio, "adio/Makefile.mk", "include $(top_srcdir)/adio/ad_testfs/Makefile.mk",
         "include $(top_srcdir)/adio/ad_testfs/Makefile.mk\n"
         "include $(top_srcdir)/adio/ad_prefetch/Makefile.mk")

    # configure.ac: a known file system, always built (like testfs), with its define.
    p = os.path.join(romio, "configure.ac")
    text = open(p).read()
    new = re.sub(r"(m4_define\(\[known_filesystems_m4_w\],\s*\[)", r"\1prefetch ", text, count=1)
    if new == text:
        fail("configure.ac: expected the known_filesystems_m4_w list")
    open(p, "w").write(new)
    edit(romio, "configure.ac", 'FILE_SYSTEM="testfs $FILE_SYSTEM"',
         'FILE_SYSTEM="testfs prefetch $FILE_SYSTEM"')
    edit(romio, "configure.ac", 'if test -n "$file_system_testfs"; then',
         'if test -n "$file_system_prefetch"; then\n'
         '    AC_DEFINE(ROMIO_PREFETCH,1,[Define for ROMIO with the pfio prefetch driver])\n'
         'fi\n'
         'if test -n "$file_system_testfs"; then')

    edit(romio, "adio/include/adioi_fs_proto.h", "#ifdef ROMIO_TESTFS",
         "#ifdef ROMIO_PREFETCH\n"
         "#define ADIO_PREFETCH 191\n"
         "extern struct ADIOI_Fns_struct ADIO_PREFETCH_operations;\n"
         "const char *ADIOI_PREFETCH_Select_name(const char *filename, MPI_Info info);\n"
         "extern int ADIOI_PREFETCH_ordered;\n"
         "#endif\n\n#ifdef ROMIO_TESTFS")

    # MPI_File_read_ordered(_begin) says that its collective read takes offsets from the shared
    # file pointer: the driver's calls read alone wait for every rank only then
    # (ad_prefetch_rdcoll.c, read_alone).
    for path in ("mpi-io/read_ord.c", "mpi-io/read_ordb.c"):
        p = os.path.join(romio, path)
        text = open(p).read()
        new, n = re.subn(r"\n([ \t]*)(ADIO_ReadStridedColl\(adio_fh,[^;]*;)",
                         r"\n#ifdef ROMIO_PREFETCH\n\1ADIOI_PREFETCH_ordered = 1;\n#endif\n"
                         r"\1\2\n#ifdef ROMIO_PREFETCH\n\1ADIOI_PREFETCH_ordered = 0;\n#endif",
                         text)
        if n != 1:
            fail("%s: expected one ADIO_ReadStridedColl(adio_fh, ...) call, found %d" % (path, n))
        open(p, "w").write(new)

    if table_style:  # ROMIO 4.x: one table maps prefixes to operations
        edit(romio, "adio/common/ad_fstype.c", "#ifdef ROMIO_TESTFS\n    {&ADIO_TESTFS_operations",
             "#ifdef ROMIO_PREFETCH\n"
             '    {&ADIO_PREFETCH_operations, ADIO_PREFETCH, "prefetch:"},\n'
             "#endif\n"
             "#ifdef ROMIO_TESTFS\n    {&ADIO_TESTFS_operations")
    else:  # ROMIO 3.2.1: a strncmp chain for the prefix, a second chain for the operations
        edit(romio, "adio/common/ad_fstype.c", '    else if (!strncmp(filename, "testfs:", 7)',
             "#ifdef ROMIO_PREFETCH\n"
             '    else if (!strncasecmp(filename, "prefetch:", 9)) {\n'
             "\t*fstype = ADIO_PREFETCH;\n"
             "    }\n"
             "#endif\n"
             '    else if (!strncmp(filename, "testfs:", 7)')
        edit(romio, "adio/common/ad_fstype.c", "    if (file_system == ADIO_TESTFS) {",
             "#ifdef ROMIO_PREFETCH\n"
             "    if (file_system == ADIO_PREFETCH) {\n"
             "\t*ops = &ADIO_PREFETCH_operations;\n"
             "    }\n"
             "#endif\n"
             "    if (file_system == ADIO_TESTFS) {")
        edit(romio, "adio/common/ad_fstype.c", "#include \"adio.h\"",
             "#include \"adio.h\"\n#include <strings.h>")

    # Hint selection: info prefetch=enable (or the ROMIO_HINTS file) adds the prefix before the
    # file system is resolved; everything else is left to stock ROMIO.
    edit(romio, "mpi-io/open.c",
         "    ADIO_ResolveFileType(dupcomm, filename, &file_system, &fsops, &error_code);",
         "#ifdef ROMIO_PREFETCH\n"
         "    filename = ADIOI_PREFETCH_Select_name(filename, info);\n"
         "#endif\n"
         "    ADIO_ResolveFileType(dupcomm, filename, &file_system, &fsops, &error_code);")

    if standalone:
        # 1. --with-mpi-impl is parsed but never used; "generic" must select glue/default.
        edit(romio, "configure.ac", 'if test -z "$MPI_IMPL" ; then\n\tMPI_IMPL=mpich\n',
             'if test -z "$MPI_IMPL" -a -n "$with_mpi_impl" ; then\n\tMPI_IMPL=$with_mpi_impl\nfi\n'
             'if test -z "$MPI_IMPL" ; then\n\tMPI_IMPL=mpich\n')
        # 2. a libromio outside libmpich must link ROMIO's own copy of MPL.
        edit(romio, "Makefile.am", "lib_LTLIBRARIES = libromio.la\n",
             "lib_LTLIBRARIES = libromio.la\nlibromio_la_LIBADD = $(external_libs)\n")
        # 3. MPICH's mpi.h defines MPICH, which selects helpers hidden inside libmpich.
        edit(romio, "adio/common/iscontig.c", "#if defined(MPICH)\n",
             "#if defined(MPICH) && defined(ROMIO_INSIDE_MPICH)\n")
        # 4. the node id comes from libmpich's internals; outside it there is one node map less.
        edit(romio, "mpi-io/mpir_cst_filesys.c", "    MPIR_Get_node_id(comm, rank, &id);\n",
             "#ifdef ROMIO_INSIDE_MPICH\n    MPIR_Get_node_id(comm, rank, &id);\n#else\n"
             "    id = 0;\n#endif\n")
        # 5. MPIR_Status_set_bytes is hidden in libmpich, so configure leaves status counts
        #    unset (MPI_Get_count would return MPI_UNDEFINED after every read); ROMIO's own
        #    version over MPI_Status_set_elements_x (adio/common/status_setb.c) is used instead.
        edit(romio, "configure.ac", "   PAC_TEST_MPIR_STATUS_SET_BYTES\n",
             "   PAC_TEST_MPIR_STATUS_SET_BYTES\n"
             "   AC_DEFINE(HAVE_STATUS_SET_BYTES,1,[ROMIO's own MPIR_Status_set_bytes])\n")
    open(marker, "w").write("ad_prefetch hooks added\n")
    print("add-to-romio: ad_prefetch added to %s (ROMIO %d.x%s)"
          % (romio, major, ", standalone" if standalone else ""))


if __name__ == "__main__":
    main()
