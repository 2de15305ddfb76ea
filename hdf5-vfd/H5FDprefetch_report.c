/* The driver's counters of one file, written as JSON beside pfio's own stats when a stats path is
 * set: pfio's context writes <stats_path> (when the file used it), the driver <stats_path>.hdf5,
 * so a run can show that, and how, an HDF5 program read through pfio, including one that was not
 * written for it (libpfio_hdf5_preload.so). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "H5FDprefetch_private.h"
#include "pfio_front_end.h"

/* One "name": value line per counter, in the order of H5FD_prefetch_stats_t. */
static void report_counters(FILE *out, const H5FD_prefetch_stats_t *s)
{
    const struct {
        const char *name;
        uint64_t value;
    } counters[] = {
        {"raw_reads", s->raw_reads},
        {"metadata_reads", s->metadata_reads},
        {"writes", s->writes},
        {"refreshes", s->refreshes},
        {"declared_extents", s->declared_extents},
        {"declared_bytes", s->declared_bytes},
        {"skipped_chunks", s->skipped_chunks},
        {"chunk_lookups", s->chunk_lookups},
        {"predicted_extents", s->predicted_extents},
        {"prediction_breaks", s->prediction_breaks},
        {"prediction_offs", s->prediction_offs},
        {"prediction_shifts", s->prediction_shifts},
        {"advised_extents", s->advised_extents},
        {"advised_reads", s->advised_reads},
        {"unplanned_reads", s->unplanned_reads},
        {"sieve_switches", s->sieve_switches},
        {"sieved_reads", s->sieved_reads},
        {"index_reads", s->index_reads},
        {"index_drops", s->index_drops},
        {"index_advised", s->index_advised},
        {"index_chunks", s->index_chunks},
        {"chunk_map_hits", s->chunk_map_hits},
        {"sweeps", s->sweeps},
        {"sweep_advised", s->sweep_advised},
        {"call_plans", s->call_plans},
        {"call_plan_extents", s->call_plan_extents},
        {"call_plan_bytes", s->call_plan_bytes},
        {"calls_unplanned", s->calls_unplanned},
        {"call_plans_unread", s->call_plans_unread},
        {"calls_ahead", s->calls_ahead},
        {"calls_ahead_bytes", s->calls_ahead_bytes},
        {"calls_ahead_used", s->calls_ahead_used},
        {"calls_ahead_missed", s->calls_ahead_missed},
    };
    size_t i, n = sizeof counters / sizeof counters[0];
    for (i = 0; i < n; ++i)
        fprintf(out, "  \"%s\": %llu%s\n", counters[i].name, (unsigned long long)counters[i].value,
                i + 1 < n ? "," : "");
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
