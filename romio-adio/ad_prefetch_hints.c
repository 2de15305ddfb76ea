/* The one place ad_prefetch reads hints: prefetch_<key> for every pfio setting (the names
 * pfio_config_key lists, the engine's and the front end's: collective, coll_lookahead,
 * coll_ahead, coll_path, coll_timeout, read_path, print_hints, record, replay, and stats, the
 * short name of stats_path: Open MPI limits info keys to 27 characters), the plan
 * pfio_mpi_file_plan passes as prefetch_plan (after open only), and the standard striping_unit /
 * striping_factor as the layout. At open the hints are checked
 * across ranks (a value that differs is an error of MPI_File_open, raised by Open), a bad value
 * is reported once on rank 0 with pfio's message and its default is used, and the values in
 * force of the settings the user chose (hints, PFIO_* environment) are written back to fd->info
 * for MPI_File_get_info. pfio settings are fixed at open. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ad_prefetch.h"
#include "adioi.h"
#include "pfio_front_end.h"

#define HINT_VALUE_MAX 1024
#define HINT_NAME_MAX 96

static int hint_get(MPI_Info info, const char *name, char *value)
{
    int flag = 0;
    if (info == MPI_INFO_NULL)
        return 0;
    ADIOI_Info_get(info, name, HINT_VALUE_MAX - 1, value, &flag);
    return flag;
}

#define FNV_START 1469598103934665603ULL

/* FNV-1a of `s` continued from h, for the across-ranks check. */
static unsigned long long hash_add(unsigned long long h, const char *s)
{
    for (; *s; ++s)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The hash of one hint's value, or of a marker when it is absent. */
static unsigned long long value_hash(int present, const char *value)
{
    return hash_add(FNV_START, present ? value : "\001absent") ^ (unsigned long long)present;
}

/* Names of the hints checked across ranks, beyond prefetch_<key>. */
static const char *const kExtraHints[] = {"prefetch", "striping_unit", "striping_factor"};
#define EXTRA_HINTS (sizeof kExtraHints / sizeof kExtraHints[0])

/* The names of the hints pfio reads, made once per process: prefetch_<key> for every setting
 * (pfio_config_key), then kExtraHints. An open looks each one up; listing the keys at every
 * lookup made the hints' check most of an open's time (docs/small-calls.md, "The cost of an
 * open"). */
static struct {
    size_t keys;
    char (*name)[HINT_NAME_MAX]; /* keys + EXTRA_HINTS names; NULL: no memory, made per lookup */
} hint_table;
static pthread_once_t hint_table_once = PTHREAD_ONCE_INIT;

/* Hint i's name, of `keys` setting names then kExtraHints, into name[HINT_NAME_MAX]. */
static void format_hint_name(size_t i, size_t keys, char *name)
{
    if (i < keys)
        snprintf(name, HINT_NAME_MAX, "prefetch_%s", pfio_config_key(i));
    else
        snprintf(name, HINT_NAME_MAX, "%s", kExtraHints[i - keys]);
}

static void make_hint_table(void)
{
    size_t i, n = 0;
    while (pfio_config_key(n) != NULL)
        ++n;
    hint_table.keys = n;
    hint_table.name = malloc((n + EXTRA_HINTS) * sizeof *hint_table.name);
    for (i = 0; hint_table.name != NULL && i < n + EXTRA_HINTS; ++i)
        format_hint_name(i, n, hint_table.name[i]);
}

static size_t key_count(void)
{
    pthread_once(&hint_table_once, make_hint_table);
    return hint_table.keys;
}

/* The name of hint i (< key_count() + EXTRA_HINTS) in name[HINT_NAME_MAX]. */
static void hint_name(size_t i, char *name)
{
    size_t keys = key_count();
    if (hint_table.name != NULL)
        memcpy(name, hint_table.name[i], HINT_NAME_MAX);
    else
        format_hint_name(i, keys, name);
}

/* The index in the hint table of hint `key`, or key_count() + EXTRA_HINTS when pfio does not
 * read it. */
static size_t hint_index(const char *key)
{
    char name[HINT_NAME_MAX];
    size_t n = key_count() + EXTRA_HINTS, i;
    for (i = 0; i < n; ++i) {
        hint_name(i, name);
        if (strcmp(name, key) == 0)
            return i;
    }
    return n;
}

/* Marks present[i] (key_count() + EXTRA_HINTS entries) for each hint of the table that `info`
 * holds, from the info's own keys: an open costs the hints the user gave, not one lookup per
 * pfio setting (docs/small-calls.md, "The cost of an open"). */
static void hints_present(MPI_Info info, unsigned char *present)
{
    char key[MPI_MAX_INFO_KEY + 1];
    size_t n = key_count() + EXTRA_HINTS, i;
    int nkeys = 0, k;
    memset(present, 0, n);
    if (info == MPI_INFO_NULL || MPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
        return;
    for (k = 0; k < nkeys; ++k) {
        if (MPI_Info_get_nthkey(info, k, key) != MPI_SUCCESS ||
            (strncmp(key, "prefetch", 8) != 0 && strncmp(key, "striping_", 9) != 0))
            continue;
        i = hint_index(key);
        if (i < n)
            present[i] = 1;
    }
}

/* Names the first hint whose value differs between ranks in pf->mismatch. Collective: every
 * rank calls it once the check found a difference. */
static void name_the_differing_hint(ADIO_File fd, ADIOI_PREFETCH_File *pf, MPI_Info info)
{
    /* one reduction: the largest of each hash and of its complement (the smallest, inverted) */
    size_t n = key_count() + EXTRA_HINTS, i;
    unsigned long long *mine = ADIOI_Malloc(4 * n * sizeof *mine);
    unsigned long long *most = mine + 2 * n;
    char name[HINT_NAME_MAX], value[HINT_VALUE_MAX];
    for (i = 0; i < n; ++i) {
        int present;
        hint_name(i, name);
        present = hint_get(info, name, value);
        mine[i] = value_hash(present, value);
        mine[n + i] = ~mine[i];
    }
    MPI_Allreduce(mine, most, (int)(2 * n), MPI_UNSIGNED_LONG_LONG, MPI_MAX, fd->comm);
    pf->mismatch[0] = '\0';
    for (i = 0; i < n; ++i) {
        if (most[i] != ~most[n + i]) {
            int present;
            hint_name(i, name);
            present = hint_get(info, name, value);
            snprintf(pf->mismatch, sizeof pf->mismatch,
                     "hint %s = \"%.40s\" on rank %d differs between ranks: expected the same "
                     "value on every rank of the communicator",
                     name, present ? value : "(not set)", pf->rank);
            break;
        }
    }
    ADIOI_Free(mine);
}

/* Every rank must pass the same prefetch hints; records the first that differs. Collective:
 * one reduction of a hash of the hints present (the largest of it and of its complement: equal
 * everywhere when they agree), the per-hint check only when they differ. */
static void check_same_everywhere(ADIO_File fd, ADIOI_PREFETCH_File *pf, MPI_Info info,
                                  const unsigned char *present)
{
    size_t n = key_count() + EXTRA_HINTS, i;
    unsigned long long mine[2], most[2], h = FNV_START;
    char name[HINT_NAME_MAX], value[HINT_VALUE_MAX], index[32];
    for (i = 0; i < n; ++i) {
        if (!present[i])
            continue;
        hint_name(i, name);
        if (!hint_get(info, name, value))
            continue;
        snprintf(index, sizeof index, "\001%zu=", i);
        h = hash_add(hash_add(h, index), value);
    }
    mine[0] = h;
    mine[1] = ~h;
    MPI_Allreduce(mine, most, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, fd->comm);
    pf->mismatch[0] = '\0';
    if (most[0] != ~most[1])
        name_the_differing_hint(fd, pf, info);
}

static void report(ADIOI_PREFETCH_File *pf, const char *filename, const char *what)
{
    if (pf->rank == 0)
        fprintf(stderr, "pfio: file %s: %s\n", filename, what);
}

/* Hints named prefetch* that pfio does not know are reported once on rank 0 with the nearest
 * name (they are ignored, as MPI ignores unknown hints), and so is a value of "prefetch" that is
 * neither on nor off; "prefetch_plan" at open is reported as ignored (pfio_mpi_file_plan passes
 * it after open). */
static void report_unknown_hints(ADIO_File fd, ADIOI_PREFETCH_File *pf, MPI_Info info)
{
    static const char *const kOnOff[] = {"enable", "true", "1", "disable", "false", "0", "stock"};
    char key[MPI_MAX_INFO_KEY + 1], value[HINT_VALUE_MAX], name[HINT_NAME_MAX], msg[1024];
    int nkeys = 0, k;
    size_t i, n = key_count() + EXTRA_HINTS;
    if (info == MPI_INFO_NULL || MPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
        return;
    for (k = 0; k < nkeys; ++k) {
        size_t best = (size_t)-1, known = 0;
        char nearest[HINT_NAME_MAX] = "";
        if (MPI_Info_get_nthkey(info, k, key) != MPI_SUCCESS || strncmp(key, "prefetch", 8) != 0)
            continue;
        if (strcmp(key, "prefetch_plan") == 0) {
            report(pf, fd->filename,
                   "hint prefetch_plan given at MPI_File_open is ignored: declare plans after "
                   "open with pfio_mpi_file_plan (pfio/pfio_mpi.h)");
            continue;
        }
        if (strcmp(key, "prefetch_plan_result") == 0)
            continue; /* an info copied from MPI_File_get_info */
        if (strcmp(key, "prefetch") == 0 && hint_get(info, key, value)) {
            for (i = 0; i < sizeof kOnOff / sizeof *kOnOff; ++i)
                known = known || strcasecmp(value, kOnOff[i]) == 0;
            if (!known) {
                snprintf(msg, sizeof msg,
                         "hint prefetch = \"%.200s\": expected enable (true, 1), disable "
                         "(false, 0) or stock",
                         value);
                report(pf, fd->filename, msg);
            }
            continue;
        }
        for (i = 0; i < n && !known; ++i) {
            size_t d;
            hint_name(i, name);
            known = strcmp(name, key) == 0;
            d = pfio_front_end_edit_distance(key, name);
            if (d < best) {
                best = d;
                snprintf(nearest, sizeof nearest, "%s", name);
            }
        }
        if (!known) {
            snprintf(msg, sizeof msg, "hint %.100s is not a pfio hint and is ignored; nearest: %s",
                     key, nearest);
            report(pf, fd->filename, msg);
        }
    }
}

/* The driver's own defaults, below the PFIO_* environment and the hints: the page cache (the
 * engine's own default, auto, chooses per file). */
static void driver_defaults(ADIOI_PREFETCH_File *pf)
{
    if (pf->config != NULL)
        (void)pfio_config_set_default(pf->config, "buffer", "cache");
}

/* The hints of one open, as pfio_config_apply takes them, and what a report needs. */
typedef struct hint_settings {
    ADIO_File fd;
    ADIOI_PREFETCH_File *pf;
    pfio_named_setting *list;
    size_t count;
} hint_settings;

/* A hint pfio refused (a bad value; names of one setting with different values): named on rank
 * 0 with the value in force. */
static void report_refused(void *arg, size_t index, const char *message)
{
    const hint_settings *h = arg;
    char in_force[HINT_VALUE_MAX], msg[3 * HINT_VALUE_MAX];
    if (pfio_config_get(h->pf->config, h->list[index].key, in_force, sizeof in_force) != PFIO_OK)
        in_force[0] = '\0';
    snprintf(msg, sizeof msg, "%.2000s; using \"%.400s\"", message, in_force);
    report(h->pf, h->fd->filename, msg);
}

/* prefetch_<key> hints (and the layout from striping hints) into pf->config, by pfio's rule for
 * a source of settings (pfio_config_apply: buffer, coll_path and read_path are one setting). */
static void apply_engine_hints(ADIO_File fd, ADIOI_PREFETCH_File *pf, MPI_Info info,
                               const unsigned char *present)
{
    char value[HINT_VALUE_MAX], msg[3 * HINT_VALUE_MAX];
    char unit[HINT_VALUE_MAX], factor[HINT_VALUE_MAX];
    size_t i, keys = key_count(), given = 0;
    int have_layout = 0;
    hint_settings h = {fd, pf, NULL, 0};
    char(*names)[HINT_NAME_MAX] = NULL;
    char(*values)[HINT_VALUE_MAX] = NULL;
    for (i = 0; i < keys; ++i)
        given += present[i];
    if (given > 0) {
        names = calloc(given, sizeof *names);
        values = calloc(given, sizeof *values);
        h.list = calloc(given, sizeof *h.list);
        if (names == NULL || values == NULL || h.list == NULL) {
            report(pf, fd->filename,
                   "no memory to read the prefetch_* hints; they are not applied");
            keys = 0;
        }
    }
    for (i = 0; i < keys && h.count < given; ++i) {
        const char *key = pfio_config_key(i);
        if (!present[i])
            continue;
        hint_name(i, names[h.count]);
        if (!hint_get(info, names[h.count], values[h.count]))
            continue;
        if (strcmp(key, "layout") == 0)
            have_layout = 1;
        h.list[h.count].name = names[h.count];
        h.list[h.count].key = key;
        h.list[h.count].value = values[h.count];
        ++h.count;
    }
    if (h.count > 0)
        (void)pfio_config_apply(pf->config, "hint", h.list, h.count, report_refused, &h);
    free(h.list);
    free(values);
    free(names);
    /* striping_unit x striping_factor describe how the file is spread over targets. */
    if (!have_layout && hint_get(info, "striping_unit", unit) &&
        hint_get(info, "striping_factor", factor)) {
        snprintf(value, sizeof value, "stripe=%.400s,targets=%.400s", unit, factor);
        if (pfio_config_set(pf->config, "layout", value) != PFIO_OK) {
            snprintf(msg, sizeof msg,
                     "hints striping_unit = \"%.400s\", striping_factor = \"%.400s\" do not make "
                     "a pfio layout (%.900s); pfio uses one target",
                     unit, factor, pfio_last_error());
            report(pf, fd->filename, msg);
        }
    }
    if (pfio_config_validate(pf->config) != PFIO_OK) {
        snprintf(msg, sizeof msg, "%s; using pfio's defaults and the PFIO_* environment",
                 pfio_last_error());
        report(pf, fd->filename, msg);
        pfio_config_destroy(pf->config);
        pf->config = NULL;
        pfio_config_create(&pf->config);
        driver_defaults(pf);
    }
}

/* A number setting in force (pfio_config_get_number); `otherwise` without a config. */
static uint64_t number(const ADIOI_PREFETCH_File *pf, const char *key, uint64_t otherwise)
{
    uint64_t v = otherwise;
    if (pf->config == NULL || pfio_config_get_number(pf->config, key, &v) != PFIO_OK)
        return otherwise;
    return v;
}

/* The front end's settings in force (keys of pfio_config like the engine's: hints
 * prefetch_<key>, PFIO_* variables, one parser and message). */
static void apply_collective_hints(ADIO_File fd, ADIOI_PREFETCH_File *pf)
{
    char msg[2048];
    pf->coll_enabled = (int)number(pf, "collective", 1);
    pf->coll_lookahead = (int)number(pf, "coll_lookahead", 8);
    pf->coll_timeout_s = (int)number(pf, "coll_timeout", 600);
    pf->step_aside = (int)number(pf, "step_aside", 1);
    pf->coll_ahead = number(pf, "coll_ahead", 0);
    pf->print_hints = (int)number(pf, "print_hints", 0);
    /* A path longer than the driver keeps is named and not used (no record, no replay). */
    if (pf->config != NULL &&
        pfio_config_get(pf->config, "record", pf->record_path, sizeof pf->record_path) != PFIO_OK) {
        snprintf(msg, sizeof msg, "setting record: %.1800s; no record is written",
                 pfio_last_error());
        report(pf, fd->filename, msg);
    }
    if (pf->config != NULL &&
        pfio_config_get(pf->config, "replay", pf->replay_path, sizeof pf->replay_path) != PFIO_OK) {
        snprintf(msg, sizeof msg, "setting replay: %.1800s; nothing is replayed",
                 pfio_last_error());
        report(pf, fd->filename, msg);
    }
}

/* The value in force of `key` into value[0 .. size), "" for none: the stats path as the user gave
 * it (stats_path and its short name stats; the config holds it with the rank added). */
static void in_force(const ADIOI_PREFETCH_File *pf, const char *key, char *value, size_t size)
{
    if (strcmp(key, "stats_path") == 0 || strcmp(key, "stats") == 0)
        snprintf(value, size, "%s", pf->stats_path);
    else if (pf->config == NULL || pfio_config_get(pf->config, key, value, size) != PFIO_OK)
        value[0] = '\0';
}

/* Whether the user chose setting `key`: a hint at open named it (`at_open`), or the PFIO_*
 * environment or a hint applied named the setting (under any of its names). */
static int chosen(const ADIOI_PREFETCH_File *pf, const char *key, int at_open)
{
    int named = 0;
    if (at_open)
        return 1;
    return pf->config != NULL && pfio_config_named(pf->config, key, &named) == PFIO_OK && named;
}

/* The values in force of the settings the user chose, for MPI_File_get_info (and "prefetch" =
 * "enable"): with Open MPI each published key costs the open a subscription, and get_info
 * costs in proportion to the keys squared (docs/romio-driver.md, "What an open costs");
 * prefetch_print_hints=1 prints every setting. */
static void publish(ADIO_File fd, ADIOI_PREFETCH_File *pf, const unsigned char *at_open)
{
    char name[HINT_NAME_MAX], value[HINT_VALUE_MAX];
    size_t i, keys = key_count();
    ADIOI_Info_set(fd->info, "prefetch", "enable");
    for (i = 0; i < keys; ++i) {
        if (!chosen(pf, pfio_config_key(i), at_open[i]))
            continue;
        hint_name(i, name);
        in_force(pf, pfio_config_key(i), value, sizeof value);
        if (value[0] != '\0')
            ADIOI_Info_set(fd->info, name, value);
    }
}

/* The per-rank stats name: "x.json" -> "x.rank3.json", "x" -> "x.rank3". */
static void rank_stats_path(ADIOI_PREFETCH_File *pf)
{
    char path[sizeof pf->stats_path + 32];
    const char *dot, *slash;
    if (pfio_config_get(pf->config, "stats_path", pf->stats_path, sizeof pf->stats_path) !=
            PFIO_OK ||
        pf->stats_path[0] == '\0')
        return;
    dot = strrchr(pf->stats_path, '.');
    slash = strrchr(pf->stats_path, '/');
    if (dot != NULL && (slash == NULL || dot > slash))
        snprintf(path, sizeof path, "%.*s.rank%d%s", (int)(dot - pf->stats_path), pf->stats_path,
                 pf->rank, dot);
    else
        snprintf(path, sizeof path, "%s.rank%d", pf->stats_path, pf->rank);
    pfio_config_set(pf->config, "stats_path", path);
}

/* After open (MPI_File_set_info, MPI_File_set_view): ROMIO's own hints change, pfio's stay.
 * A prefetch hint asking for another value than the one in force is reported and ignored;
 * one repeating it (HDF5 passes the open's info to every set_view) is fine. Returns whether
 * `info` names any pfio setting. */
static int warn_late_hints(ADIO_File fd, ADIOI_PREFETCH_File *pf, MPI_Info info)
{
    char name[HINT_NAME_MAX], value[HINT_VALUE_MAX], now[HINT_VALUE_MAX], at_open[HINT_VALUE_MAX];
    char msg[2 * HINT_VALUE_MAX + 256];
    size_t i, keys = key_count();
    unsigned char *present;
    int named = 0;
    if (pf->internal || info == MPI_INFO_NULL)
        return 0;
    present = ADIOI_Malloc(keys + EXTRA_HINTS);
    hints_present(info, present);
    for (i = 0; i < keys; ++i) {
        const char *key = pfio_config_key(i);
        if (!present[i])
            continue;
        hint_name(i, name);
        if (!hint_get(info, name, value))
            continue;
        named = 1;
        in_force(pf, key, now, sizeof now);
        if (strcmp(value, now) == 0 ||
            (hint_get(pf->open_info, name, at_open) && strcmp(value, at_open) == 0))
            continue; /* the value in force, or the very string given at open */
        snprintf(msg, sizeof msg,
                 "hint %s = \"%.400s\" given after MPI_File_open: pfio settings are fixed at "
                 "open, \"%.400s\" stays in force",
                 name, value, now);
        report(pf, fd->filename, msg);
    }
    ADIOI_Free(present);
    return named;
}

void ADIOI_PREFETCH_SetInfo(ADIO_File fd, MPI_Info users_info, int *error_code)
{
    ADIOI_PREFETCH_File *pf = fd->fs_ptr;
    unsigned char *present; /* the hints of the table users_info holds */
    ADIOI_GEN_SetInfo(fd, users_info, error_code);
    if (*error_code != MPI_SUCCESS)
        return;
    if (pf != NULL) {
        char plan[HINT_VALUE_MAX];
        /* the values in force are written back only when the info named one: every
         * MPI_File_set_view passes here (IOR sets a view per call) */
        if (warn_late_hints(fd, pf, users_info)) {
            unsigned char *at_open = ADIOI_Malloc(key_count() + EXTRA_HINTS);
            hints_present(pf->open_info, at_open);
            publish(fd, pf, at_open);
            ADIOI_Free(at_open);
        }
        if (!pf->internal && hint_get(users_info, "prefetch_plan", plan))
            ADIOI_PREFETCH_Coll_declare(fd, pf, plan, error_code);
        return;
    }
    pf = ADIOI_Calloc(1, sizeof *pf);
    pf->open_info = MPI_INFO_NULL; /* not 0 in every MPI */
    fd->fs_ptr = pf;
    MPI_Comm_rank(fd->comm, &pf->rank);
    MPI_Comm_size(fd->comm, &pf->ranks);
    /* ROMIO's shared file pointer lives in a file of its own, read and written under a lock by
     * every rank: only the stock path sees the other ranks' updates. */
    pf->internal =
        (fd->access_mode & ADIO_DELETE_ON_CLOSE) != 0 && strstr(fd->filename, ".shfp.") != NULL;
    if (pf->internal) {
        snprintf(pf->why_stock, sizeof pf->why_stock, "ROMIO's shared file pointer file");
        return;
    }
    if (pfio_config_create(&pf->config) != PFIO_OK) {
        char msg[HINT_VALUE_MAX];
        if (pf->config == NULL) {
            *error_code = ADIOI_PREFETCH_Error("ADIOI_PREFETCH_SetInfo", __LINE__, PFIO_ENOMEM);
            return;
        }
        snprintf(msg, sizeof msg, "%s; the rest of the PFIO_* environment applies",
                 pfio_last_error());
        report(pf, fd->filename, msg);
    }
    driver_defaults(pf);
    if (users_info != MPI_INFO_NULL)
        MPI_Info_dup(users_info, &pf->open_info);
    present = ADIOI_Malloc(key_count() + EXTRA_HINTS);
    hints_present(users_info, present);
    check_same_everywhere(fd, pf, users_info, present);
    apply_engine_hints(fd, pf, users_info, present);
    apply_collective_hints(fd, pf);
    report_unknown_hints(fd, pf, users_info);
    rank_stats_path(pf);
    publish(fd, pf, present);
    ADIOI_Free(present);
}

void ADIOI_PREFETCH_Print_hints(ADIO_File fd)
{
    ADIOI_PREFETCH_File *pf = fd->fs_ptr;
    char value[HINT_VALUE_MAX];
    size_t i;
    if (pf == NULL || !pf->print_hints || pf->rank != 0)
        return;
    fprintf(stderr, "pfio: file %s: hints in force:", fd->filename);
    for (i = 0; pfio_config_key(i) != NULL; ++i) {
        if (pf->config != NULL &&
            pfio_config_get(pf->config, pfio_config_key(i), value, sizeof value) == PFIO_OK)
            fprintf(stderr, " prefetch_%s=%s", pfio_config_key(i), value[0] ? value : "\"\"");
    }
    fprintf(stderr, " cb_buffer_size=%d cb_nodes=%d romio_cb_read=%s\n", fd->hints->cb_buffer_size,
            fd->hints->cb_nodes,
            fd->hints->cb_read == ADIOI_HINT_ENABLE    ? "enable"
            : fd->hints->cb_read == ADIOI_HINT_DISABLE ? "disable"
                                                       : "automatic");
    if (pf->why_stock[0])
        fprintf(stderr, "pfio: file %s: reads take the stock path: %s\n", fd->filename,
                pf->why_stock);
}
