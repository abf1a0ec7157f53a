/* The model generators (lib/gen, jacgraph/gen.h): kinds and grids, counts
 * against the compiled model, streamed and in-memory output alike, seeds
 * reproducible, bad options refused with JG_ARG, write errors as JG_IO. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "tap.h"

/* Parse and compile text; returns the program (NULL on failure, message in err). */
static jg_program_t *compile_text(const char *text, jg_error_t *err)
{
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    if (!jg_model_parse(text, "<gen>", &m, err)) jg_program_compile(m, &p, err);
    jg_model_free(m);
    return p;
}

static void test_kinds(void)
{
    int ok = 1;
    for (int k = JG_GEN_AEROSPACE; k <= JG_GEN_BRUSSELATOR; k++) {
        jg_gen_kind_t back = (jg_gen_kind_t)-1;
        ok &= !jg_gen_kind_parse(jg_gen_kind_name((jg_gen_kind_t)k), &back, NULL) && (int)back == k;
    }
    tap_ok(ok, "kind names parse back to their kinds");
    jg_error_t err;
    jg_gen_kind_t kind;
    tap_ok(jg_gen_kind_parse("aero", &kind, &err) == JG_ARG && strstr(err.msg, "'aero'") &&
               strstr(err.msg, "brusselator"),
           "an unknown kind: JG_ARG naming it and the kinds (%s)", err.msg);
    tap_ok(jg_gen_kind_name((jg_gen_kind_t)9) == NULL, "no name for an out-of-range kind");
    /* n = 2 nx ny, nx the largest divisor of n/2 with nx^2 <= n/2, nx >= 3 */
    int64_t nx = 0, ny = 0;
    tap_ok(!jg_gen_brusselator_grid(100, &nx, &ny) && nx == 5 && ny == 10, "100 states: 5x10");
    tap_ok(!jg_gen_brusselator_grid(98, &nx, &ny) && nx == 7 && ny == 7, "98 states: 7x7");
    tap_ok(!jg_gen_brusselator_grid(1000, &nx, &ny) && nx == 20 && ny == 25, "1000 states: 20x25");
    nx = ny = -1;
    tap_ok(jg_gen_brusselator_grid(99, &nx, &ny) == -1 && jg_gen_brusselator_grid(16, &nx, &ny) == -1 &&
               jg_gen_brusselator_grid(2 * 2 * 11, &nx, &ny) == -1 && nx == -1 && ny == -1,
           "odd, too small and nx < 3 (2x11) are no grids, outputs untouched");
}

/* The counts of jg_gen_info_t against the compiled model, for every kind. */
static void test_counts(void)
{
    static const int64_t size[] = {1000, 1000, 1000, 100};
    for (int k = JG_GEN_AEROSPACE; k <= JG_GEN_BRUSSELATOR; k++) {
        jg_gen_opts_t o;
        jg_gen_opts_default(&o, (jg_gen_kind_t)k, size[k], 3);
        char *text = NULL;
        size_t len = 0;
        jg_gen_info_t info;
        jg_error_t err;
        jg_status_t st = jg_gen_model(&o, &text, &len, &info, &err);
        jg_program_t *p = st ? NULL : compile_text(text, &err);
        tap_ok(p && jg_program_nstates(p) == info.nstates && jg_program_nloops(p) == info.nloops &&
                   len == strlen(text) && info.bytes == len,
               "%s: compiles with the reported %lld states and %lld loops, %zu bytes%s%s",
               jg_gen_kind_name((jg_gen_kind_t)k), (long long)info.nstates, (long long)info.nloops, len,
               p ? "" : ": ", p ? "" : err.msg);
        if (k == JG_GEN_BRUSSELATOR)
            tap_ok(info.nblocks == 25 && info.nstates == 100 && info.nx == 5 && info.ny == 10 &&
                       info.nsubsystems == 0 && info.depth == 0,
                   "brusselator 100: 25 blocks, 100 states, 5x10 grid, flat");
        else
            tap_ok(info.nblocks >= 990 && info.nblocks <= 1010 && info.nsubsystems > 0 && info.depth > 0 &&
                       info.ninputs > 0 && info.noutputs > 0,
                   "%s 1000: %lld blocks, %lld SubSystems, depth %d", jg_gen_kind_name((jg_gen_kind_t)k),
                   (long long)info.nblocks, (long long)info.nsubsystems, info.depth);
        jg_program_free(p);
        free(text);
    }
}

/* jg_gen_write to a file gives the bytes of jg_gen_model; seeds reproduce. */
static void test_stream(void)
{
    jg_gen_opts_t o;
    jg_gen_opts_default(&o, JG_GEN_DEEP, 2000, 7);
    o.depth = 12;
    char *a = NULL, *b = NULL, *c = NULL;
    size_t na = 0, nb = 0;
    jg_error_t err;
    jg_gen_info_t info;
    FILE *f = tmpfile();
    int ok = f && !jg_gen_write(&o, f, &info, &err) && !fflush(f);
    if (ok) {
        long n = ftell(f);
        rewind(f);
        b = malloc((size_t)n + 1);
        ok = b && fread(b, 1, (size_t)n, f) == (size_t)n;
        if (ok) b[n] = '\0', nb = (size_t)n;
    }
    if (f) fclose(f);
    ok = ok && !jg_gen_model(&o, &a, &na, NULL, &err);
    tap_ok(ok && na == nb && !memcmp(a, b, na) && info.bytes == nb,
           "deep 2000 --depth 12: the streamed file equals the text in memory (%zu bytes)", nb);
    tap_ok(ok && strstr(a, "\"name\":\"deep_n2000_s7\""), "the model is named kind_nSIZE_sSEED");
    o.seed = 8;
    tap_ok(!jg_gen_model(&o, &c, NULL, NULL, &err) && a && strcmp(a, c) != 0, "another seed, another model");
    free(a);
    free(b);
    free(c);
}

static void test_bad(void)
{
    jg_error_t err;
    jg_gen_opts_t o;
    char *text = (char *)1;
    jg_gen_opts_default(&o, JG_GEN_AEROSPACE, 9, 1);
    tap_ok(jg_gen_model(&o, &text, NULL, NULL, &err) == JG_ARG && text == NULL && strstr(err.msg, "9 blocks"),
           "9 blocks: JG_ARG, no text (%s)", err.msg);
    jg_gen_opts_default(&o, JG_GEN_POWER, JG_GEN_MAX_SIZE + 1, 1);
    tap_ok(jg_gen_model(&o, &text, NULL, NULL, &err) == JG_ARG, "above the largest size: JG_ARG");
    jg_gen_opts_default(&o, JG_GEN_BRUSSELATOR, 99, 1);
    tap_ok(jg_gen_model(&o, &text, NULL, NULL, &err) == JG_ARG && strstr(err.msg, "2 nx ny"),
           "brusselator 99 states: JG_ARG (%s)", err.msg);
    jg_gen_opts_default(&o, JG_GEN_AEROSPACE, 100, 1);
    o.depth = 5;
    tap_ok(jg_gen_model(&o, &text, NULL, NULL, &err) == JG_ARG && strstr(err.msg, "deep"),
           "a depth for aerospace: JG_ARG (%s)", err.msg);
    jg_gen_opts_default(&o, JG_GEN_DEEP, 100, 1);
    o.depth = 1001;
    tap_ok(jg_gen_model(&o, &text, NULL, NULL, &err) == JG_ARG, "depth 1001: JG_ARG");
    jg_gen_opts_default(&o, (jg_gen_kind_t)4, 100, 1);
    tap_ok(jg_gen_model(&o, &text, NULL, NULL, &err) == JG_ARG, "an unknown kind: JG_ARG");
    /* a stream open for reading: every write fails */
    FILE *f = tmpfile();
    FILE *r = f ? fopen("/dev/null", "r") : NULL;
    jg_gen_opts_default(&o, JG_GEN_POWER, 500, 1);
    tap_ok(r && jg_gen_write(&o, r, NULL, &err) == JG_IO && err.status == JG_IO,
           "writing to a read-only stream: JG_IO (%s)", r ? err.msg : "no /dev/null");
    if (r) fclose(r);
    if (f) fclose(f);
}

static void test_random(void)
{
    jg_gen_random_opts_t o;
    jg_gen_random_defaults(&o, 42, 60);
    tap_ok(o.max_depth == 2 && o.vectors && o.loops && !o.infer_widths && o.nblocks == 60 && o.seed == 42,
           "random defaults: depth 2, vectors, loops");
    char *a = NULL, *b = NULL;
    jg_gen_random_info_t info;
    jg_error_t err;
    int ok = !jg_gen_random(&o, &a, &info, &err) && !jg_gen_random(&o, &b, NULL, &err);
    tap_ok(ok && !strcmp(a, b), "random: the same options give the same text");
    jg_program_t *p = ok ? compile_text(a, &err) : NULL;
    tap_ok(p && jg_program_nstates(p) == info.nstates && jg_program_nloops(p) == info.nloops &&
               jg_program_nwarnings(p) == 0,
           "random: compiles without warnings, %lld states and %d loops as reported",
           (long long)info.nstates, info.nloops);
    jg_program_free(p);
    free(a);
    free(b);
    o.nblocks = 0;
    a = (char *)1;
    tap_ok(jg_gen_random(&o, &a, NULL, &err) == JG_ARG && a == NULL, "random: 0 blocks is JG_ARG, no text");
}

int main(void)
{
    test_kinds();
    test_counts();
    test_stream();
    test_bad();
    test_random();
    return tap_done();
}
