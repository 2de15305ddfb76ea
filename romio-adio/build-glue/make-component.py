#!/usr/bin/env python3
"""Turns Open MPI 4.1's io/romio321 glue (ompi/mca/io/romio321/src) into the io component
"prefetch": the same glue over our own copy of ROMIO 3.2.1 with ad_prefetch, which claims only
prefetch files (the prefix, the prefetch hint or ROMIO_HINTS file, ROMIO_FSTYPE_FORCE) at
priority 50, above ompio (30) and romio321 (10), and declines every other file, so no --mca
flag is needed and other files keep their stock component.

usage: make-component.py ROMIO321_SRC_DIR OUT_DIR
Every edit must apply, or the script stops naming the file and the text it expected.
"""
import glob
import os
import sys


def fail(msg):
    sys.exit("make-component: " + msg)


def replace(text, old, new, name):
    if old not in text:
        fail("%s: expected to find %r (is this Open MPI 4.1's romio321 glue?)" % (name, old))
    return text.replace(old, new, 1)


WANTED = '''
#include <strings.h>
#include "opal/util/info.h"

/* From ad_prefetch_select.c (inside this component's ROMIO). */
int ADIOI_PREFETCH_Wanted(const char *filename,
                          int (*get)(void *hints, const char *key, char *value, int size),
                          void *hints);

static int opal_hint(void *hints, const char *key, char *value, int size)
{
    int flag = 0;
    if (hints == NULL)
        return 0;
    opal_info_get((opal_info_t *) hints, key, size - 1, value, &flag);
    return flag;
}

/* Hint prefetch=stock: this component's ROMIO 3.2.1 serves the file with its stock UFS driver,
 * pfio not involved (the code of Open MPI's romio321), so that stock ROMIO can be compared
 * with OMPIO and pfio inside one process (pfio-mpibench). */
static int prefetch_wanted(const char *filename, struct opal_info_t *info)
{
    char value[16];
    if (info != NULL && opal_hint(info, "prefetch", value, (int)sizeof value) &&
        0 == strcasecmp(value, "stock")) {
        return 1;
    }
    return ADIOI_PREFETCH_Wanted(filename, opal_hint, info);
}
'''

# Open MPI 4.1's MPI_File_get_info shows only keys a component subscribed to, and for a key the
# application set, the application's value. Every hint ROMIO has in force (its own and the
# prefetch_* ones) is subscribed with that value, and recorded as the value "set", so that
# MPI_File_get_info shows what is in force, as it does with MPICH.
PUBLISH = '''
#include "opal/util/info_subscriber.h"

/* While prefetch_publish_hints subscribes, the hint it is publishing: the subscriber's callback
 * runs once per key there and answers with that value, so an open looks nothing up in ROMIO's
 * info per key (docs/small-calls.md, "The cost of an open"). Per thread: opens may run in several
 * threads at once. */
static _Thread_local const char *prefetch_publishing_key = NULL;
static _Thread_local const char *prefetch_publishing_value = NULL;

static char *prefetch_hint_in_force(opal_infosubscriber_t *obj, char *key, char *value)
{
    static char in_force[MPI_MAX_INFO_VAL + 1];
    ompi_file_t *fh = (ompi_file_t *) obj;
    mca_io_prefetch_data_t *data = (mca_io_prefetch_data_t *) fh->f_io_selected_data;
    MPI_Info info;
    int flag = 0;
    if (NULL != prefetch_publishing_key && 0 == strcmp(key, prefetch_publishing_key)) {
        return (char *) prefetch_publishing_value;
    }
    if (NULL == data || NULL == data->romio_fh ||
        MPI_SUCCESS != ROMIO_PREFIX(MPI_File_get_info)(data->romio_fh, &info)) {
        return value;
    }
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, in_force, &flag);
    MPI_Info_free(&info);
    return flag ? in_force : value;
}

/* Open MPI 4.1's MPI_File_set_info only informs subscribers: a declared plan
 * (pfio_mpi_file_plan, key "prefetch_plan") is handed to ROMIO's set_info from here, and the
 * driver's verdict is copied to key "prefetch_plan_result" (set_info cannot return an error
 * through this path). */
static char *prefetch_declare_plan(opal_infosubscriber_t *obj, char *key, char *value)
{
    static char verdict[MPI_MAX_INFO_VAL + 1];
    ompi_file_t *fh = (ompi_file_t *) obj;
    mca_io_prefetch_data_t *data = (mca_io_prefetch_data_t *) fh->f_io_selected_data;
    MPI_Info info;
    int flag = 0;
    if (NULL == data || NULL == data->romio_fh || 0 == strcmp(value, "none")) {
        return value;
    }
    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    ROMIO_PREFIX(MPI_File_set_info)(data->romio_fh, info);
    MPI_Info_free(&info);
    snprintf(verdict, sizeof verdict, "refused: the driver gave no verdict");
    if (MPI_SUCCESS == ROMIO_PREFIX(MPI_File_get_info)(data->romio_fh, &info)) {
        MPI_Info_get(info, "prefetch_plan_result", MPI_MAX_INFO_VAL, verdict, &flag);
        MPI_Info_free(&info);
    }
    /* a key of the system's (no __IN_ copy): MPI_File_get_info shows this value */
    opal_info_set(fh->super.s_info, "prefetch_plan_result", verdict);
    return value;
}

/* Whether `info` holds `key`. */
static int prefetch_listed(opal_info_t *info, const char *key)
{
    opal_info_entry_t *e;
    OPAL_LIST_FOREACH(e, &info->super, opal_info_entry_t) {
        if (0 == strcmp(e->ie_key, key)) {
            return 1;
        }
    }
    return 0;
}

/* Every hint ROMIO has in force, subscribed with that value. Each subscription looks its key up
 * in the file's info four times, so each is made over an info of its own (the two entries it
 * writes), moved after it to the info being built: an open costs no keys x info string
 * compares (docs/small-calls.md, "The cost of an open"). Of the application's hints at open
 * (Open MPI recorded them, with its values), those ROMIO has keep the value in force. */
static void prefetch_publish_hints(ompi_file_t *fh, MPI_File romio_fh)
{
    MPI_Info info;
    opal_info_t *opened = fh->super.s_info, *built = OBJ_NEW(opal_info_t), *one;
    opal_info_entry_t *hint, *e, *next;
    if (NULL == built) {
        return;
    }
    if (MPI_SUCCESS != ROMIO_PREFIX(MPI_File_get_info)(romio_fh, &info)) {
        OBJ_RELEASE(built);
        return;
    }
    OPAL_LIST_FOREACH(hint, &info->super.super, opal_info_entry_t) {
        one = OBJ_NEW(opal_info_t);
        if (NULL == one) {
            break;
        }
        fh->super.s_info = one;
        prefetch_publishing_key = hint->ie_key;
        prefetch_publishing_value = hint->ie_value;
        opal_infosubscribe_subscribe(&fh->super, hint->ie_key, hint->ie_value,
                                     prefetch_hint_in_force);
        while (NULL != (e = (opal_info_entry_t *) opal_list_remove_first(&one->super))) {
            opal_list_append(&built->super, &e->super);
        }
        OBJ_RELEASE(one);
    }
    prefetch_publishing_key = NULL;
    prefetch_publishing_value = NULL;
    MPI_Info_free(&info);
    if (NULL != opened) {
        OPAL_LIST_FOREACH_SAFE(e, next, &opened->super, opal_info_entry_t) {
            if (!prefetch_listed(built, e->ie_key)) {
                opal_list_remove_item(&opened->super, &e->super);
                opal_list_append(&built->super, &e->super);
            }
        }
        OBJ_RELEASE(opened);
    }
    fh->super.s_info = built;
    opal_infosubscribe_subscribe(&fh->super, "prefetch_plan", "none", prefetch_declare_plan);
}
'''


def main():
    if len(sys.argv) != 3:
        fail("usage: make-component.py ROMIO321_SRC_DIR OUT_DIR")
    src, out = sys.argv[1], sys.argv[2]
    files = glob.glob(os.path.join(src, "*.[ch]"))
    if not files:
        fail("ROMIO321_SRC_DIR = %r: expected io_romio321*.c files" % src)
    os.makedirs(out, exist_ok=True)
    for path in files:
        name = os.path.basename(path).replace("romio321", "prefetch")
        text = open(path).read().replace("romio321", "prefetch").replace("ROMIO321", "PREFETCH")
        if name == "io_prefetch_component.c":
            text = replace(text, '#include "io_prefetch.h"\n',
                           '#include "io_prefetch.h"\n'
                           '#define MCA_io_prefetch_USER_CONFIGURE_FLAGS ""\n'
                           '#define MCA_io_prefetch_COMPLETE_CONFIGURE_FLAGS '
                           '"ROMIO 3.2.1 from Debian\'s openmpi source, built by pfio"\n' + WANTED,
                           name)
            text = replace(text, '#define ROMIO_VERSION_STRING "from MPICH v3.1.4"',
                           '#define ROMIO_VERSION_STRING "ROMIO 3.2.1 with pfio\'s ad_prefetch"',
                           name)
            text = replace(text, "    priority_param = 10;", "    priority_param = 50;", name)
            text = replace(text, "    delete_priority_param = 10;",
                           "    delete_priority_param = 50;", name)
            text = replace(text, "    *priority = priority_param;\n",
                           "    *priority = priority_param;\n"
                           "    if (!prefetch_wanted(file->f_filename, file->super.s_info)) {\n"
                           "        return NULL;    /* not a prefetch file: leave it to others */\n"
                           "    }\n", name)
            text = replace(text, "    *priority = delete_priority_param;\n    *usable = true;\n",
                           "    *priority = delete_priority_param;\n"
                           "    *usable = prefetch_wanted(filename, info);\n", name)
        if name == "io_prefetch_file_open.c":
            text = replace(text, '#include "io_prefetch.h"\n',
                           '#include "io_prefetch.h"\n' + PUBLISH, name)
            text = replace(text, "    ompi_info_free(&ompi_info);\n    return ret;\n",
                           "    if (MPI_SUCCESS == ret) {\n"
                           "        prefetch_publish_hints(fh, data->romio_fh);\n"
                           "    }\n"
                           "    ompi_info_free(&ompi_info);\n    return ret;\n", name)
        with open(os.path.join(out, name), "w") as f:
            f.write(text)
    print("make-component: io component \"prefetch\" sources in %s" % out)


if __name__ == "__main__":
    main()
