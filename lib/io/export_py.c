/* A linear model as a Python script: NumPy arrays (SciPy CSC matrices when
 * large and sparse), the names, and a python-control state-space object when
 * that package imports. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/io.h"
#include "export_impl.h"
#include "io_impl.h"

#define PER_LINE 8   /* numbers per line */

static void put_num(FILE *f, double v)
{
    if (isnan(v)) fputs("np.nan", f);
    else if (isinf(v)) fputs(v > 0 ? "np.inf" : "-np.inf", f);
    else fprintf(f, "%.17g", v);
}

/* A str literal equal to s (UTF-8 is written as it is; the checks made sure
 * it is valid). */
static void put_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\r') fputs("\\r", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c < 0x20 || c == 0x7F) fprintf(f, "\\x%02x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void put_names(FILE *f, const char *var, const char *sfx, char *const *v, int64_t n, char pfx)
{
    char buf[32];
    fprintf(f, "%s%s = [", var, sfx);
    for (int64_t k = 0; k < n; k++) {
        if (k) fputs(k % PER_LINE ? ", " : ",\n    ", f);
        put_str(f, jg__io_name(v, k, pfx, buf));
    }
    fputs("]\n", f);
}

static void put_vec(FILE *f, const int64_t *iv, const double *xv, int64_t n)
{
    fputc('[', f);
    for (int64_t k = 0; k < n; k++) {
        if (k) fputs(k % PER_LINE ? ", " : ",\n    ", f);
        if (iv) fprintf(f, "%lld", (long long)iv[k]);
        else put_num(f, xv[k]);
    }
    fputc(']', f);
}

static jg_status_t put_matrix(FILE *f, const char *var, const char *sfx, const cs_dl *S, int sparse,
                              jg_error_t *err)
{
    int64_t m = S->m, n = S->n, nz = S->p[n], *col = NULL;
    if (sparse) {
        if (!nz) {
            fprintf(f, "%s%s = scipy.sparse.csc_matrix((%lld, %lld))\n", var, sfx, (long long)m,
                    (long long)n);
            return JG_OK;
        }
        col = malloc(sizeof(int64_t) * (size_t)nz);
        if (!col) return jg_error_set(err, JG_NOMEM, "Python output: out of memory for %s", var);
        for (int64_t j = 0; j < n; j++)
            for (int64_t p = S->p[j]; p < S->p[j + 1]; p++) col[p] = j;
        fprintf(f, "%s%s = scipy.sparse.csc_matrix((np.array(", var, sfx);
        put_vec(f, NULL, S->x, nz);
        fputs(", dtype=float),\n    (np.array(", f);
        put_vec(f, S->i, NULL, nz);
        fputs(", dtype=np.int64),\n     np.array(", f);
        put_vec(f, col, NULL, nz);
        fprintf(f, ", dtype=np.int64))), shape=(%lld, %lld))\n", (long long)m, (long long)n);
        free(col);
        return JG_OK;
    }
    if (!m || !n) {
        fprintf(f, "%s%s = np.zeros((%lld, %lld))\n", var, sfx, (long long)m, (long long)n);
        return JG_OK;
    }
    col = malloc(sizeof(int64_t) * (size_t)n);   /* per column: its next entry */
    if (!col) return jg_error_set(err, JG_NOMEM, "Python output: out of memory for %s", var);
    memcpy(col, S->p, sizeof(int64_t) * (size_t)n);
    fprintf(f, "%s%s = np.array([\n", var, sfx);
    for (int64_t i = 0; i < m; i++) {
        fputs("    [", f);
        for (int64_t j = 0; j < n; j++) {
            if (j) fputs(j % PER_LINE ? ", " : ",\n     ", f);
            double v = 0;
            if (col[j] < S->p[j + 1] && S->i[col[j]] == i) v = S->x[col[j]++];
            put_num(f, v);
        }
        fputs("],\n", f);
    }
    fputs("], dtype=float)\n", f);
    free(col);
    return JG_OK;
}

jg_status_t jg_io_write_linsys_py(FILE *f, const jg_lin_sys_t *s, const jg_io_export_opts_t *o,
                                  jg_error_t *err)
{
    static const char what[] = "Python output";
    static const char *const var[4] = {"A", "B", "C", "D"};
    const char *x;
    cs_dl *S[4] = {NULL};
    int sparse[4], any_sparse = 0;
    jg_status_t st;
    if (!f || !s) return jg_error_set(err, JG_ARG, "%s: no file or no model", what);
    if ((st = jg__io_export_check(s, what, err)) || (st = jg__io_suffix(o, what, &x, err))) return st;
    int mode = o ? (int)o->sparse : JG_IO_SPARSE_AUTO;
    double ts = jg__io_sample_time(s);
    const cs_dl *mats[4] = {s->A, s->B, s->C, s->D};
    for (int k = 0; k < 4; k++) {
        if (!(S[k] = jg__io_sorted(mats[k]))) {
            st = jg_error_set(err, JG_NOMEM, "%s: out of memory for %s", what, var[k]);
            goto done;
        }
        any_sparse |= sparse[k] = jg__io_want_sparse(S[k], mode);
    }

    fputs("# jacgraph linear model", f);
    if (o && o->model) {
        fputs(" of ", f);
        for (const char *c = o->model; *c; c++) fputc((unsigned char)*c < 0x20 ? ' ' : *c, f);
    }
    fprintf(f, " at t = %.17g (%s)\n", s->t, ts > 0 ? "discrete time" : "continuous time");
    fprintf(f, "# %lld states, %lld inputs, %lld outputs; needs NumPy%s, uses python-control "
               "when it imports\n", (long long)s->nx, (long long)s->nu, (long long)s->ny,
            any_sparse ? " and SciPy" : "");
    fputs("import numpy as np\n", f);
    if (any_sparse) fputs("import scipy.sparse\n", f);
    for (int k = 0; k < 4; k++)
        if ((st = put_matrix(f, var[k], x, S[k], sparse[k], err))) goto done;
    fprintf(f, "Ts%s = float(", x);   /* a float even when integral */
    put_num(f, ts);
    fputs(")\n", f);
    put_names(f, "state_names", x, s->state_names, s->nx, 'x');
    put_names(f, "input_names", x, s->input_names, s->nu, 'u');
    put_names(f, "output_names", x, s->output_names, s->ny, 'y');
    /* exact delays: A..D are the delay-free H, its last ndelays inputs w and
     * outputs z the delay channels, w(t) = z(t - internal_delay); python-control
     * has no internal delays, so its object is H and sys stays None */
    const char *ssv = s->ndelays ? "H" : "sys";
    if (s->ndelays) {
        fprintf(f, "# internal delays: the last %lld inputs w and outputs z of A..D close "
                   "through w(t) = z(t - internal_delay)\n", (long long)s->ndelays);
        fprintf(f, "internal_delay%s = np.array([", x);
        for (int64_t k = 0; k < s->ndelays; k++) {
            if (k) fputs(k % PER_LINE ? ", " : ",\n    ", f);
            put_num(f, s->delays[k]);
        }
        fprintf(f, "], dtype=float)\nsys%s = None\n", x);
    }
    /* python-control is optional and wants dense arrays; before 0.9 its ss()
     * took no names */
    fprintf(f, "try:\n"
               "    import control\n"
               "except ImportError:\n"
               "    control = None\n"
               "%s%s = None\n"
               "if control is not None:\n"
               "    _dense = [M.toarray() if hasattr(M, \"toarray\") else M for M in (A%s, B%s, C%s, D%s)]\n"
               "    try:\n"
               "        %s%s = control.ss(*_dense, Ts%s, states=state_names%s, inputs=input_names%s,\n"
               "                           outputs=output_names%s)\n"
               "    except TypeError:\n"
               "        %s%s = control.ss(*_dense, Ts%s)\n",
            ssv, x, x, x, x, x, ssv, x, x, x, x, x, ssv, x, x);
    if (fflush(f) || ferror(f)) st = jg_error_set(err, JG_IO, "%s: write failed", what);
done:
    for (int k = 0; k < 4; k++) cs_dl_spfree(S[k]);
    return st;
}
