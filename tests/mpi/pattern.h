/* Self-verifying data for the MPI tests (C): the 8-byte word at file offset o (o a multiple of
 * 8) holds pattern_word(o, seed), the same function as pfio's C++ tests and benchmarks
 * (src/testdata/pattern.h), so any byte read from anywhere can be checked on its own. */
#ifndef PFIO_TESTS_MPI_PATTERN_H
#define PFIO_TESTS_MPI_PATTERN_H

#include <stdint.h>
#include <string.h>

static inline uint64_t pattern_word(uint64_t offset, uint64_t seed)
{
    uint64_t z = offset ^ (seed * 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The byte at file offset o (little-endian words). */
static inline unsigned char pattern_byte(uint64_t o, uint64_t seed)
{
    uint64_t w = pattern_word(o & ~7ull, seed);
    return (unsigned char)(w >> (8 * (o & 7)));
}

static inline void pattern_fill(unsigned char *buf, uint64_t offset, uint64_t length, uint64_t seed)
{
    uint64_t i;
    for (i = 0; i < length; ++i)
        buf[i] = pattern_byte(offset + i, seed);
}

#endif
