/* Numerical perturbation of the whole model: Richardson-extrapolated central
 * differences of [dx; z] = f(x, w) around the operating point, one state or
 * input at a time, with a step chosen per column and an error estimate.
 * Independent of the block Jacobians' values, so it checks them. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lin_impl.h"
#include "../lft/lft_internal.h"

typedef struct {
    jg_lin_t *l;
    const double *y0;   /* the signals at the operating point */
    double *ys;         /* the work's signals (writable) */
    int64_t ny;
} pctx_t;

/* Evaluate [dx; z] at the work's current x and l->wv, each time from the
 * operating point's signals: the nonlinear loop solver starts from them, and a
 * start left by the previous perturbation would put that one's round-off into
 * this one's difference. */
static jg_status_t model_f(pctx_t *c, double *out, jg_error_t *err)
{
    jg_lin_t *l = c->l;
    const jg_program_t *p = l->p;
    const jg_iospec_t *io = l->io;
    memcpy(c->ys, c->y0, sizeof(double) * (size_t)c->ny);
    jg_status_t st = jg_eval_outputs(l->w, l->t, err);
    if (st) return st;
    if ((st = jg_eval_derivatives(l->w, out, err))) return st;
    const double *y = jg_eval_signals(l->w);
    for (int64_t k = 0; k < io->nz; k++) {
        int64_t e = p->nu + k, s = io->src[e];
        double v = s >= 0 ? y[s] : 0.0;
        for (int64_t j = io->inj_ptr[e]; j < io->inj_ptr[e + 1]; j++) v += l->wv[io->inj_idx[j]];
        out[p->nx + k] = v;
    }
    return JG_OK;
}

/* Central difference (f(v + h) - f(v - h)) / 2h into d (no rows). */
static jg_status_t central(pctx_t *c, double *v, double v0, double h, int64_t no, double *fp,
                           double *fm, double *d, jg_error_t *err)
{
    jg_status_t st;
    *v = v0 + h;
    if ((st = model_f(c, fp, err))) goto done;
    *v = v0 - h;
    if ((st = model_f(c, fm, err))) goto done;
    double h2 = (v0 + h) - (v0 - h);   /* the step actually taken */
    for (int64_t i = 0; i < no; i++) d[i] = (fp[i] - fm[i]) / h2;
done:
    *v = v0;
    return st;
}

/* One column at step h: Richardson's extrapolation from d(h) and d(h/3),
 * r = (9 d(h/3) - d(h)) / 8, removes the h^2 term of the central difference;
 * |d(h) - d(h/3)| bounds what is left (the next term, and the round-off, which
 * the two steps do not share: with h/2 a linear model's differences are exact
 * halves of each other, round-off included, and the estimate would see none).
 * Returns the column's relative error estimate max e / max |r|, or INFINITY
 * when the evaluation failed at this step. */
static double column_at(pctx_t *c, double *v, double v0, double h, int64_t no, double *fp,
                        double *fm, double *d1, double *r, double *e, jg_status_t *st,
                        jg_error_t *err)
{
    if ((*st = central(c, v, v0, h, no, fp, fm, d1, err))) return INFINITY;
    if ((*st = central(c, v, v0, h / 3, no, fp, fm, r, err))) return INFINITY;
    double emax = 0, rmax = 0;
    for (int64_t i = 0; i < no; i++) {
        e[i] = fabs(r[i] - d1[i]);
        r[i] += (r[i] - d1[i]) / 8;
        if (!isfinite(r[i]) || !isfinite(e[i])) return INFINITY;
        emax = fmax(emax, e[i]);
        rmax = fmax(rmax, fabs(r[i]));
    }
    return emax == 0 ? 0 : rmax > 0 ? emax / rmax : INFINITY;
}

/* The structural pattern of F: that of the LFT of the block Jacobians'
 * patterns (matrix.c's operands; their values are not read).  Entries outside
 * it do not depend on the perturbed variable at all. */
static cs_dl *structure(jg_lin_t *l)
{
    jg_lftops_t o = {0};
    jg_error_t e;
    jg_error_clear(&e);
    cs_dl *PM = NULL, *DM = NULL, *S = NULL;
    if (jg__lin_matrix_ops(l, &o, &e)) return NULL;
    PM = cs_dl_multiply(o.P12, o.M);
    DM = cs_dl_multiply(o.P22, o.M);
    if (PM && DM) S = jg__lft_pattern(o.P11, PM, o.P21, DM);
    cs_dl_spfree(PM);
    cs_dl_spfree(DM);
    jg__lftops_free(&o);
    return S;
}

jg_status_t jg__lin_perturb(jg_lin_t *l, cs_dl **F, double *errest, jg_error_t *err)
{
    const jg_program_t *p = l->p;
    int64_t nx = p->nx, nw = l->io->nw, no = nx + l->io->nz, ni = nx + nw;
    jg_status_t st = JG_OK;
    size_t vb = sizeof(double) * (size_t)(no + 1);
    double *fp = malloc(vb), *fm = malloc(vb), *d1 = malloc(vb), *r = malloc(vb), *e = malloc(vb);
    double *rb = malloc(vb), *eb = malloc(vb);
    double *y0 = malloc(sizeof(double) * (size_t)(p->ny + 1));
    unsigned char *inpat = malloc((size_t)no + 1);
    cs_dl *T = cs_dl_spalloc(no, ni, 16, 1, 1), *E = cs_dl_spalloc(no, ni, 16, 1, 1);
    cs_dl *S = structure(l);
    double *x = jg_eval_states(l->w);
    pctx_t c = {l, y0, jg__eval_signals_w(l->w), p->ny};
    *F = NULL;
    if (errest) *errest = 0;
    if (!fp || !fm || !d1 || !r || !e || !rb || !eb || !y0 || !inpat || !T || !E || !S) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    memcpy(y0, jg_eval_signals(l->w), sizeof(double) * (size_t)p->ny);
    memset(inpat, 0, (size_t)no + 1);
    const double base = cbrt(DBL_EPSILON);   /* balances h^2 truncation and eps/h round-off */
    for (int64_t j = 0; j < ni; j++) {
        if (S->p[j + 1] == S->p[j]) continue;   /* connected to nothing: exactly zero */
        for (int64_t q = S->p[j]; q < S->p[j + 1]; q++) inpat[S->i[q]] = 1;
        double *v = j < nx ? &x[j] : &l->wv[j - nx];
        double v0 = *v;
        /* the step follows the variable's own scale (a state of 1e-8 is not
         * perturbed by 6e-6); at zero there is none, and the unit is the guess */
        double scale = v0 != 0 ? fabs(v0) : 1.0;
        double h = base * scale;
        double q = column_at(&c, v, v0, h, no, fp, fm, d1, rb, eb, &st, err);
        if (st && st != JG_NUMERIC) goto done;
        /* a poor estimate: truncation (try a smaller step) or round-off (a
         * larger one) dominates; keep the best of the three */
        if (!(q <= 1e-6)) {
            for (int k = 0; k < 2; k++) {
                double hk = k == 0 ? h / 16 : h * 16;
                jg_status_t sk;
                jg_error_t ek;
                jg_error_clear(&ek);
                double qk = column_at(&c, v, v0, hk, no, fp, fm, d1, r, e, &sk, &ek);
                if (sk && sk != JG_NUMERIC) {
                    st = sk;
                    *err = ek;
                    goto done;
                }
                if (qk < q) {
                    q = qk;
                    memcpy(rb, r, vb);
                    memcpy(eb, e, vb);
                    if (st) jg_error_clear(err);
                    st = JG_OK;
                }
            }
        }
        if (st) goto done;   /* no step could be evaluated: the first step's error */
        for (int64_t i = 0; i < no; i++) {
            /* outside the structural pattern only a confident value is kept
             * (a block Jacobian pattern that misses an entry) */
            int keep = inpat[i] ? rb[i] != 0 : fabs(rb[i]) > 0 && eb[i] <= 1e-3 * fabs(rb[i]);
            if (keep && (jg__entry(T, i, j, rb[i]) || jg__entry(E, i, j, eb[i]))) {
                st = jg_error_set(err, JG_NOMEM, "out of memory");
                goto done;
            }
        }
        for (int64_t qq = S->p[j]; qq < S->p[j + 1]; qq++) inpat[S->i[qq]] = 0;
    }
    /* the error estimate per matrix, as jg_lin_sys_diff measures differences */
    double emax[4] = {0}, fmaxm[4] = {0};
    for (int64_t k = 0; k < T->nz; k++) {
        int m = (T->i[k] >= nx) * 2 + (T->p[k] >= nx);   /* A B C D */
        emax[m] = fmax(emax[m], E->x[k]);
        fmaxm[m] = fmax(fmaxm[m], fabs(T->x[k]));
    }
    if (errest)
        for (int m = 0; m < 4; m++) *errest = fmax(*errest, emax[m] / fmax(1.0, fmaxm[m]));
    *F = cs_dl_compress(T);
    if (!*F) st = jg_error_set(err, JG_NOMEM, "out of memory");
done:
    /* leave the work at the operating point again */
    if (!st) {
        if (y0 && c.ys) memcpy(c.ys, y0, sizeof(double) * (size_t)p->ny);
        st = jg_eval_outputs(l->w, l->t, err);
    }
    if (st) *F = cs_dl_spfree(*F);
    free(fp);
    free(fm);
    free(d1);
    free(r);
    free(e);
    free(rb);
    free(eb);
    free(y0);
    free(inpat);
    cs_dl_spfree(T);
    cs_dl_spfree(E);
    cs_dl_spfree(S);
    return st;
}
