/* fuzz.h -- what every fuzz target shares: the libFuzzer entry point (the
 * same function serves libFuzzer in the fuzz build and replay_main.c in the
 * normal build), a NUL-terminated copy of the input and the Simulink import
 * pipeline from memory. */
#ifndef JG_FUZZ_H
#define JG_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a C string (the parsers under test take NUL-terminated text;
 * an embedded NUL ends it early, as it would reading a file).  NULL when out
 * of memory; the caller frees. */
static inline char *fz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return NULL;
    if (size) memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* With FZ_VERBOSE set in the environment, a target says how far each input
 * got ("model: compiled", "model: fuzz.json:3:1: ..."): to check that seeds
 * reach the deep stages.  Silent otherwise (libFuzzer's output stays short). */
static inline void fz_say(const char *target, const char *what)
{
    static int verbose = -1;
    if (verbose < 0) verbose = getenv("FZ_VERBOSE") != NULL;
    if (verbose) fprintf(stderr, "%s: %s\n", target, what);
}

/* Inputs larger than this are ignored: a parser's cost is linear in its
 * input, and big inputs only slow the search down. */
#define FZ_MAX_INPUT ((size_t)1 << 20)

#endif
