/* jg_lin_sys_t: splitting the LFT result into A, B, C, D with names; comparing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lin_impl.h"
#include "../core/str.h"

void jg_lin_sys_free(jg_lin_sys_t *s)
{
    if (!s) return;
    if (!s->names_shared) {
        jg__strv_free(s->state_names, s->nx);
        jg__strv_free(s->input_names, s->nu);
        jg__strv_free(s->output_names, s->ny);
    }
    cs_dl_spfree(s->A);
    cs_dl_spfree(s->B);
    cs_dl_spfree(s->C);
    cs_dl_spfree(s->D);
    free(s->delays);
    free(s);
}

/* F ((nx + nz) x (nx + nw)) split into A = F(0:nx, 0:nx), B = F(0:nx, nx:),
 * C = F(nx:, 0:nx), D = F(nx:, nx:), entries in F's order: one pass to
 * count, one to copy (the four blocks of a column range side by side).
 * s->A..D NULL when out of memory. */
static void split(const cs_dl *F, int64_t nx, int64_t nw, int64_t nz, jg_lin_sys_t *s)
{
    int64_t cnt[4] = {0, 0, 0, 0};   /* A, B, C, D */
    for (int64_t j = 0; j < nx + nw; j++) {
        int h = j < nx ? 0 : 1;
        for (int64_t k = F->p[j]; k < F->p[j + 1]; k++) cnt[h + 2 * (F->i[k] >= nx)]++;
    }
    cs_dl **M[4] = {&s->A, &s->B, &s->C, &s->D};
    for (int q = 0; q < 4; q++)
        *M[q] = cs_dl_spalloc(q < 2 ? nx : nz, q % 2 ? nw : nx, cnt[q] + 1, 1, 0);
    if (!s->A || !s->B || !s->C || !s->D) return;
    int64_t at[4] = {0, 0, 0, 0};
    for (int64_t j = 0; j < nx + nw; j++) {
        int h = j < nx ? 0 : 1;
        int64_t jj = h ? j - nx : j;
        cs_dl *U = *M[h], *L = *M[h + 2];
        U->p[jj] = at[h];
        L->p[jj] = at[h + 2];
        for (int64_t k = F->p[j]; k < F->p[j + 1]; k++) {
            int64_t i = F->i[k];
            if (i < nx) {
                U->i[at[h]] = i;
                U->x[at[h]++] = F->x[k];
            } else {
                L->i[at[h + 2]] = i - nx;
                L->x[at[h + 2]++] = F->x[k];
            }
        }
    }
    for (int q = 0; q < 4; q++) (*M[q])->p[(*M[q])->n] = at[q];
}

/* s's names for l: the program's state names, the I/O points'. */
static void make_names(const jg_lin_t *l, jg_lin_sys_t *s)
{
    const jg_program_t *p = l->p;
    s->state_names = calloc((size_t)s->nx + 1, sizeof(char *));
    if (s->state_names)
        for (int64_t k = 0; k < s->nx; k++) {
            s->state_names[k] = jg__strdup(jg_program_state_name(p, k));
            if (!s->state_names[k]) break;
        }
    s->input_names = jg__strv_dup(l->io->w_name, s->nu, "?");
    s->output_names = jg__strv_dup(l->io->z_name, s->ny, "?");
}

static int names_ok(const jg_lin_sys_t *s)
{
    int ok = s->state_names && s->input_names && s->output_names;
    for (int64_t k = 0; ok && k < s->nx; k++) ok = s->state_names[k] != NULL;
    return ok;
}

jg_status_t jg__lin_names(const jg_lin_t *l, jg_lin_sys_t **out, jg_error_t *err)
{
    jg_lin_sys_t *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s) return jg_error_set(err, JG_NOMEM, "out of memory");
    s->nx = l->p->nx;
    s->nu = l->io->nw;
    s->ny = l->io->nz;
    make_names(l, s);
    if (!names_ok(s)) {
        jg_lin_sys_free(s);
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    *out = s;
    return JG_OK;
}

void jg__lin_share_names(jg_lin_t *l, const jg_lin_sys_t *names) { l->names = names; }

jg_status_t jg__lin_sys_from(const jg_lin_t *l, const cs_dl *F, jg_lin_sys_t **out, jg_error_t *err)
{
    const jg_program_t *p = l->p;
    int64_t nx = p->nx, nw = l->io->nw, nz = l->io->nz;
    jg_lin_sys_t *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s) return jg_error_set(err, JG_NOMEM, "out of memory");
    s->nx = nx;
    s->nu = nw;
    s->ny = nz;
    s->t = l->t;
    split(F, nx, nw, nz, s);
    const jg_lin_sys_t *nm = l->names;
    if (nm && !l->ncut && nm->nx == nx && nm->nu == nw && nm->ny == nz) {   /* a batch's */
        s->state_names = nm->state_names;
        s->input_names = nm->input_names;
        s->output_names = nm->output_names;
        s->names_shared = 1;
    } else {
        make_names(l, s);
    }
    int ok = s->A && s->B && s->C && s->D && names_ok(s);
    if (!ok) {
        jg_lin_sys_free(s);
        return jg_error_set(err, JG_NOMEM, "out of memory");
    }
    if (l->ncut) {   /* TransportDelays cut: exact delays or Pade closure */
        jg_status_t st = jg__lin_delays_apply(l, &s, err);
        if (st) {
            jg_lin_sys_free(s);
            return st;
        }
    }
    *out = s;
    return JG_OK;
}

static double maxabs(const cs_dl *A)
{
    double m = 0;
    for (int64_t k = 0; k < A->p[A->n]; k++) {
        if (isnan(A->x[k])) return NAN;   /* a NaN is a difference, never agreement */
        m = fmax(m, fabs(A->x[k]));
    }
    return m;
}

/* The sum of column j's entries of A in row i. */
static double entry(const cs_dl *A, int64_t j, int64_t i)
{
    double v = 0;
    for (int64_t k = A->p[j]; k < A->p[j + 1]; k++)
        if (A->i[k] == i) v += A->x[k];
    return v;
}

/* 1 when row i occurs in column j of A among the entries before position end. */
static int seen_before(const cs_dl *A, int64_t j, int64_t i, int64_t end)
{
    for (int64_t k = A->p[j]; k < end; k++)
        if (A->i[k] == i) return 1;
    return 0;
}

/* max |a - b| without allocating, column by column (quadratic in the
 * entries of a column): the answer when memory for a - b cannot be had, so
 * that running out of memory is never reported as a difference. */
static double maxabs_diff_inplace(const cs_dl *a, const cs_dl *b)
{
    double m = 0;
    for (int64_t j = 0; j < a->n; j++) {
        for (int64_t k = a->p[j]; k < a->p[j + 1]; k++) {
            if (seen_before(a, j, a->i[k], k)) continue;
            double d = entry(a, j, a->i[k]) - entry(b, j, a->i[k]);
            if (isnan(d)) return NAN;
            m = fmax(m, fabs(d));
        }
        for (int64_t k = b->p[j]; k < b->p[j + 1]; k++) {
            if (seen_before(b, j, b->i[k], k) || seen_before(a, j, b->i[k], a->p[j + 1])) continue;
            double d = entry(b, j, b->i[k]);
            if (isnan(d)) return NAN;
            m = fmax(m, fabs(d));
        }
    }
    return m;
}

/* max |a - b| / max(1, max |b|) for one matrix; infinity on shape mismatch. */
static double mdiff(const cs_dl *a, const cs_dl *b)
{
    if (a->m != b->m || a->n != b->n) return INFINITY;
    cs_dl *d = cs_dl_add(a, b, 1.0, -1.0);
    double r = (d ? maxabs(d) : maxabs_diff_inplace(a, b)) / fmax(1.0, maxabs(b));
    cs_dl_spfree(d);
    return r;
}

double jg_lin_sys_diff(const jg_lin_sys_t *a, const jg_lin_sys_t *b, const char **which)
{
    const cs_dl *ma[4] = {a->A, a->B, a->C, a->D}, *mb[4] = {b->A, b->B, b->C, b->D};
    static const char *const names[4] = {"A", "B", "C", "D"};
    double worst = -1;
    for (int k = 0; k < 4; k++) {
        double d = mdiff(ma[k], mb[k]);
        if (!(d <= worst)) {   /* NaN counts as worst */
            worst = d;
            if (which) *which = names[k];
        }
    }
    return worst;
}
