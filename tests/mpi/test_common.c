/* The MPI test programs' shared part (test_common.h): the rank globals, reporting, pattern
 * files, opening a file the way MODE selects the driver, and byte checks. Linked into each. */
#include "test_common.h"

int rank, nprocs, failures;
const char *mode, *dir;
const char *read_path;     /* when set, every open passes hints prefetch_coll_path and
                                     prefetch_read_path = read_path ("engine" or "cache") */
int path_from_environment; /* read_path is set by PFIO_* variables, not by hints */

void fail(const char *name, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "FAIL %s (rank %d of %d, mode %s): ", name, rank, nprocs, mode);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    ++failures;
}

/* Every rank's verdict, printed once on rank 0. */
void report(const char *name, int my_failures_before)
{
    int bad = failures > my_failures_before, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any)
        printf("ok %s\n", name);
    fflush(stdout);
}

void path_of(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", dir, name);
}

/* Rank 0 writes `size` pattern bytes with plain POSIX calls; everyone waits for it. */
void make_file(const char *path, uint64_t size, uint64_t seed)
{
    if (rank == 0) {
        FILE *f = fopen(path, "wb");
        unsigned char *buf = malloc(1 << 20);
        uint64_t done = 0;
        if (f == NULL || buf == NULL) {
            fprintf(stderr, "cannot create %s\n", path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        while (done < size) {
            uint64_t n = size - done < (1 << 20) ? size - done : (1 << 20);
            pattern_fill(buf, done, n, seed);
            if (fwrite(buf, 1, n, f) != n)
                MPI_Abort(MPI_COMM_WORLD, 2);
            done += n;
        }
        fclose(f);
        free(buf);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Opens `path` the way MODE selects the driver; `info` may carry more hints. */
int open_selected(const char *path, int amode, MPI_Info extra, MPI_File *fh)
{
    char name[1100];
    MPI_Info info;
    int rc;
    if (extra != MPI_INFO_NULL)
        MPI_Info_dup(extra, &info);
    else
        MPI_Info_create(&info);
    if (strcmp(mode, "prefix") == 0)
        snprintf(name, sizeof name, "prefetch:%s", path);
    else
        snprintf(name, sizeof name, "%s", path);
    if (strcmp(mode, "hint") == 0)
        MPI_Info_set(info, "prefetch", "enable");
    if (read_path != NULL && !path_from_environment) {
        MPI_Info_set(info, "prefetch_coll_path", (char *)read_path);
        MPI_Info_set(info, "prefetch_read_path", (char *)read_path);
    }
    rc = MPI_File_open(MPI_COMM_WORLD, name, amode, info, fh);
    MPI_Info_free(&info);
    return rc;
}

void must_open(const char *test, const char *path, int amode, MPI_Info extra, MPI_File *fh)
{
    int rc = open_selected(path, amode, extra, fh);
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        fail(test, "MPI_File_open(%s): %s", path, msg);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

void check_range(const char *test, const unsigned char *buf, long long offset, size_t n,
                 uint64_t seed)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        if (buf[i] != pattern_byte((uint64_t)(offset + (long long)i), seed)) {
            fail(test, "byte %zu (file offset %lld) is 0x%02x, expected 0x%02x", i,
                 offset + (long long)i, buf[i], pattern_byte((uint64_t)offset + i, seed));
            return;
        }
    }
}

/* ---- selection ------------------------------------------------------------------------- */

/* buf[i] must hold the file byte at off[i], or SENTINEL where off[i] < 0. */
void check_bytes(const char *test, const unsigned char *buf, const long long *off, size_t n,
                 uint64_t seed)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        unsigned char want = off[i] < 0 ? SENTINEL : pattern_byte((uint64_t)off[i], seed);
        if (buf[i] != want) {
            fail(test, "byte %zu (file offset %lld) is 0x%02x, expected 0x%02x", i, off[i], buf[i],
                 want);
            return;
        }
    }
}

void check_count(const char *test, MPI_Status *st, MPI_Datatype type, int want)
{
    int got = -1;
    MPI_Get_count(st, type, &got);
    if (got != want)
        fail(test, "MPI_Get_count = %d, expected %d", got, want);
}

/* MPI_Init, and this rank and the rank count in the globals. */
void start(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
}

/* Every rank's failures summed, the verdict on rank 0, MPI_Finalize; the exit status. */
int finish(void)
{
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %d failure(s), %d rank(s), mode %s\n", all ? "FAILED" : "PASSED", all, nprocs,
               mode);
    MPI_Finalize();
    return all > 255 ? 255 : all;
}

int info_value(MPI_File fh, const char *key, char *value, int size)
{
    MPI_Info info;
    int flag = 0;
    if (MPI_File_get_info(fh, &info) != MPI_SUCCESS)
        return 0;
    MPI_Info_get(info, key, size - 1, value, &flag);
    MPI_Info_free(&info);
    return flag;
}

long long summary_value(const char *path, const char *key)
{
    return summary_value_in(path, NULL, key);
}

long long summary_value_in(const char *path, const char *object, const char *key)
{
    char text[8192], pattern[128];
    const char *p = text;
    size_t n;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    if (object != NULL) {
        snprintf(pattern, sizeof pattern, "\"%s\": {", object);
        if ((p = strstr(text, pattern)) == NULL)
            return -1;
    }
    snprintf(pattern, sizeof pattern, "\"%s\": ", key);
    p = strstr(p, pattern);
    return p == NULL ? -1 : strtoll(p + strlen(pattern), NULL, 10);
}

void expect_summary(const char *test, const char *stats, const char *key, long long want)
{
    long long got;
    if (rank != 0)
        return;
    got = summary_value(stats, key);
    if (got != want)
        fail(test, "job summary %s: %s = %lld, expected %lld", stats, key, got, want);
}
