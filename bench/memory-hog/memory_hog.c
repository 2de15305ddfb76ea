/* memory-hog: takes a share of the machine's memory, as another job on the node would, and
 * holds it. Used by scripts/bench.sh memory-contention to check that pfio gives memory back
 * before the kernel has to kill anyone.
 *
 * usage: memory-hog PERCENT SECONDS
 *   allocates PERCENT of MemTotal in 256 MiB pieces, writing every page (so it is really
 *   used), holds it SECONDS, then frees it and exits 0. Prints one line per GiB taken, with the
 *   time since start. Exit 2 on bad arguments, 1 if memory could not be had.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    const size_t piece = (size_t) 256 << 20;
    long percent, seconds;
    unsigned long long total_kb = 0, want, got = 0;
    char line[256];
    FILE *f;
    char **pieces;
    size_t n = 0, i;
    double t0 = now();
    if (argc != 3 || (percent = atol(argv[1])) < 1 || percent > 95 ||
        (seconds = atol(argv[2])) < 0) {
        fprintf(stderr, "usage: memory-hog PERCENT SECONDS (PERCENT 1 .. 95 of MemTotal)\n");
        return 2;
    }
    f = fopen("/proc/meminfo", "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemTotal: %llu kB", &total_kb) == 1)
            break;
    if (f != NULL)
        fclose(f);
    want = total_kb * 1024 / 100 * (unsigned long long) percent;
    pieces = calloc(want / piece + 1, sizeof *pieces);
    while (pieces != NULL && got < want) {
        char *p = malloc(piece);
        if (p == NULL) {
            fprintf(stderr, "memory-hog: malloc failed after %llu MiB\n", got >> 20);
            return 1;
        }
        memset(p, 0x5a, piece);
        pieces[n++] = p;
        got += piece;
        if (got % (1ull << 30) == 0)
            printf("memory-hog: %6.2f s  %llu GiB\n", now() - t0, got >> 30);
        fflush(stdout);
    }
    printf("memory-hog: %6.2f s  holding %llu MiB for %ld s\n", now() - t0, got >> 20, seconds);
    fflush(stdout);
    sleep((unsigned) seconds);
    for (i = 0; i < n; ++i)
        free(pieces[i]);
    free(pieces);
    printf("memory-hog: %6.2f s  done\n", now() - t0);
    return 0;
}
