/* The driver's counters of one file, written as JSON beside pfio's own stats when a stats path is
 * set: pfio's context writes <stats_path> (when the file used it), the driver <stats_path>.hdf5,
 * so a run can show that, and how, an HDF5 program read through pfio, including one that was not
 * written for it (libpfio_hdf5_preload.so). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "H5FDprefetch_private.h"
#include "pfio_front_end.h"

/* The driver's counters after `engine`, in the order of H5FD_prefetch_stats_t, each named by the
 * member it stands for: the one list the report is written from and H5FD_prefetch_stats_fields
 * gives (python/pfio/h5.py builds its mirror from it). */
/* clang-format off */
#define FIELD(member) {#member, offsetof(H5FD_prefetch_stats_t, member)}
/* clang-format on */
static const H5FD_prefetch_stats_field driver_fields[] = {
    FIELD(raw_reads),
    FIELD(metadata_reads),
    FIELD(writes),
    FIELD(refreshes),
    FIELD(declared_extents),
    FIELD(declared_bytes),
    FIELD(skipped_chunks),
    FIELD(chunk_lookups),
    FIELD(predicted_extents),
    FIELD(prediction_breaks),
    FIELD(prediction_offs),
    FIELD(prediction_shifts),
    FIELD(advised_extents),
    FIELD(advised_reads),
    FIELD(unplanned_reads),
    FIELD(sieve_switches),
    FIELD(sieved_reads),
    FIELD(index_reads),
    FIELD(index_drops),
    FIELD(index_advised),
    FIELD(index_chunks),
    FIELD(chunk_map_hits),
    FIELD(sweeps),
    FIELD(sweep_advised),
    FIELD(call_plans),
    FIELD(call_plan_extents),
    FIELD(call_plan_bytes),
    FIELD(calls_unplanned),
    FIELD(call_plans_unread),
    FIELD(calls_ahead),
    FIELD(calls_ahead_bytes),
    FIELD(calls_ahead_used),
    FIELD(calls_ahead_missed),
    FIELD(call_spans),
    FIELD(call_span_bytes),
    FIELD(calls_unmapped),
    FIELD(predicted_bytes),
    FIELD(prediction_hit_bytes),
    FIELD(prediction_dropped_bytes),
};
#undef FIELD
/* Every field after `engine` is listed: the struct's size is the list's, 8 bytes each. */
_Static_assert(sizeof(H5FD_prefetch_stats_t) ==
                   offsetof(H5FD_prefetch_stats_t, raw_reads) +
                       sizeof driver_fields / sizeof driver_fields[0] * sizeof(uint64_t),
               "driver_fields must list every counter of H5FD_prefetch_stats_t");

const H5FD_prefetch_stats_field *H5FD_prefetch_stats_fields(size_t *count)
{
    if (count != NULL)
        *count = sizeof driver_fields / sizeof driver_fields[0];
    return driver_fields;
}

/* One "name": value line per counter, in the order of H5FD_prefetch_stats_t. */
static void report_counters(FILE *out, const H5FD_prefetch_stats_t *s)
{
    size_t i, n = sizeof driver_fields / sizeof driver_fields[0];
    for (i = 0; i < n; ++i) {
        uint64_t value;
        memcpy(&value, (const char *)s + driver_fields[i].offset, sizeof value);
        fprintf(out, "  \"%s\": %llu%s\n", driver_fields[i].name, (unsigned long long)value,
                i + 1 < n ? "," : "");
    }
}

/* Writes `text` as a JSON string (quotes, backslashes and control bytes escaped). */
static void report_string(FILE *out, const char *text)
{
    const unsigned char *c;
    fputc('"', out);
    for (c = (const unsigned char *)text; *c != '\0'; ++c) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

/* Every report begins so: an earlier one is replaced, any other file refused (the rule of every
 * file pfio writes, pfio_front_end_write). */
static const char report_signature[] = "{\n  \"pfio\": \"hdf5 driver\"";

void H5FD__prefetch_write_report(const H5FD_prefetch_t *file)
{
    char path[4200];
    char *text = NULL;
    size_t length = 0;
    FILE *out;
    unsigned major = 0, minor = 0, release = 0;
    if (file->stats_path == NULL)
        return;
    if ((size_t)snprintf(path, sizeof path, "%s.hdf5", file->stats_path) >= sizeof path) {
        fprintf(stderr,
                "pfio: %s: stats_path = \"%.64s...\" is %zu bytes: expected at most %zu; no "
                "report written\n",
                file->name, file->stats_path, strlen(file->stats_path), sizeof path - 6);
        return;
    }
    out = open_memstream(&text, &length);
    if (out == NULL) {
        fprintf(stderr, "pfio: %s: report %s not written: %s\n", file->name, path, strerror(errno));
        return;
    }
    H5get_libversion(&major, &minor, &release);
    fprintf(out, "%s,\n  \"file\": ", report_signature);
    report_string(out, file->name);
    fprintf(out, ",\n  \"hdf5\": \"%u.%u.%u\",\n  \"read_only\": %s,\n", major, minor, release,
            file->read_only ? "true" : "false");
    report_counters(out, &file->stats);
    fputs("}\n", out);
    if (fclose(out) != 0 || text == NULL)
        fprintf(stderr, "pfio: %s: report %s not written: %s\n", file->name, path, strerror(errno));
    else if (pfio_front_end_write(path, "HDF5 driver report", report_signature, text, length,
                                  file->name, "stats_path + \".hdf5\"") != PFIO_OK)
        fprintf(stderr, "pfio: %s: report not written: %s\n", file->name, pfio_last_error());
    free(text);
}
