/* Which files go to ad_prefetch: the prefix, the prefetch hint (info or ROMIO_HINTS file) and
 * ROMIO_FSTYPE_FORCE. Shared by ROMIO's open (MPICH) and Open MPI's io component query. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ad_prefetch.h"

static const char kPrefix[] = "prefetch:";

static int has_prefix(const char *name)
{
    return name != NULL && strncasecmp(name, kPrefix, sizeof kPrefix - 1) == 0;
}

static int is_enable(const char *value)
{
    return strcasecmp(value, "enable") == 0 || strcasecmp(value, "true") == 0 ||
           strcmp(value, "1") == 0;
}

/* Off, or "stock" (Open MPI: pfio's io component serves the file with stock ROMIO, for
 * comparisons; see build-glue/make-component.py). */
static int is_disable(const char *value)
{
    return strcasecmp(value, "disable") == 0 || strcasecmp(value, "false") == 0 ||
           strcmp(value, "0") == 0 || strcasecmp(value, "stock") == 0;
}

/* The value of `key` in the ROMIO_HINTS file (lines "key value"), as ROMIO reads it. */
static int hints_file_value(const char *key, char *value, int size)
{
    const char *path = getenv("ROMIO_HINTS");
    char line[1024];
    FILE *f;
    int found = 0;
    if (path == NULL || (f = fopen(path, "r")) == NULL)
        return 0;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        char k[256], v[256];
        if (sscanf(line, "%255s %255s", k, v) == 2 && strcmp(k, key) == 0) {
            size_t n = strlen(v) < (size_t)size ? strlen(v) : (size_t)size - 1;
            memcpy(value, v, n);
            value[n] = '\0';
            found = 1;
        }
    }
    fclose(f);
    return found;
}

int ADIOI_PREFETCH_Wanted(const char *filename,
                          int (*get)(void *hints, const char *key, char *value, int size),
                          void *hints)
{
    char value[64];
    const char *force = getenv("ROMIO_FSTYPE_FORCE");
    if (has_prefix(filename) || has_prefix(force))
        return 1;
    /* the application's info wins over the ROMIO_HINTS file, as in ROMIO */
    if (get != NULL && get(hints, "prefetch", value, (int)sizeof value))
        return is_enable(value);
    return hints_file_value("prefetch", value, (int)sizeof value) && is_enable(value);
}

static int mpi_info_get(void *hints, const char *key, char *value, int size)
{
    MPI_Info info = *(MPI_Info *)hints;
    int flag = 0;
    if (info == MPI_INFO_NULL)
        return 0;
    MPI_Info_get(info, key, size - 1, value, &flag);
    return flag;
}

const char *ADIOI_PREFETCH_Select_name(const char *filename, MPI_Info info)
{
    /* MPI_File_open runs under ROMIO's global lock, one at a time: one buffer is enough. */
    static char name[4096 + sizeof kPrefix];
    if (filename == NULL || has_prefix(filename))
        return filename;
    if (strchr(filename, ':') != NULL && strchr(filename, ':') - filename > 1)
        return filename; /* another driver's prefix: not ours to change */
    if (!ADIOI_PREFETCH_Wanted(filename, mpi_info_get, &info)) {
        char value[64];
        static int said;
        int rank = 0;
        if (!said && mpi_info_get(&info, "prefetch", value, (int)sizeof value) &&
            !is_disable(value)) {
            said = 1;
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            if (rank == 0)
                fprintf(stderr,
                        "pfio: file %s: hint prefetch = \"%s\": expected enable (true, 1), "
                        "disable (false, 0) or stock; the file is read without pfio\n",
                        filename, value);
        }
        return filename;
    }
    if (strlen(filename) + sizeof kPrefix > sizeof name)
        return filename; /* too long to prefix; ROMIO reports the name itself */
    snprintf(name, sizeof name, "%s%s", kPrefix, filename);
    return name;
}
