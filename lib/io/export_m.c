/* A linear model as a MATLAB/Octave script building sys = ss(A, B, C, D, Ts)
 * with its state, input and output names (exact delays: H = ss(...) and
 * sys = setDelayModel(H, InternalDelay)); large sparse matrices as
 * sparse(i, j, v, m, n). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/io.h"
#include "export_impl.h"
#include "io_impl.h"

#define PER_LINE 8   /* numbers per line before a "..." continuation */

static void put_num(FILE *f, double v)
{
    if (isnan(v)) fputs("NaN", f);
    else if (isinf(v)) fputs(v > 0 ? "Inf" : "-Inf", f);
    else fprintf(f, "%.17g", v);
}

/* A char row vector equal to s: quotes doubled inside '...'; a control
 * character cannot stand in a literal, so it is spliced in as char(N). */
static void put_str(FILE *f, const char *s)
{
    int ctl = 0;
    for (const char *c = s; *c; c++) ctl |= (unsigned char)*c < 0x20 || *c == 0x7F;
    if (!ctl) {
        fputc('\'', f);
        for (; *s; s++) {
            if (*s == '\'') fputc('\'', f);
            fputc(*s, f);
        }
        fputc('\'', f);
        return;
    }
    fputc('[', f);
    int open = 0, first = 1;   /* inside a '...' run */
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7F) {
            if (open) fputc('\'', f);
            fprintf(f, "%schar(%u)", first ? "" : " ", c);
            open = 0;
        } else {
            if (!open) fputs(first ? "'" : " '", f);
            open = 1;
            if (c == '\'') fputs("''", f);
            else fputc(c, f);
        }
        first = 0;
    }
    if (open) fputc('\'', f);
    fputc(']', f);
}

static void put_names(FILE *f, const char *var, const char *sfx, char *const *v, int64_t n, char pfx)
{
    char buf[32];
    if (!n) {
        fprintf(f, "%s%s = cell(0, 1);\n", var, sfx);
        return;
    }
    fprintf(f, "%s%s = {", var, sfx);
    for (int64_t k = 0; k < n; k++) {
        if (k) fputs(k % PER_LINE ? "; " : "; ...\n    ", f);
        put_str(f, jg__io_name(v, k, pfx, buf));
    }
    fputs("};\n", f);
}

/* "[a, b, ...]" with a continuation every PER_LINE entries. */
static void put_vec(FILE *f, const int64_t *iv, const double *xv, int64_t n, int64_t add)
{
    fputc('[', f);
    for (int64_t k = 0; k < n; k++) {
        if (k) fputs(k % PER_LINE ? ", " : ", ...\n    ", f);
        if (iv) fprintf(f, "%lld", (long long)(iv[k] + add));
        else put_num(f, xv[k]);
    }
    fputc(']', f);
}

static jg_status_t put_matrix(FILE *f, const char *var, const char *sfx, const cs_dl *M, int mode,
                              jg_error_t *err)
{
    cs_dl *S = jg__io_sorted(M);
    int64_t *col = NULL;
    jg_status_t st = JG_OK;
    if (!S) return jg_error_set(err, JG_NOMEM, "MATLAB output: out of memory for %s", var);
    int64_t m = S->m, n = S->n, nz = S->p[n];
    if (jg__io_want_sparse(S, mode)) {
        if (!nz) {
            fprintf(f, "%s%s = sparse(%lld, %lld);\n", var, sfx, (long long)m, (long long)n);
            goto done;
        }
        col = malloc(sizeof(int64_t) * (size_t)nz);
        if (!col) {
            st = jg_error_set(err, JG_NOMEM, "MATLAB output: out of memory for %s", var);
            goto done;
        }
        for (int64_t j = 0; j < n; j++)
            for (int64_t p = S->p[j]; p < S->p[j + 1]; p++) col[p] = j;
        fprintf(f, "%s%s = sparse(", var, sfx);
        put_vec(f, S->i, NULL, nz, 1);
        fputs(", ...\n    ", f);
        put_vec(f, col, NULL, nz, 1);
        fputs(", ...\n    ", f);
        put_vec(f, NULL, S->x, nz, 0);
        fprintf(f, ", %lld, %lld);\n", (long long)m, (long long)n);
        goto done;
    }
    if (!m || !n) {
        fprintf(f, "%s%s = zeros(%lld, %lld);\n", var, sfx, (long long)m, (long long)n);
        goto done;
    }
    /* dense, row by row: walk each column's sorted entries with a cursor */
    col = malloc(sizeof(int64_t) * (size_t)n);
    if (!col) {
        st = jg_error_set(err, JG_NOMEM, "MATLAB output: out of memory for %s", var);
        goto done;
    }
    memcpy(col, S->p, sizeof(int64_t) * (size_t)n);
    fprintf(f, "%s%s = [\n", var, sfx);
    for (int64_t i = 0; i < m; i++) {
        fputs("    ", f);
        for (int64_t j = 0; j < n; j++) {
            if (j) fputs(j % PER_LINE ? ", " : ", ...\n    ", f);
            double v = 0;
            if (col[j] < S->p[j + 1] && S->i[col[j]] == i) v = S->x[col[j]++];
            put_num(f, v);
        }
        fputs(i + 1 < m ? ";\n" : "\n", f);
    }
    fputs("];\n", f);
done:
    free(col);
    cs_dl_spfree(S);
    return st;
}

jg_status_t jg_io_write_linsys_m(FILE *f, const jg_lin_sys_t *s, const jg_io_export_opts_t *o,
                                 jg_error_t *err)
{
    static const char what[] = "MATLAB output";
    const char *x;
    jg_status_t st;
    if (!f || !s) return jg_error_set(err, JG_ARG, "%s: no file or no model", what);
    if ((st = jg__io_export_check(s, what, err)) || (st = jg__io_suffix(o, what, &x, err))) return st;
    int mode = o ? (int)o->sparse : JG_IO_SPARSE_AUTO;
    double ts = jg__io_sample_time(s);

    fputs("% jacgraph linear model", f);
    if (o && o->model) {
        /* a comment ends at a line break: keep the model name on one line */
        fputs(" of ", f);
        for (const char *c = o->model; *c; c++) fputc((unsigned char)*c < 0x20 ? ' ' : *c, f);
    }
    fprintf(f, " at t = %.17g (%s)\n", s->t, ts > 0 ? "discrete time" : "continuous time");
    fprintf(f, "%% %lld states, %lld inputs, %lld outputs; MATLAB, or Octave with the control "
               "package\n", (long long)s->nx, (long long)s->nu, (long long)s->ny);
    const cs_dl *mats[4] = {s->A, s->B, s->C, s->D};
    static const char *const var[4] = {"A", "B", "C", "D"};
    for (int k = 0; k < 4; k++)
        if ((st = put_matrix(f, var[k], x, mats[k], mode, err))) return st;
    fprintf(f, "Ts%s = ", x);
    put_num(f, ts);
    fputs(";\n", f);
    put_names(f, "StateName", x, s->state_names, s->nx, 'x');
    put_names(f, "InputName", x, s->input_names, s->nu, 'u');
    put_names(f, "OutputName", x, s->output_names, s->ny, 'y');
    /* exact delays: sys is the delay-free H closed through the delays by
     * setDelayModel (the last ndelays inputs/outputs are the delay channels) */
    const char *ssv = s->ndelays ? "H" : "sys";
    if (s->ndelays) {
        fprintf(f, "InternalDelay%s = ", x);
        put_vec(f, NULL, s->delays, s->ndelays, 0);
        fputs("';\n", f);
    }
    /* Octave keeps ss() in the control package; MATLAB has no pkg (the
     * branch is never taken there).  ss() wants dense matrices. */
    fputs("if exist('OCTAVE_VERSION', 'builtin')\n"
          "  try, pkg load control; catch, end\n"
          "end\n", f);
    /* a model with neither inputs nor outputs is beyond Octave's ss(): the
     * matrices above are still there, and sys is [] with a warning */
    fprintf(f, "if exist('ss')\n"
               "  try\n"
               "    %s%s = ss(full(A%s), full(B%s), full(C%s), full(D%s), Ts%s, ...\n"
               "      'StateName', StateName%s, 'InputName', InputName%s, 'OutputName', OutputName%s);\n"
               "  catch err\n"
               "    warning('jacgraph:ss', 'ss() failed (%%s): %s%s not created', err.message);\n"
               "    %s%s = [];\n"
               "  end\n"
               "else\n"
               "  warning('jacgraph:noss', 'ss() not found (Control System Toolbox, or the Octave "
               "control package): %s%s not created');\n"
               "  %s%s = [];\n"
               "end\n", ssv, x, x, x, x, x, x, x, x, x, ssv, x, ssv, x, ssv, x, ssv, x);
    /* Octave's control package has no internal delays: H and the delays stay */
    if (s->ndelays)
        fprintf(f, "if exist('setDelayModel') && ~isempty(H%s)\n"
                   "  sys%s = setDelayModel(H%s, InternalDelay%s);\n"
                   "else\n"
                   "  warning('jacgraph:nodelay', 'setDelayModel() not found (MATLAB''s Control "
                   "System Toolbox has it): sys%s not created; H%s (delay-free, the last %lld inputs "
                   "and outputs the delay channels) and InternalDelay%s hold the model');\n"
                   "  sys%s = [];\n"
                   "end\n", x, x, x, x, x, x, (long long)s->ndelays, x, x);
    if (fflush(f) || ferror(f)) return jg_error_set(err, JG_IO, "%s: write failed", what);
    return JG_OK;
}
