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

/* v in decimal at o; returns the end. */
static char *put_u64(char *o, uint64_t v)
{
    char t[24];
    int n = 0;
    do t[n++] = (char)('0' + v % 10);
    while (v /= 10);
    while (n) *o++ = t[--n];
    return o;
}

static void put_matrix(FILE *f, int k, const cs_dl *S, const jg_lin_sys_t *s)
{
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n");
    fprintf(f, "%% jacgraph %s (%s x %s) of a model with %lld states, %lld inputs, "
            "%lld outputs at t = %.17g\n", WHAT[k], ROWS[k], COLS[k], (long long)s->nx,
            (long long)s->nu, (long long)s->ny, s->t);
    /* the sample time: 0 continuous, else x[k+1] = A x[k] + B u[k] */
    fprintf(f, "%% Ts = %.17g\n", s->Ts);
    fprintf(f, "%lld %lld %lld\n", (long long)S->m, (long long)S->n, (long long)S->p[S->n]);
    /* "%lld %lld %.17g\n" per entry, formatted here (jg__io_fmt17: the same
     * bytes as printf's, ~10x faster) and written in blocks */
    char buf[1 << 16], *o = buf;
    for (int64_t j = 0; j < S->n; j++)
        for (int64_t p = S->p[j]; p < S->p[j + 1]; p++) {
            if (o > buf + sizeof buf - 80) {
                fwrite(buf, 1, (size_t)(o - buf), f);
                o = buf;
            }
            o = put_u64(o, (uint64_t)S->i[p] + 1);
            *o++ = ' ';
            o = put_u64(o, (uint64_t)j + 1);
            *o++ = ' ';
            o += jg__io_fmt17(o, S->x[p]);
            *o++ = '\n';
        }
    fwrite(buf, 1, (size_t)(o - buf), f);
}

static void put_name(FILE *f, const char *s)
{
    if (*s == '#') fputc('\\', f);
    for (; *s; s++) {
        if (*s == '\\') fputs("\\\\", f);
        else if (*s == '\n') fputs("\\n", f);
        else if (*s == '\r') fputs("\\r", f);
        else fputc(*s, f);
    }
    fputc('\n', f);
}

static void put_names(FILE *f, const char *section, char *const *v, int64_t n, char pfx)
{
    fprintf(f, "# %s\n", section);
    for (int64_t k = 0; k < n; k++)
        if (v && v[k]) put_name(f, v[k]);
        else fprintf(f, "%c%lld\n", pfx, (long long)k + 1);
}

/* k = 0..3: matrix k (S its sorted copy); k = 4: the names. */
static jg_status_t write_file(const char *path, int k, const cs_dl *S, const jg_lin_sys_t *s,
                              jg_error_t *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return jg_error_set(err, JG_IO, "%s: cannot write: %s", path, strerror(errno));
    if (k < 4) {
        put_matrix(f, k, S, s);
    } else {
        put_names(f, "states", s->state_names, s->nx, 'x');
        put_names(f, "inputs", s->input_names, s->nu, 'u');
        put_names(f, "outputs", s->output_names, s->ny, 'y');
    }
    return jg__io_close(f, 0, path, err);
}

jg_status_t jg_io_write_linsys_mm(const char *prefix, const jg_lin_sys_t *s, jg_error_t *err)
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
        st = write_file(path + k * len, k, C, s, err);
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
