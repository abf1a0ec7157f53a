/* The condition of I - P22 M loop by loop: Hager's 1-norm estimate on each
 * equilibrated diagonal block of its block triangular form. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lft_internal.h"

/* Why per diagonal block: I - P22 M is block triangular up to a permutation,
 * one diagonal block per strongly connected component (an algebraic loop, or
 * a single signal).  The blocks between them are the paths of the diagram; a
 * chain of gains 1e6 gives a 1-norm condition of 1e12 on the whole matrix
 * although the solution is a product of exact gains.  What can lose digits is
 * solving each loop, so each diagonal block gets its own estimate, after
 * scaling its rows and columns by powers of two (exact) so that the units of
 * the signals in it do not count. */

/* x <- B^-1 x (trans 0) or B^-T x (trans 1) with L U = B(pinv, q). */
static void lu_solve(const cs_dls *S, const cs_dln *N, int trans, double *x, double *t,
                     cs_long_t n)
{
    if (!trans) {
        cs_dl_ipvec(N->pinv, x, t, n);
        cs_dl_lsolve(N->L, t);
        cs_dl_usolve(N->U, t);
        cs_dl_ipvec(S->q, t, x, n);
    } else {
        cs_dl_pvec(S->q, x, t, n);
        cs_dl_utsolve(N->U, t);
        cs_dl_ltsolve(N->L, t);
        cs_dl_pvec(N->pinv, t, x, n);
    }
}

static double norm1_vec(const double *x, cs_long_t n)
{
    double s = 0;
    for (cs_long_t i = 0; i < n; i++) s += fabs(x[i]);
    return s;
}

/* Hager's estimate of |B^-1|_1 (Higham, "FORTRAN codes for estimating the
 * one-norm of a real or complex matrix", as LAPACK's dlacn2: at most five
 * steps, then the alternating test vector).  x, y, t have n entries. */
static double inv_norm1(const cs_dls *S, const cs_dln *N, cs_long_t n, double *x, double *y,
                        double *t)
{
    for (cs_long_t i = 0; i < n; i++) x[i] = 1.0 / (double)n;
    lu_solve(S, N, 0, x, t, n);
    double est = norm1_vec(x, n);
    cs_long_t jprev = 0;
    if (n > 1) {
        for (int it = 0; it < 5; it++) {
            for (cs_long_t i = 0; i < n; i++) y[i] = x[i] >= 0 ? 1.0 : -1.0;   /* sign(B^-1 x) */
            memcpy(t, y, sizeof(double) * (size_t)n);
            lu_solve(S, N, 1, y, t, n);   /* z = B^-T sign */
            cs_long_t j = 0;
            for (cs_long_t i = 1; i < n; i++)
                if (fabs(y[i]) > fabs(y[j])) j = i;
            if (it > 0 && fabs(y[j]) <= y[jprev]) break;   /* z' x: x was e_jprev */
            jprev = j;
            memset(x, 0, sizeof(double) * (size_t)n);
            x[j] = 1;
            lu_solve(S, N, 0, x, t, n);
            double e = norm1_vec(x, n);
            if (!(e > est)) break;   /* no progress (or NaN): stop */
            est = e;
        }
        for (cs_long_t i = 0; i < n; i++)
            x[i] = (i % 2 ? -1.0 : 1.0) * (1.0 + (double)i / (double)(n - 1));
        lu_solve(S, N, 0, x, t, n);
        est = fmax(est, 2.0 * norm1_vec(x, n) / (3.0 * (double)n));
    }
    return est;
}

/* Power of two nearest 1/sqrt(m) (m > 0), 1 for m == 0. */
static double pow2_rsqrt(double m)
{
    if (!(m > 0) || !isfinite(m)) return 1;
    int e;
    frexp(m, &e);   /* m in [2^(e-1), 2^e) */
    return ldexp(1.0, -(e / 2));
}

/* Condition of one diagonal block (columns and rows idx[0..n-1] of K; pos
 * maps K's rows to block rows, -1 elsewhere), equilibrated. */
static double block_cond(const cs_dl *K, const cs_long_t *idx, cs_long_t n, cs_long_t *pos,
                         double *w)
{
    double cond = INFINITY;
    cs_long_t nz = 0;
    for (cs_long_t k = 0; k < n; k++) pos[idx[k]] = k;
    for (cs_long_t k = 0; k < n; k++)
        for (cs_long_t q = K->p[idx[k]]; q < K->p[idx[k] + 1]; q++) nz += pos[K->i[q]] >= 0;
    cs_dl *B = cs_dl_spalloc(n, n, nz + 1, 1, 0);
    cs_dls *S = NULL;
    cs_dln *N = NULL;
    if (!B) goto done;
    nz = 0;
    for (cs_long_t k = 0; k < n; k++) {
        B->p[k] = nz;
        for (cs_long_t q = K->p[idx[k]]; q < K->p[idx[k] + 1]; q++)
            if (pos[K->i[q]] >= 0) {
                B->i[nz] = pos[K->i[q]];
                B->x[nz++] = K->x[q];
            }
    }
    B->p[n] = nz;
    /* Ruiz's equilibration in powers of two: rows, then columns, a few times */
    double *r = w;
    for (int pass = 0, moved = 1; pass < 4 && moved; pass++) {
        for (cs_long_t i = 0; i < n; i++) r[i] = 0;
        for (cs_long_t q = 0; q < nz; q++) r[B->i[q]] = fmax(r[B->i[q]], fabs(B->x[q]));
        moved = 0;   /* rows and columns of magnitude 1 to 4 stay as they are */
        for (cs_long_t i = 0; i < n; i++) {
            r[i] = r[i] >= 1 && r[i] < 4 ? 1 : pow2_rsqrt(r[i]);
            moved |= r[i] != 1;
        }
        for (cs_long_t j = 0; j < n; j++) {
            double m = 0;
            for (cs_long_t q = B->p[j]; q < B->p[j + 1]; q++) {
                B->x[q] *= r[B->i[q]];
                m = fmax(m, fabs(B->x[q]));
            }
            double s = m >= 1 && m < 4 ? 1 : pow2_rsqrt(m);
            moved |= s != 1;
            if (s != 1)
                for (cs_long_t q = B->p[j]; q < B->p[j + 1]; q++) B->x[q] *= s;
        }
    }
    double bn = cs_dl_norm(B);
    S = cs_dl_sqr(0, B, 0);   /* natural order: AMD cost as much as the LU of the whole matrix */
    N = S ? cs_dl_lu(B, S, 1.0) : NULL;
    if (!N) goto done;   /* singular (exactly): infinite condition */
    cond = bn * inv_norm1(S, N, n, w, w + n, w + 2 * n);
    if (!isfinite(cond)) cond = INFINITY;
done:
    for (cs_long_t k = 0; k < n; k++) pos[idx[k]] = -1;
    cs_dl_nfree(N);
    cs_dl_sfree(S);
    cs_dl_spfree(B);
    return cond;
}

/* The condition of a lone signal with diagonal entry k = 1 - d. */
static double single_cond(const cs_dl *K, cs_long_t i0)
{
    double k = 0;
    for (cs_long_t q = K->p[i0]; q < K->p[i0 + 1]; q++)
        if (K->i[q] == i0) k += K->x[q];
    double c = k == 1 ? 1 : fmax(1.0, fabs(1.0 - k)) / fabs(k);
    return isfinite(c) ? c : INFINITY;
}

/* 1 when K's graph (off-diagonal entries) has no cycle: Kahn's peeling, which
 * costs two passes over the entries against the allocations and two
 * depth-first searches of cs_scc; most diagrams have no algebraic loop.
 * -1 when out of memory. */
static int acyclic(const cs_dl *K)
{
    cs_long_t n = K->n, *indeg = calloc((size_t)n + 1, sizeof(cs_long_t)), *queue = NULL;
    int r = -1;
    if (!indeg) return -1;
    for (cs_long_t j = 0; j < n; j++)
        for (cs_long_t q = K->p[j]; q < K->p[j + 1]; q++) indeg[K->i[q]] += K->i[q] != j;
    queue = malloc(sizeof(cs_long_t) * ((size_t)n + 1));
    if (!queue) goto done;
    cs_long_t head = 0, tail = 0;
    for (cs_long_t i = 0; i < n; i++)
        if (!indeg[i]) queue[tail++] = i;
    while (head < tail) {
        cs_long_t j = queue[head++];
        for (cs_long_t q = K->p[j]; q < K->p[j + 1]; q++)
            if (K->i[q] != j && !--indeg[K->i[q]]) queue[tail++] = K->i[q];
    }
    r = tail == n;
done:
    free(indeg);
    free(queue);
    return r;
}

double jg__lft_condest(const cs_dl *K, int64_t *worst)
{
    cs_long_t n = K->n;
    double cond = 1;
    if (worst) *worst = -1;
    if (n == 0) return 1;
    int ac = acyclic(K);
    if (ac < 0) return NAN;
    if (ac) {   /* every signal its own block */
        for (cs_long_t i = 0; i < n; i++) {
            double c = single_cond(K, i);
            if (c > cond) {
                cond = c;
                if (worst) *worst = i;
            }
        }
        return cond;
    }
    cs_dld *D = cs_dl_scc((cs_dl *)K);   /* reads K only */
    cs_long_t *pos = malloc(sizeof(cs_long_t) * (size_t)n);
    double *w = NULL;
    cs_long_t big = 0;
    if (!D || !pos) goto nomem;
    for (cs_long_t b = 0; b < D->nb; b++)
        if (D->r[b + 1] - D->r[b] > big) big = D->r[b + 1] - D->r[b];
    w = malloc(sizeof(double) * (size_t)(3 * big + 1));
    if (!w) goto nomem;
    for (cs_long_t i = 0; i < n; i++) pos[i] = -1;
    for (cs_long_t b = 0; b < D->nb; b++) {
        cs_long_t m = D->r[b + 1] - D->r[b], i0 = D->p[D->r[b]];
        double c;
        if (m == 1) {
            /* one signal: its pivot 1 - d, conditioned as max(1, |d|) / |1 - d| */
            c = single_cond(K, i0);
        } else {
            c = block_cond(K, D->p + D->r[b], m, pos, w);
        }
        if (c > cond || (worst && *worst < 0 && c == INFINITY)) {
            cond = c;
            if (worst) *worst = i0;
        }
    }
    goto done;
nomem:
    cond = NAN;   /* out of memory: unknown */
done:
    cs_dl_dfree(D);
    free(pos);
    free(w);
    return cond;
}
