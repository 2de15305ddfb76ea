// FUZZ_CHECK: a property a fuzz target asserts. On failure it prints what failed and aborts, so
// libFuzzer records the input as a crash (a property violation is a bug like any other).
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond, ...)                                    \
  do {                                                           \
    if (!(cond)) {                                               \
      std::fprintf(stderr, "fuzz property failed: %s: ", #cond); \
      std::fprintf(stderr, __VA_ARGS__);                         \
      std::fprintf(stderr, "\n");                                \
      std::abort();                                              \
    }                                                            \
  } while (0)
