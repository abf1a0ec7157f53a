/* Names: block paths with '/' inside a name doubled, names with newlines,
 * ':' and trailing spaces, and signal names (jg_program_find_signal,
 * jg_program_signal_name) as linearization points. */
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

/* tests/data/names.json: x' = 2 (r - x), y = x */
static void names_model(void)
{
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_error_t err = {0};
    jg_status_t st = jg_model_read("tests/data/names.json", &m, &err);
    if (!st) st = jg_program_compile(m, &p, &err);
    if (!tap_ok(!st, "names.json compiles: %s", st ? err.msg : "ok")) {
        jg_model_free(m);
        return;
    }

    int32_t k = jg_program_find_block(p, "Ctrl//PI: K/k//p");
    tap_ok(k >= 0 && !strcmp(jg_program_block_type(p, k), "Gain"), "find_block: '//' is a '/' of a name");
    tap_ok(jg_program_find_block(p, "Ctrl/PI: K/k/p") < 0, "find_block: single slashes do not match");
    tap_ok(jg_program_find_block(p, "Ctrl//PI: K") >= 0 && jg_program_find_block(p, "u//in") >= 0,
           "find_block: SubSystem and root block with '/' in the name");
    int32_t x = jg_program_find_block(p, "Plant\nx"), s = jg_program_find_block(p, "Sum ");
    tap_ok(x >= 0 && s >= 0 && jg_program_find_block(p, "Sum") < 0,
           "find_block: a newline and a trailing space are part of the name");
    tap_streq(jg_program_state_name(p, 0), "Plant\nx", "state name: the path, newline kept");

    tap_streq(jg_program_signal_name(p, x, 0), "speed", "signal name of the Integrator output");
    tap_streq(jg_program_signal_name(p, s, 0), "error", "signal name of the Sum output");
    tap_ok(jg_program_signal_name(p, x, 1) == NULL && jg_program_signal_name(p, -1, 0) == NULL &&
               jg_program_signal_name(p, jg_program_nblocks(p), 0) == NULL,
           "signal name: out-of-range port or block is NULL");
    int32_t y = jg_program_find_block(p, "y\xc2\xb0");
    tap_ok(y >= 0 && jg_program_signal_name(p, y, 0) == NULL, "an Outport has no output to name");

    int32_t b = -7;
    int q = -7;
    st = jg_program_find_signal(p, "speed", &b, &q, &err);
    tap_ok(!st && b == x && q == 0, "find_signal: 'speed' is Plant\\nx:1");
    st = jg_program_find_signal(p, "err", &b, &q, &err);
    tap_ok(!st && b == jg_program_find_block(p, "Ctrl//PI: K/e") && q == 0,
           "find_signal: a name inside a SubSystem");
    b = -7;
    q = -7;
    st = jg_program_find_signal(p, "cmd", &b, &q, &err);
    tap_ok(st == JG_ARG && b == -7 && q == -7, "find_signal: ambiguous name is JG_ARG, outputs untouched");
    tap_streq(err.msg,
              "signal name 'cmd' is ambiguous: 2 output ports carry it: 'Ctrl//PI: K:1', "
              "'Ctrl//PI: K/k//p:1'",
              "find_signal: ambiguity lists the candidates as BLOCK:N");
    st = jg_program_find_signal(p, "nope", &b, &q, &err);
    tap_ok(st == JG_ARG && !strcmp(err.msg, "no signal named 'nope'"), "find_signal: unknown name");
    st = jg_program_find_signal(p, "", &b, &q, &err);
    tap_ok(st == JG_ARG, "find_signal: the empty name is no name");
    tap_ok(jg_program_nwarnings(p) == 0, "repeating one name on the branches of a signal is fine");
    jg_program_free(p);
    jg_model_free(m);
}

/* Points by signal name agree on every linearization path: inputs ref, err;
 * outputs speed, error: B = [2 2], C = [1; -1], D = [0 0; 1 0]. */
static void signal_points(void)
{
    FILE *fp = fopen("tests/data/names.json", "rb");
    char *json = calloc(1, 1 << 16);
    size_t n = fp && json ? fread(json, 1, (1 << 16) - 1, fp) : 0;
    if (fp) fclose(fp);
    const char *in[] = {"ref", "err"}, *out[] = {"speed", "error"};
    jg_lin_opts_t o = {.nin = 2, .in = in, .nout = 2, .out = out, .no_defaults = 1};
    fx_t f;
    jg_status_t st = n ? fx_load(&f, json, &o) : JG_IO;
    if (tap_ok(!st, "linearizer with points by signal name: %s", st ? f.err.msg : "ok")) {
        for (int k = 0; k < NPATHS; k++) {
            jg_lin_sys_t *s = NULL;
            st = jg_lin_run(f.l, paths[k].m, paths[k].r, &s, NULL, &f.err);
            tap_ok(!st && s->nu == 2 && s->ny == 2 && fx_entry(s->A, 0, 0) == -2 &&
                       fabs(fx_entry(s->B, 0, 0) - 2) < 1e-6 && fabs(fx_entry(s->B, 0, 1) - 2) < 1e-6 &&
                       fabs(fx_entry(s->C, 0, 0) - 1) < 1e-6 && fabs(fx_entry(s->C, 1, 0) + 1) < 1e-6 &&
                       fabs(fx_entry(s->D, 1, 0) - 1) < 1e-6 && fx_entry(s->D, 0, 0) == 0 &&
                       fx_entry(s->D, 1, 1) == 0,
                   "%s: B, C, D of the points by signal name", paths[k].name);
            tap_ok(s && !strcmp(s->input_names[0], "ref") && !strcmp(s->input_names[1], "err") &&
                       !strcmp(s->output_names[0], "speed") && !strcmp(s->output_names[1], "error") &&
                       !strcmp(s->state_names[0], "Plant\nx"),
                   "%s: rows and columns named by the signal names", paths[k].name);
            jg_lin_sys_free(s);
        }
    }
    fx_unload(&f);
    const char *amb[] = {"cmd"};
    jg_lin_opts_t o2 = {.nout = 1, .out = amb};
    st = n ? fx_load(&f, json, &o2) : JG_IO;
    tap_ok(st == JG_ARG && !strncmp(f.err.msg, "--output cmd: signal name 'cmd' is ambiguous", 44),
           "ambiguous --output: %s", f.err.msg);
    fx_unload(&f);
    free(json);
}

/* Small models from strings: edge cases of names. */
static void edge_cases(void)
{
    fx_t f;
    /* block "a/b" at the root and block "b" of SubSystem "a" differ */
    jg_status_t st = fx_load(&f,
                             "{\"blocks\":[{\"name\":\"a/b\",\"type\":\"Integrator\"},"
                             "{\"name\":\"a\",\"type\":\"SubSystem\",\"blocks\":["
                             "{\"name\":\"b\",\"type\":\"Integrator\"},"
                             "{\"name\":\"c:1\",\"type\":\"Gain\"}],"
                             "\"lines\":[{\"src\":\"b:1\",\"dst\":\"c:1:1\",\"name\":\"v\"},"
                             "{\"src\":\"c:1:1\",\"dst\":\"b:1\",\"name\":\"w/x\"}]}],"
                             "\"lines\":[{\"src\":\"a/b:1\",\"dst\":\"a/b:1\",\"name\":\"\"}]}",
                             NULL);
    if (tap_ok(!st, "root 'a/b' next to SubSystem 'a' holding 'b': %s", st ? f.err.msg : "ok")) {
        tap_ok(jg_program_find_block(f.p, "a//b") == 0 && jg_program_find_block(f.p, "a/b") == 2,
               "paths 'a//b' and 'a/b' name the two blocks");
        tap_streq(jg_program_state_name(f.p, 0), "a//b", "state names use the escaped path");
        tap_streq(jg_program_state_name(f.p, 1), "a/b", "... and the plain one for the other");
        tap_ok(jg_program_signal_name(f.p, 0, 0) == NULL, "an empty line name is no name");
        int32_t b;
        int q;
        tap_ok(!jg_program_find_signal(f.p, "w/x", &b, &q, &f.err) &&
                   b == jg_program_find_block(f.p, "a/c:1"),
               "a signal name with '/' and a block name with ':'");
        jg_lin_sys_t *s = NULL;
        jg_lin_free(f.l);
        f.l = NULL;
        const char *in[] = {"a/c:1:1"}, *out[] = {"v"};
        jg_lin_opts_t o = {.nin = 1, .in = in, .nout = 1, .out = out};
        st = jg_lin_create(f.p, &o, &f.l, &f.err);
        if (!st) st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &f.err);
        tap_ok(!st && s->nu == 1 && s->ny == 1 && fx_entry(s->B, 1, 0) == 1 && fx_entry(s->C, 0, 1) == 1,
               "BLOCK:N with ':' inside the name, N after the last colon: %s", st ? f.err.msg : "ok");
        jg_lin_sys_free(s);
    }
    fx_unload(&f);

    /* two names on one port: the first stays, with a warning */
    st = fx_load(&f,
                 "{\"blocks\":[{\"name\":\"c\",\"type\":\"Constant\"},{\"name\":\"g\",\"type\":\"Gain\"},"
                 "{\"name\":\"h\",\"type\":\"Gain\"}],\"lines\":[{\"src\":\"c:1\",\"dst\":\"g:1\",\"name\":"
                 "\"v\"},{\"src\":\"c:1\",\"dst\":\"h:1\",\"name\":\"w\"}]}",
                 NULL);
    tap_ok(!st && !strcmp(jg_program_signal_name(f.p, 0, 0), "v") && jg_program_nwarnings(f.p) == 1 &&
               !strcmp(jg_program_warning(f.p, 0),
                       "output 1 of block 'c': its lines name the signal both 'v' and 'w'; 'v' is kept"),
           "two names on one signal: first kept, warned");
    fx_unload(&f);

    /* bad inputs */
    st = fx_load(&f,
                 "{\"blocks\":[{\"name\":\"c\",\"type\":\"Constant\"}],\"lines\":[{\"src\":\"c:1\","
                 "\"dst\":[],\"name\":[\"v\"]}]}",
                 NULL);
    tap_ok(st == JG_MODEL && strstr(f.err.msg, "\"name\" (the signal name) must be a string"),
           "a non-string line name: %s", f.err.msg);
    fx_unload(&f);
    st = fx_load(&f,
                 "{\"blocks\":[{\"name\":\"/\",\"type\":\"SubSystem\",\"blocks\":[{\"name\":\"/\","
                 "\"type\":\"Gain\"}]},{\"name\":\"//\",\"type\":\"Gain\"}]}",
                 NULL);
    tap_ok(!st && jg_program_find_block(f.p, "//") == 0 && jg_program_find_block(f.p, "/////") == 1 &&
               jg_program_find_block(f.p, "////") == 2,
           "names made of slashes: '//', '/////', '////' (%s)", st ? f.err.msg : "ok");
    fx_unload(&f);
    st = fx_load(&f,
                 "{\"blocks\":[{\"name\":\"S/\",\"type\":\"SubSystem\",\"blocks\":[{\"name\":\"x\","
                 "\"type\":\"Gain\"}]},{\"name\":\"S\",\"type\":\"SubSystem\",\"blocks\":[{\"name\":"
                 "\"/x\",\"type\":\"Gain\"}]}]}",
                 NULL);
    tap_ok(st == JG_MODEL && strstr(f.err.msg, "have the same path 'S///x'"),
           "colliding paths are an error: %s", f.err.msg);
    fx_unload(&f);
    st = fx_load(&f, "{\"blocks\":[{\"name\":\"a\\nb\",\"type\":\"Gain\"},{\"name\":\"a\\nb\",\"type\":\"Gain\"}]}",
                 NULL);
    tap_ok(st == JG_MODEL && strstr(f.err.msg, "duplicate block name"), "a duplicate name with a newline");
    fx_unload(&f);
}

int main(void)
{
    names_model();
    signal_points();
    edge_cases();
    return tap_done();
}
