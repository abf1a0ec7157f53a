/* Invariant projection (Simulink, "mdlProjection"): see project.h for the
 * method and the tolerance rule.
 *
 * J = dg/dX is kept as one m x nx compressed-column matrix whose columns are
 * the states: each block's invariants involve only its own states, so block
 * k's dg/dx is a contiguous slice of J's values and the blocks fill J in
 * place (dg[k] is a view).  J J^T is then
 *   dense  (m <= p->proj_dense_max, 20 by default): formed column by column into an m x m array and
 *          factored by LAPACKE dpotrf once per step, solved by dpotrs per
 *          iteration (dposv split in two, since the iteration reuses the
 *          factor);
 *   sparse (m > that): CHOLMOD -- cholmod_l_analyze of the unsymmetric
 *          J orders J J^T once, cholmod_l_factorize factors J J^T each step,
 *          cholmod_l_solve2 reuses its workspace.
 * dX = J^T lambda is a loop over J's columns (hand-written: one pass, no
 * temporaries). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cholmod.h>
#include <lapacke.h>
#include "project.h"
#include "solver_impl.h"
#include "../compile/program_impl.h"

enum { DENSE_MAX = 20 };   /* the default of p->proj_dense_max */

struct jg__proj {
    const jg_program_t *p;
    int32_t nb, *blk;           /* blocks with invariants, in state order */
    int64_t m, n;               /* invariants, states */
    int64_t *goff;              /* per listed block: its first row of J */
    cs_dl *dg;                  /* per listed block: a view of its slice of J */
    int64_t *Jp, *Ji;           /* J, m x n compressed column */
    double *Jx;
    double *g, *r, *dx, *x0, *A;
    int sparse;
    cholmod_common cm;
    int cm_started;
    cholmod_sparse *cJ;         /* sparse path: J (owns Jp, Ji, Jx) */
    cholmod_factor *L;
    cholmod_dense *cB, *cX, *cY, *cE;
    double worst;               /* largest correction norm beyond 1 of the last apply, 0 */
    char last_rejected[256];
    int nretry;                 /* consecutive retries of the current step */
    jg__proj_stats_t st;
};

void jg__proj_free(jg__proj_t *P)
{
    if (!P) return;
    if (P->cm_started) {
        cholmod_l_free_dense(&P->cB, &P->cm);
        cholmod_l_free_dense(&P->cX, &P->cm);
        cholmod_l_free_dense(&P->cY, &P->cm);
        cholmod_l_free_dense(&P->cE, &P->cm);
        cholmod_l_free_factor(&P->L, &P->cm);
        cholmod_l_free_sparse(&P->cJ, &P->cm);
        cholmod_l_finish(&P->cm);
    } else {
        free(P->Jp);
        free(P->Ji);
        free(P->Jx);
    }
    free(P->blk);
    free(P->goff);
    free(P->dg);
    free(P->g);
    free(P->r);
    free(P->dx);
    free(P->x0);
    free(P->A);
    free(P);
}

jg_status_t jg__proj_create(const jg_program_t *p, jg__proj_t **out, jg_error_t *err)
{
    *out = NULL;
    int32_t nb = 0;
    int64_t m = 0, nnz = 0;
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (jg_block_ninv(B) <= 0 || !B->type->invariants || !jg_block_inv_pat(B)) continue;
        nb++;
        m += jg_block_ninv(B);
        nnz += jg_block_inv_pat(B)->p[B->nx];
    }
    if (!nb) return JG_OK;
    jg__proj_t *P = calloc(1, sizeof *P);
    if (!P) return jg_error_set(err, JG_NOMEM, "out of memory");
    P->p = p;
    P->m = m;
    P->n = p->nx;
    P->sparse = m > (p->proj_dense_max > 0 ? p->proj_dense_max : DENSE_MAX);
    P->blk = malloc(sizeof(int32_t) * (size_t)nb);
    P->goff = malloc(sizeof(int64_t) * (size_t)nb);
    P->dg = calloc((size_t)nb, sizeof(cs_dl));
    P->g = malloc(sizeof(double) * (size_t)m);
    P->r = malloc(sizeof(double) * (size_t)m);
    P->dx = malloc(sizeof(double) * (size_t)(P->n + 1));
    P->x0 = malloc(sizeof(double) * (size_t)(P->n + 1));
    if (!P->sparse) P->A = malloc(sizeof(double) * (size_t)(m * m));
    if (!P->blk || !P->goff || !P->dg || !P->g || !P->r || !P->dx || !P->x0 || (!P->sparse && !P->A))
        goto nomem;
    if (P->sparse) {
        cholmod_l_start(&P->cm);
        P->cm_started = 1;
        P->cm.print = 0;   /* the library never prints: failures come back as statuses */
        P->cJ = cholmod_l_allocate_sparse((size_t)m, (size_t)P->n, (size_t)nnz, 1, 1, 0, CHOLMOD_REAL, &P->cm);
        P->cB = cholmod_l_allocate_dense((size_t)m, 1, (size_t)m, CHOLMOD_REAL, &P->cm);
        if (!P->cJ || !P->cB) goto nomem;
        P->Jp = P->cJ->p;
        P->Ji = P->cJ->i;
        P->Jx = P->cJ->x;
    } else {
        P->Jp = calloc((size_t)P->n + 1, sizeof(int64_t));
        P->Ji = malloc(sizeof(int64_t) * (size_t)(nnz + 1));
        P->Jx = calloc((size_t)nnz + 1, sizeof(double));
        if (!P->Jp || !P->Ji || !P->Jx) goto nomem;
    }
    /* J's pattern: block by block in state order, rows shifted by goff */
    int64_t row = 0, k = 0;
    int64_t col = 0;
    P->Jp[0] = 0;
    for (int32_t b = 0; b < p->nblocks; b++) {
        const jg_block_t *B = &p->blocks[b];
        if (jg_block_ninv(B) <= 0 || !B->type->invariants || !jg_block_inv_pat(B)) continue;
        for (; col < B->x_off; col++) P->Jp[col + 1] = k;   /* states without invariants */
        const cs_dl *Q = jg_block_inv_pat(B);
        P->blk[P->nb] = b;
        P->goff[P->nb] = row;
        P->dg[P->nb] = (cs_dl){.nzmax = Q->p[B->nx], .m = Q->m, .n = Q->n, .p = Q->p, .i = Q->i,
                               .x = P->Jx + k, .nz = -1};
        for (int64_t j = 0; j < B->nx; j++, col++) {
            for (int64_t t = Q->p[j]; t < Q->p[j + 1]; t++) P->Ji[k++] = Q->i[t] + row;
            P->Jp[col + 1] = k;
        }
        row += jg_block_ninv(B);
        P->nb++;
    }
    for (; col < P->n; col++) P->Jp[col + 1] = k;
    if (P->sparse) {
        /* symbolic analysis once: unsymmetric J (stype 0) means J J^T */
        P->L = cholmod_l_analyze(P->cJ, &P->cm);
        if (!P->L) {
            jg_status_t st = P->cm.status == CHOLMOD_OUT_OF_MEMORY
                                 ? jg_error_set(err, JG_NOMEM, "out of memory")
                                 : jg_error_set(err, JG_NUMERIC,
                                                "projection: CHOLMOD analysis of J J^T (%lld invariants) "
                                                "failed with status %d",
                                                (long long)m, P->cm.status);
            jg__proj_free(P);
            return st;
        }
    }
    P->st.ninv = m;
    P->st.sparse = P->sparse;
    P->st.first_rejected_t = NAN;
    *out = P;
    return JG_OK;
nomem:
    jg__proj_free(P);
    return jg_error_set(err, JG_NOMEM, "out of memory");
}

/* g (and J when want_j) of every projected block at (t, x). */
static jg_status_t eval_g(jg__proj_t *P, double t, const double *x, const double *xd, int want_j,
                          jg_error_t *err)
{
    for (int32_t k = 0; k < P->nb; k++) {
        const jg_block_t *B = &P->p->blocks[P->blk[k]];
        jg_eval_t e;
        memset(&e, 0, sizeof e);
        e.t = t;
        e.x = x + B->x_off;
        e.xd = xd ? xd + jg_block_d_off(B) : NULL;
        e.err = err;
        e.sim = 1;
        e.major = 1;
        if (B->type->invariants(B, &e, P->g + P->goff[k], want_j ? &P->dg[k] : NULL))
            return err && err->status ? err->status : JG_NUMERIC;
    }
    return JG_OK;
}

static double max_abs(const double *v, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++) m = fmax(m, fabs(v[i]));   /* fmax drops NaN: checked apart */
    return m;
}

static int all_finite(const double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* Factor J J^T; 0, or 1 when it is not positive definite (J rank deficient). */
static int factor(jg__proj_t *P)
{
    const int64_t m = P->m;
    if (P->sparse) {
        if (!cholmod_l_factorize(P->cJ, P->L, &P->cm)) return 1;
        return P->cm.status != CHOLMOD_OK || P->L->minor < P->L->n;
    }
    double *A = P->A;
    memset(A, 0, sizeof(double) * (size_t)(m * m));
    for (int64_t c = 0; c < P->n; c++)
        for (int64_t a = P->Jp[c]; a < P->Jp[c + 1]; a++)
            for (int64_t b = P->Jp[c]; b < P->Jp[c + 1]; b++)
                A[P->Ji[a] + P->Ji[b] * m] += P->Jx[a] * P->Jx[b];
    return LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)m, A, (lapack_int)m) != 0;
}

/* dx = J^T (J J^T)^-1 r with the factor of factor(). */
static int solve(jg__proj_t *P)
{
    const int64_t m = P->m;
    const double *lam;
    if (P->sparse) {
        memcpy(P->cB->x, P->r, sizeof(double) * (size_t)m);
        if (!cholmod_l_solve2(CHOLMOD_A, P->L, P->cB, NULL, &P->cX, NULL, &P->cY, &P->cE, &P->cm))
            return 1;
        lam = P->cX->x;
    } else {
        if (LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', (lapack_int)m, 1, P->A, (lapack_int)m, P->r,
                           (lapack_int)m))
            return 1;
        lam = P->r;
    }
    for (int64_t c = 0; c < P->n; c++) {
        double s = 0;
        for (int64_t a = P->Jp[c]; a < P->Jp[c + 1]; a++) s += P->Jx[a] * lam[P->Ji[a]];
        P->dx[c] = s;
    }
    return 0;
}

jg_status_t jg__proj_residual(jg__proj_t *P, double t, const double *x, double *g, jg_error_t *err)
{
    jg_status_t st = eval_g(P, t, x, NULL, 0, err);
    if (!st) memcpy(g, P->g, sizeof(double) * (size_t)P->m);
    return st;
}

jg_status_t jg__proj_apply(jg__proj_t *P, double t, double *x, const double *xd, double rtol,
                           double atol, int *changed, jg_error_t *err)
{
    const int64_t m = P->m, n = P->n;
    jg_status_t st;
    *changed = 0;
    P->worst = 0;
    P->st.steps++;
    memcpy(P->x0, x, sizeof(double) * (size_t)n);
    if ((st = eval_g(P, t, x, xd, 1, err))) return st;
    if (!all_finite(P->g, m) || !all_finite(P->Jx, P->Jp[n])) {
        P->st.failed++;
        return JG_OK;
    }
    double before = max_abs(P->g, m);
    P->st.max_before = fmax(P->st.max_before, before);
    if (before == 0) return JG_OK;
    /* Newton on g(X) = 0 with minimal-norm steps: the first correction is the
     * mdlProjection's formula (J at X*); each further one, with J at the new point,
     * squares the remaining error, so the loop stops once a correction is
     * below 1e-8 relative to the state (what is left is then round-off).
     * Keeping J at X* instead converges only linearly, at a rate of the
     * correction's size times g's curvature: too slow for the corrections
     * near the tolerance that fast parts of an orbit need. */
    for (int it = 0; it < 4; it++) {
        if (it && (st = eval_g(P, t, x, xd, 1, err))) {
            memcpy(x, P->x0, sizeof(double) * (size_t)n);
            return st;
        }
        if (factor(P)) {
            memcpy(x, P->x0, sizeof(double) * (size_t)n);
            P->st.failed++;
            return JG_OK;
        }
        for (int64_t i = 0; i < m; i++) P->r[i] = -P->g[i];
        if (solve(P)) {
            memcpy(x, P->x0, sizeof(double) * (size_t)n);
            P->st.failed++;
            return JG_OK;
        }
        double rel = 0;
        for (int64_t c = 0; c < n; c++) {
            x[c] += P->dx[c];
            rel = fmax(rel, fabs(P->dx[c]) / (fabs(x[c]) + atol));
        }
        P->st.iterations++;
        if (rel > 1e-8 && it < 3) continue;
        if ((st = eval_g(P, t, x, xd, 0, err))) {   /* the residual left, for the check below */
            memcpy(x, P->x0, sizeof(double) * (size_t)n);
            return st;
        }
        break;
    }
    /* keep a block's correction only within the solver's error tolerance */
    double after = 0;
    for (int32_t k = 0; k < P->nb; k++) {
        const jg_block_t *B = &P->p->blocks[P->blk[k]];
        double *xb = x + B->x_off;
        const double *x0 = P->x0 + B->x_off;
        double sum = 0;
        int moved = 0;
        for (int64_t i = 0; i < B->nx; i++) {
            double d = xb[i] - x0[i], w = atol + rtol * fmax(fabs(x0[i]), fabs(xb[i]));
            sum += (d / w) * (d / w);
            moved |= d != 0;
        }
        double norm = sqrt(sum / (double)B->nx);
        const double *gb = P->g + P->goff[k];
        if (!(norm <= 1) || !all_finite(gb, jg_block_ninv(B))) {
            memcpy(xb, x0, sizeof(double) * (size_t)B->nx);
            P->st.rejected++;
            P->worst = isfinite(norm) ? fmax(P->worst, norm) : INFINITY;
            snprintf(P->last_rejected, sizeof P->last_rejected,
                     "block '%s': correction norm %.3g > 1 at t = %.17g", B->path, norm, t);
            continue;
        }
        after = fmax(after, max_abs(gb, jg_block_ninv(B)));
        if (moved) {
            *changed = 1;
            P->st.max_norm = fmax(P->st.max_norm, norm);
        }
    }
    P->st.max_after = fmax(P->st.max_after, after);
    if (*changed) P->st.applied++;
    return JG_OK;
}

void jg__proj_get_stats(const jg__proj_t *P, jg__proj_stats_t *st) { *st = P->st; }

jg_status_t jg__proj_step(jg__proj_t *P, jg_solver_t *s, double tprev, const double *xprev, double t,
                          double *x, const double *xd, int *changed, int *retry, jg_error_t *err)
{
    *retry = 0;
    jg_status_t st = jg__proj_apply(P, t, x, xd, s->rtol, s->atol, changed, err);
    if (st || P->worst == 0) {
        P->nretry = 0;
        return st;
    }
    /* a correction beyond the tolerance: the step was less accurate than the
     * solver's estimate said.  A variable-step method that takes its next
     * step from s->h (the explicit pairs; ode23s, error order 2) retries it
     * like a failed error test, with h * clamp(0.8 norm^(-1/k), 0.2, 0.8), k
     * the order of its error estimate + 1; otherwise (fixed step, ode15s --
     * CVODE restarts its history at every reset --, 10 retries in a row, a
     * step at the time resolution) the correction stays undone and is
     * reported. */
    double h = s->hlast;
    double k = s->ops->ctl ? s->ops->ctl->k : 0;
    if (!s->fixed && k > 0 && P->nretry < 10 && isfinite(P->worst)) {
        double hn = h * fmin(0.8, fmax(0.2, 0.8 * pow(P->worst, -1.0 / k)));
        if (hn > 16 * DBL_EPSILON * fmax(fabs(tprev), 1e-300)) {
            if ((st = jg_solver_reset(s, tprev, xprev, err))) return st;
            s->h = hn;
            s->stats.steps--;      /* the step is undone: count it as a rejected attempt */
            s->stats.rejected++;
            P->nretry++;
            P->st.retried++;
            *retry = 1;
            return JG_OK;
        }
    }
    P->nretry = 0;
    if (!P->st.not_applied++) {
        P->st.first_rejected_t = t;
        snprintf(P->st.first_rejected, sizeof P->st.first_rejected, "%s", P->last_rejected);
    }
    return JG_OK;
}

jg_status_t jg__proj_reset_solver(jg_solver_t *s, double t, const double *x, jg_error_t *err)
{
    double h = s->h, errold = s->errold;
    jg_status_t st = jg_solver_reset(s, t, x, err);
    if (!st && !s->fixed && h > 0) {
        s->h = h;
        s->errold = errold;
    }
    return st;
}
