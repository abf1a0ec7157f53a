/* A linear model as Matrix Market files PREFIX_A.mtx .. PREFIX_D.mtx plus
 * PREFIX_names.txt; all five are written or none is left behind.
 *
 * PREFIX_names.txt has one name per line under "# states", "# inputs",
 * "# outputs".  Simulink names may hold newlines, so a name is written C-like:
 * a backslash doubled, newline and carriage return as backslash-n and
 * backslash-r, and a leading '#' after a backslash; every line is then one
 * name or a section header. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/io.h"
#include "io_impl.h"

static const char *const WHAT[4] = {"A", "B", "C", "D"};
static const char *const ROWS[4] = {"states", "states", "outputs", "outputs"};
static const char *const COLS[4] = {"states", "inputs", "states", "inputs"};

static void put_matrix(FILE *f, int k, const cs_dl *S, const jg_lin_sys_t *s,
                       const jg__io_mm_par_t *par)
{
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n");
    fprintf(f, "%% jacgraph %s (%s x %s) of a model with %lld states, %lld inputs, "
            "%lld outputs at t = %.17g\n", WHAT[k], ROWS[k], COLS[k], (long long)s->nx,
            (long long)s->nu, (long long)s->ny, s->t);
    /* the sample time: 0 continuous, else x[k+1] = A x[k] + B u[k] */
    fprintf(f, "%% Ts = %.17g\n", s->Ts);
    fprintf(f, "%lld %lld %lld\n", (long long)S->m, (long long)S->n, (long long)S->p[S->n]);
    /* "%lld %lld %.17g\n" per entry (mm_entries.c: the numbers by
     * jg__io_fmt17, the same bytes as printf's; a large matrix on threads) */
    jg__io_mm_entries(f, S, par);
}

/* The names file's text goes through a buffer: fputc took a call and the
 * stream's lock per byte (500 kB of names at a million blocks). */
typedef struct {
    FILE *f;
    size_t n;
    char b[1 << 15];
} out_t;

/* The buffer written out; a failure sets ferror(f), which jg__io_close reports. */
static char *out_flush(out_t *o, char *d)
{
    fwrite(o->b, 1, (size_t)(d - o->b), o->f);
    return o->b;
}

/* s and a newline; esc: as a name, escaped (see the top). */
static void put_line(out_t *o, const char *s, int esc)
{
    char *d = o->b + o->n, *end = o->b + sizeof o->b - 2;   /* room for two bytes */
    if (d >= end) d = out_flush(o, d);
    if (esc && *s == '#') *d++ = '\\';
    for (; *s; s++) {
        if (d >= end) d = out_flush(o, d);
        char c = *s;
        if (esc && (c == '\\' || c == '\n' || c == '\r')) {
            *d++ = '\\';
            *d++ = c == '\\' ? '\\' : c == '\n' ? 'n' : 'r';
        } else {
            *d++ = c;
        }
    }
    if (d >= end) d = out_flush(o, d);
    *d++ = '\n';
    o->n = (size_t)(d - o->b);
}

static void put_names(out_t *o, const char *section, char *const *v, int64_t n, char pfx)
{
    char t[32];
    snprintf(t, sizeof t, "# %s", section);
    put_line(o, t, 0);
    for (int64_t k = 0; k < n; k++)
        if (v && v[k]) {
            put_line(o, v[k], 1);
        } else {
            snprintf(t, sizeof t, "%c%lld", pfx, (long long)k + 1);
            put_line(o, t, 0);
        }
}

/* k = 0..3: matrix k (S its sorted copy); k = 4: the names. */
static jg_status_t write_file(const char *path, int k, const cs_dl *S, const jg_lin_sys_t *s,
                              const jg__io_mm_par_t *par, jg_error_t *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return jg_error_set(err, JG_IO, "%s: cannot write: %s", path, strerror(errno));
    if (k < 4) {
        put_matrix(f, k, S, s, par);
    } else {
        out_t o;
        o.f = f;
        o.n = 0;
        put_names(&o, "states", s->state_names, s->nx, 'x');
        put_names(&o, "inputs", s->input_names, s->nu, 'u');
        put_names(&o, "outputs", s->output_names, s->ny, 'y');
        out_flush(&o, o.b + o.n);
    }
    return jg__io_close(f, 0, path, err);
}

jg_status_t jg_io_write_linsys_mm(const char *prefix, const jg_lin_sys_t *s, jg_error_t *err)
{
    return jg__io_write_linsys_mm_par(prefix, s, NULL, err);
}

jg_status_t jg_io_write_linsys_mm_threads(const char *prefix, const jg_lin_sys_t *s, int threads,
                                          jg_error_t *err)
{
    jg__io_mm_par_t par;
    jg__io_mm_par_default(&par);
    if (threads > 0 && threads < par.threads) par.threads = threads;
    return jg__io_write_linsys_mm_par(prefix, s, &par, err);
}

jg_status_t jg__io_write_linsys_mm_par(const char *prefix, const jg_lin_sys_t *s,
                                       const jg__io_mm_par_t *par, jg_error_t *err)
{
    if (!prefix || !s)
        return jg_error_set(err, JG_ARG, "Matrix Market output: no prefix or no model");
    if (s->ndelays)
        return jg_error_set(err, JG_ARG, "Matrix Market output: the model has %lld internal "
                            "delays (exact delays), which A, B, C, D files cannot hold: use the "
                            "json, m, py or mat format", (long long)s->ndelays);
    const cs_dl *mats[4] = {s->A, s->B, s->C, s->D};
    const int64_t dims[4][2] = {{s->nx, s->nx}, {s->nx, s->nu}, {s->ny, s->nx}, {s->ny, s->nu}};
    for (int k = 0; k < 4; k++)
        if (!jg__io_shape_ok(mats[k], dims[k][0], dims[k][1]))
            return jg_error_set(err, JG_ARG,
                                "Matrix Market output: matrix %s is missing or not %lldx%lld",
                                WHAT[k], (long long)dims[k][0], (long long)dims[k][1]);

    jg__io_mm_par_t def;
    if (!par) {
        jg__io_mm_par_default(&def);
        par = &def;
    }
    jg_status_t st = JG_OK;
    size_t len = strlen(prefix) + sizeof "_names.txt";
    char *path = malloc(len * 5);     /* five paths, one block */
    cs_dl *S = NULL;
    int done = 0;                     /* files completely written */
    if (!path) return jg_error_set(err, JG_NOMEM, "Matrix Market output: out of memory");
    for (int k = 0; k < 5; k++) {
        if (k < 4) snprintf(path + k * len, len, "%s_%s.mtx", prefix, WHAT[k]);
        else snprintf(path + k * len, len, "%s_names.txt", prefix);
    }
    for (int k = 0; k < 5 && !st; k++) {
        const cs_dl *C = k < 4 ? jg__io_canonical(mats[k], &S) : NULL;
        if (k < 4 && !C) {
            st = jg_error_set(err, JG_NOMEM, "Matrix Market output: out of memory for %s",
                              WHAT[k]);
            break;
        }
        st = write_file(path + k * len, k, C, s, par, err);
        cs_dl_spfree(S);
        S = NULL;
        if (!st) done = k + 1;
    }
    /* a partial set would mix this model with files of an earlier run */
    if (st)
        for (int k = 0; k < done; k++) jg__io_discard(path + k * len);
    free(path);
    return st;
}
