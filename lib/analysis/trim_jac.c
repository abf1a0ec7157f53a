/* Trim: the Jacobian of the residual equations at a point -- the graph
 * method's A, B, C, D for the continuous equations and outputs in x and u,
 * and for everything that involves discrete states the blocks' analytic
 * update Jacobians joined through the signal connections:
 *     signals      y = Cx x + Cd xd + Dy uu,   block inputs  uu = M y + W u
 *     updates      xd+ = Ad xd + Bd uu,        outputs       z = Mz y
 * (the hybrid model, lin_internal.h), the residual being xd+ - xd.  With
 * G = I - Dy M, a discrete state's column is dy = G^-1 Cd e_j pushed through
 * Bx M, Mz and Ad - I + Bd M; an update equation's row is lambda' Cx in x and
 * (lambda' Dy + Bd_i) W in u with G' lambda = M' Bd_i' (one adjoint solve per
 * row instead of one forward solve per x and u column).  Forward differences
 * only for the discrete states of types without djacobian (JG__TRIM_FD_*). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "trim_impl.h"

static void put_csc(jg__trim_prob_t *P, const cs_dl *M, const int64_t *rows, int64_t var0)
{
    for (int64_t j = 0; j < M->n; j++) {
        int64_t c = P->col[var0 + j];
        if (c < 0) continue;
        for (int64_t q = M->p[j]; q < M->p[j + 1]; q++) {
            int64_t r = rows[M->i[q]];
            if (r >= 0) P->J[r + P->m * c] = M->x[q];
        }
    }
}

/* y += A' x (x over A's rows, y over its columns). */
static void gatxpy(const cs_dl *A, const double *x, double *y)
{
    for (int64_t j = 0; j < A->n; j++) {
        double acc = 0;
        for (int64_t q = A->p[j]; q < A->p[j + 1]; q++) acc += A->x[q] * x[A->i[q]];
        y[j] += acc;
    }
}

static void zero(double *x, int64_t n) { memset(x, 0, sizeof(double) * (size_t)n); }

/* G x = b in place (P G Q = L U; s scratch of n). */
static void lu_solve(const cs_dls *S, const cs_dln *N, double *b, double *s, int64_t n)
{
    cs_dl_ipvec(N->pinv, b, s, n);
    cs_dl_lsolve(N->L, s);
    cs_dl_usolve(N->U, s);
    cs_dl_ipvec(S->q, s, b, n);
}

/* G' x = b in place: G' = Q U' L' P. */
static void lu_tsolve(const cs_dls *S, const cs_dln *N, double *b, double *s, int64_t n)
{
    cs_dl_pvec(S->q, b, s, n);
    cs_dl_utsolve(N->U, s);
    cs_dl_ltsolve(N->L, s);
    cs_dl_pvec(N->pinv, s, b, n);
}

/* The entries involving the analytic discrete states (the work at the
 * point): their columns in every row, and the rows of their update
 * equations in the x and u columns. */
static jg_status_t analytic_discrete(jg__trim_prob_t *P, jg_error_t *err)
{
    jg_analysis_trim_t *t = P->t;
    jg__lin_hybrid_t *h = NULL;
    cs_dl *Id = NULL, *DM = NULL, *G = NULL;
    cs_dls *S = NULL;
    cs_dln *N = NULL;
    double *buf = NULL;
    int64_t *var = NULL;
    jg_status_t st = jg__lin_hybrid_ex(t->l, JG__LIN_HYBRID_PARTIAL, &h, err);
    if (st) return st;
    int64_t ny = h->ny, nu = h->nu, nd = h->nd, nx = t->nx, nz = h->nz, nw = h->nw, m = P->m;
    int64_t iu = t->nx + t->nd;
    if (nz != t->ny || nw != t->nu || h->nx != nx) {
        st = jg_error_set(err, JG_INTERNAL, "trim: hybrid model of %lld states, %lld inputs, %lld outputs",
                          (long long)h->nx, (long long)nw, (long long)nz);
        goto done;
    }
    /* per state of the hybrid model: its discrete variable, -1 held by trim
     * (Memory and other non-discrete types at a discrete rate) */
    var = malloc(sizeof(int64_t) * (size_t)(nd + 1));
    if (!var) goto nomem;
    int any = 0;
    for (int64_t j = 0; j < nd; j++) {
        var[j] = t->d_var[h->d_at[j]];
        if (var[j] >= 0 && (P->col[t->nx + var[j]] >= 0 || P->rowd[var[j]] >= 0)) any = 1;
    }
    if (!any) goto done;
    /* G = I - Dy M over the signals, factored once for all solves */
    if (!(Id = cs_dl_spalloc(ny, ny, ny + 1, 1, 0))) goto nomem;
    for (int64_t k = 0; k < ny; k++) Id->p[k] = Id->i[k] = k, Id->x[k] = 1;
    Id->p[ny] = ny;
    if (!(DM = cs_dl_multiply(h->Dy, h->M)) || !(G = cs_dl_add(Id, DM, 1, -1))) goto nomem;
    if (ny > 0) {
        if (!(S = cs_dl_sqr(1, G, 0))) goto nomem;
        if (!(N = cs_dl_lu(G, S, 1.0))) {
            st = jg_error_set(err, JG_SINGULAR_LOOP,
                              "trim: singular algebraic loop among the signals (I - D M) at the point");
            goto done;
        }
    }
    /* y, s (ny); uu, g (nu); dx (nx); z (nz); dd (nd); gx (nx); gw (nw) */
    size_t need = (size_t)(2 * ny + 2 * nu + 2 * nx + nz + nd + nw) + 1;
    if (!(buf = malloc(sizeof(double) * need))) goto nomem;
    double *y = buf, *s = y + ny, *uu = s + ny, *g = uu + nu, *dx = g + nu, *z = dx + nx, *dd = z + nz;
    double *gx = dd + nd, *gw = gx + nx;
    /* forward: the columns of the free analytic discrete states */
    for (int64_t j = 0; j < nd; j++) {
        int64_t c = var[j] >= 0 ? P->col[t->nx + var[j]] : -1;
        if (c < 0) continue;
        double *Jc = P->J + m * c;
        zero(y, ny), zero(uu, nu), zero(dx, nx), zero(z, nz), zero(dd, nd);
        for (int64_t q = h->Cd->p[j]; q < h->Cd->p[j + 1]; q++) y[h->Cd->i[q]] = h->Cd->x[q];
        if (ny) lu_solve(S, N, y, s, ny);
        cs_dl_gaxpy(h->M, y, uu);
        cs_dl_gaxpy(h->Bx, uu, dx);
        cs_dl_gaxpy(h->Mz, y, z);
        cs_dl_gaxpy(h->Bd, uu, dd);
        for (int64_t q = h->Ad->p[j]; q < h->Ad->p[j + 1]; q++) dd[h->Ad->i[q]] += h->Ad->x[q];
        dd[j] -= 1;   /* the residual is F(xd) - xd */
        for (int64_t i = 0; i < nx; i++)
            if (P->rowx[i] >= 0) Jc[P->rowx[i]] = dx[i];
        for (int64_t k = 0; k < nz; k++)
            if (P->rowy[k] >= 0) Jc[P->rowy[k]] = z[k];
        for (int64_t i = 0; i < nd; i++)
            if (var[i] >= 0 && P->rowd[var[i]] >= 0) Jc[P->rowd[var[i]]] = dd[i];
    }
    /* adjoint: the rows of the analytic update equations in x and u; Bd's
     * row i gathered from its columns (Bd is small: nd rows) */
    for (int64_t i = 0; i < nd; i++) {
        int64_t e = var[i] >= 0 ? P->rowd[var[i]] : -1;
        if (e < 0) continue;
        zero(g, nu), zero(y, ny), zero(uu, nu), zero(gx, nx), zero(gw, nw);
        for (int64_t k = 0; k < nu; k++)
            for (int64_t q = h->Bd->p[k]; q < h->Bd->p[k + 1]; q++)
                if (h->Bd->i[q] == i) g[k] += h->Bd->x[q];
        gatxpy(h->M, g, y);        /* y = M' Bd_i' */
        if (ny) lu_tsolve(S, N, y, s, ny);   /* lambda */
        gatxpy(h->Cx, y, gx);      /* lambda' Cx */
        gatxpy(h->Dy, y, uu);      /* lambda' Dy ... */
        for (int64_t k = 0; k < nu; k++) uu[k] += g[k];   /* ... + Bd_i */
        gatxpy(h->W, uu, gw);      /* ... times W */
        for (int64_t k = 0; k < nx; k++)
            if (P->col[k] >= 0) P->J[e + m * P->col[k]] = gx[k];
        for (int64_t k = 0; k < nw; k++)
            if (P->col[iu + k] >= 0) P->J[e + m * P->col[iu + k]] = gw[k];
    }
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory");
done:
    cs_dl_spfree(Id);
    cs_dl_spfree(DM);
    cs_dl_spfree(G);
    cs_dl_sfree(S);
    cs_dl_nfree(N);
    free(buf);
    free(var);
    jg__lin_hybrid_free(h);
    return st;
}

jg_status_t jg__trim_jacobian(jg__trim_prob_t *P, double *v, const double *r, jg_error_t *err)
{
    jg_analysis_trim_t *t = P->t;
    const jg__trim_spec_t *s = &t->spec;
    jg_lin_sys_t *S = NULL;
    int64_t iu = t->nx + t->nd;
    memset(P->J, 0, sizeof(double) * (size_t)(P->m * P->n));
    jg_status_t st = jg_lin_run(t->l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &S, NULL, err);
    if (st) return st;
    if (S->nx != t->nx || S->nu != t->nu || S->ny != t->ny) {
        st = jg_error_set(err, JG_INTERNAL, "trim: linear model of %lldx%lldx%lld for %lldx%lldx%lld",
                          (long long)S->nx, (long long)S->nu, (long long)S->ny, (long long)t->nx,
                          (long long)t->nu, (long long)t->ny);
        goto done;
    }
    /* a bound on an output acts only while the output is outside it */
    for (int64_t e = 0; e < P->m; e++)
        if (t->eq[e].kind == JG__TRIM_EQ_Y || t->eq[e].kind == JG__TRIM_EQ_YBOUND)
            P->rowy[t->eq[e].idx] = t->eq[e].kind == JG__TRIM_EQ_Y || r[e] != 0 ? e : -1;
    put_csc(P, S->A, P->rowx, 0);
    put_csc(P, S->C, P->rowy, 0);
    put_csc(P, S->B, P->rowx, iu);
    put_csc(P, S->D, P->rowy, iu);
    if (t->nd && (st = analytic_discrete(P, err))) goto done;
    /* the fallback: a discrete state of a type without djacobian */
    int rows = 0, differenced = 0;
    for (int64_t e = 0; e < P->m; e++)
        rows |= t->eq[e].kind == JG__TRIM_EQ_DD && t->d_fd[t->eq[e].idx] == JG__TRIM_FD_ROWS;
    for (int64_t c = 0; c < P->n; c++) {
        int64_t i = P->unk[c];
        int column = i >= t->nx && i < iu && t->d_fd[i - t->nx];
        if (!column && !rows) continue;
        /* the forward difference stays inside the bounds */
        double h = sqrt(DBL_EPSILON) * fmax(1.0, fabs(v[i]));
        if (v[i] + h > s->hi[i]) h = -h;
        memcpy(P->vp, v, sizeof(double) * (size_t)t->nv);
        P->vp[i] = v[i] + h;
        h = P->vp[i] - v[i];   /* the step as represented */
        if ((st = jg__trim_eval(t, P->vp, P->rp, err))) goto done;
        t->info.fevals++;
        t->info.fd_columns++;
        differenced = 1;
        for (int64_t e = 0; e < P->m; e++)
            if (column || (t->eq[e].kind == JG__TRIM_EQ_DD && t->d_fd[t->eq[e].idx] == JG__TRIM_FD_ROWS))
                P->J[e + P->m * c] = (P->rp[e] - r[e]) / h;
    }
    /* the work back at v, as the caller left it */
    if (differenced) st = jg__trim_eval(t, v, NULL, err);
done:
    jg_lin_sys_free(S);
    return st;
}
