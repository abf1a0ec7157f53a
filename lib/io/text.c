/* A linear model as MATLAB ss-style text: labelled dense matrices split into
 * column chunks, or a (row, column) value listing when a matrix is large. */
#include <stdio.h>
#include <string.h>
#include "jacgraph/io.h"
#include "io_impl.h"

#define DENSE_MAX 40    /* a dimension above this switches to the listing */
#define LINE_W 100      /* dense lines are kept within this many characters */
#define INDENT 3
#define COL_MIN 10
#define COL_SEP 2
#define NUM_MAX 40      /* "%.17g" of any double fits */

typedef struct {
    const char *what;        /* "A" .. "D" */
    const cs_dl *M;
    char *const *rn, *const *cn;
    char rpfx, cpfx;         /* for missing names: x3, u1, y2 */
} mat_t;

static const char *label(char *const *names, int64_t k, char pfx, char buf[32])
{
    if (names && names[k]) return names[k];
    snprintf(buf, 32, "%c%lld", pfx, (long long)k + 1);
    return buf;
}

/* Columns a name takes: its code points (UTF-8 continuation bytes add none),
 * so non-ASCII names keep the table aligned. */
static int width(const char *s)
{
    int n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* A name in a table cell, padded to w columns, right-aligned unless `left`.
 * Control characters (the newline of a Simulink block name) show as spaces:
 * a row stays one line.  The JSON and Matrix Market writers keep names exact. */
static void cell(FILE *f, const char *s, int w, int left)
{
    int pad = w - width(s);
    if (!left && pad > 0) fprintf(f, "%*s", pad, "");
    for (; *s; s++) fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
    if (left && pad > 0) fprintf(f, "%*s", pad, "");
}

/* Exact zeros (and -0) print as "0", whatever the precision. */
static int num(char buf[NUM_MAX], double v, int digits)
{
    if (v == 0) return snprintf(buf, NUM_MAX, "0");
    return snprintf(buf, NUM_MAX, "%.*g", digits, v);
}

static int imax(int a, int b) { return a > b ? a : b; }

static void dense(FILE *f, const mat_t *a, int digits)
{
    const cs_dl *M = a->M;
    int64_t m = M->m, n = M->n;
    double X[DENSE_MAX * DENSE_MAX];
    char nb[NUM_MAX], lb[32];
    int rw = 0, cw[DENSE_MAX];

    memset(X, 0, sizeof(double) * (size_t)(m * n));
    for (int64_t j = 0; j < n; j++)
        for (int64_t p = M->p[j]; p < M->p[j + 1]; p++) X[M->i[p] + j * m] += M->x[p];
    for (int64_t i = 0; i < m; i++) rw = imax(rw, width(label(a->rn, i, a->rpfx, lb)));
    for (int64_t j = 0; j < n; j++) {
        cw[j] = imax(COL_MIN, width(label(a->cn, j, a->cpfx, lb)));
        for (int64_t i = 0; i < m; i++) cw[j] = imax(cw[j], num(nb, X[i + j * m], digits));
    }

    fprintf(f, "%s =\n", a->what);
    for (int64_t j0 = 0, j1; j0 < n; j0 = j1) {
        /* one width per chunk, so the chunk reads as a table */
        int w = 0;
        for (j1 = j0; j1 < n; j1++) {
            int nw = imax(w, cw[j1]);
            if (j1 > j0 && INDENT + rw + (j1 - j0 + 1) * (COL_SEP + nw) > LINE_W) break;
            w = nw;
        }
        if (j0 > 0) fputc('\n', f);
        if (j1 - j0 == 1 && n > 1)
            fprintf(f, "  Column %lld:\n", (long long)j0 + 1);
        else if (j1 - j0 < n)
            fprintf(f, "  Columns %lld through %lld:\n", (long long)j0 + 1, (long long)j1);
        fprintf(f, "%*s", INDENT + rw, "");
        for (int64_t j = j0; j < j1; j++)
            cell(f, label(a->cn, j, a->cpfx, lb), COL_SEP + w, 0);
        fputc('\n', f);
        for (int64_t i = 0; i < m; i++) {
            fprintf(f, "%*s", INDENT, "");
            cell(f, label(a->rn, i, a->rpfx, lb), rw, 1);
            for (int64_t j = j0; j < j1; j++) {
                num(nb, X[i + j * m], digits);
                fprintf(f, "%*s", COL_SEP + w, nb);
            }
            fputc('\n', f);
        }
    }
}

static int listing(FILE *f, const mat_t *a, int digits)
{
    cs_dl *S = jg__io_sorted(a->M);
    char nb[NUM_MAX], rb[32], cb[32];
    int pw = 0, vw = 0;
    if (!S) return 0;
    int64_t nz = S->p[S->n];
    fprintf(f, "%s (%lldx%lld, %lld nonzero%s):\n", a->what, (long long)S->m, (long long)S->n,
            (long long)nz, nz == 1 ? "" : "s");
    /* first pass: widths, so positions and values line up */
    for (int pass = 0; pass < 2; pass++)
        for (int64_t j = 0; j < S->n; j++)
            for (int64_t p = S->p[j]; p < S->p[j + 1]; p++) {
                const char *r = label(a->rn, S->i[p], a->rpfx, rb);
                const char *c = label(a->cn, j, a->cpfx, cb);
                int len = width(r) + width(c) + 4;   /* "(r, c)" */
                num(nb, S->x[p], digits);
                if (!pass) {
                    pw = imax(pw, len);
                    vw = imax(vw, (int)strlen(nb));
                } else {
                    fputs("  (", f);
                    cell(f, r, 0, 1);
                    fputs(", ", f);
                    cell(f, c, 0, 1);
                    fprintf(f, ")%*s  %*s\n", pw - len, "", vw, nb);
                }
            }
    cs_dl_spfree(S);
    return 1;
}

jg_status_t jg_io_write_linsys_text(FILE *f, const jg_lin_sys_t *s, int digits, jg_error_t *err)
{
    if (!f || !s) return jg_error_set(err, JG_ARG, "text output: no file or no model");
    if (!jg__io_delays_ok(s))
        return jg_error_set(err, JG_ARG, "text output: %lld delays for %lld inputs and %lld outputs",
                            (long long)s->ndelays, (long long)s->nu, (long long)s->ny);
    if (digits <= 0) digits = 6;
    if (digits > 17) digits = 17;
    const mat_t mats[4] = {
        {"A", s->A, s->state_names, s->state_names, 'x', 'x'},
        {"B", s->B, s->state_names, s->input_names, 'x', 'u'},
        {"C", s->C, s->output_names, s->state_names, 'y', 'x'},
        {"D", s->D, s->output_names, s->input_names, 'y', 'u'},
    };
    const int64_t dims[4][2] = {{s->nx, s->nx}, {s->nx, s->nu}, {s->ny, s->nx}, {s->ny, s->nu}};
    for (int k = 0; k < 4; k++)
        if (!jg__io_shape_ok(mats[k].M, dims[k][0], dims[k][1]))
            return jg_error_set(err, JG_ARG, "text output: matrix %s is missing or not %lldx%lld",
                                mats[k].what, (long long)dims[k][0], (long long)dims[k][1]);

    for (int k = 0; k < 4; k++) {
        const cs_dl *M = mats[k].M;
        if (k) fputc('\n', f);
        if (M->m == 0 || M->n == 0)
            fprintf(f, "%s = [] (%lldx%lld)\n", mats[k].what, (long long)M->m, (long long)M->n);
        else if (M->m > DENSE_MAX || M->n > DENSE_MAX) {
            if (!listing(f, &mats[k], digits))
                return jg_error_set(err, JG_NOMEM, "text output: out of memory listing %s",
                                    mats[k].what);
        } else
            dense(f, &mats[k], digits);
    }
    if (s->Ts > 0) fprintf(f, "\nTs = %.*g (discrete time: x[k+1] = A x[k] + B u[k])\n", digits, s->Ts);
    else fputs("\nTs = 0 (continuous time)\n", f);
    if (s->ndelays > 0) {   /* exact delays: A..D above are the delay-free H */
        fprintf(f, "\ninternal delays: %lld (the last %lld inputs w and outputs z above are delay "
                   "channels, w(t) = z(t - tau))\n", (long long)s->ndelays, (long long)s->ndelays);
        for (int64_t k = 0; k < s->ndelays; k++) {
            const char *nm = s->input_names ? s->input_names[s->nu - s->ndelays + k] : NULL;
            fputs("  ", f);
            for (const char *c = nm ? nm : "?"; *c; c++) fputc(*c == '\n' || *c == '\r' ? ' ' : *c, f);
            fprintf(f, "  tau = %.*g\n", digits, s->delays[k]);
        }
    }
    /* flushed here: a full disk shows up only when the buffer goes out */
    if (fflush(f) || ferror(f)) return jg_error_set(err, JG_IO, "text output: write failed");
    return JG_OK;
}
