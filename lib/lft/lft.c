/* F = P11 + P12 M (I - P22 M)^-1 P21 with CXSparse products, LU and sparse solves. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "jacgraph/lft.h"
#include "lft_internal.h"

size_t jg_lft_csc_bytes(const cs_dl *A)
{
    if (!A) return 0;
    return sizeof(cs_dl) + sizeof(cs_long_t) * (size_t)(A->n + 1) +
           (sizeof(cs_long_t) + sizeof(double)) * (size_t)A->nzmax;
}

/* Sort the n distinct row indices a[] (all below 2^(8 passes)) ascending:
 * insertion for a few, else least-significant-digit radix through tmp (n
 * entries), byte by byte: no comparison calls, the same order as qsort. */
static void sort_rows(cs_long_t *a, cs_long_t n, cs_long_t *tmp, int passes)
{
    if (n <= 24) {
        for (cs_long_t k = 1; k < n; k++) {
            cs_long_t x = a[k], j = k;
            for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    cs_long_t *src = a, *dst = tmp;
    for (int d = 0; d < passes; d++) {
        cs_long_t cnt[257] = {0};
        int sh = 8 * d;
        for (cs_long_t k = 0; k < n; k++) cnt[((src[k] >> sh) & 255) + 1]++;
        for (int b = 0; b < 256; b++) cnt[b + 1] += cnt[b];
        for (cs_long_t k = 0; k < n; k++) dst[cnt[(src[k] >> sh) & 255]++] = src[k];
        cs_long_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, sizeof *a * (size_t)n);
}

/* CSparse's cs_spsolve(G, B, 0, xi, x, NULL, lo) for the sparse column b
 * (bi, bx, bn entries) and a triangular G with its diagonal first (lo) or
 * last in each column: the same depth-first reach, in the same order, and
 * the same operations on x, so the same bits.  The visited nodes are marked
 * in mark[] (== stamp) instead of by flipping G->p, which spares the pass
 * that restores G->p and the flips' branches (the DFS is most of an LFT);
 * 32-bit marks, half the cache lines of the DFS's random reads.
 * xi: 2 n entries (the output xi[top..n) and the recursion stack, then the
 * positions); returns top. */
static cs_long_t spsolve(const cs_dl *G, const cs_long_t *bi, const double *bx, cs_long_t bn,
                         cs_long_t *xi, double *x, uint32_t *mark, uint32_t stamp, int lo)
{
    const cs_long_t n = G->n, *Gp = G->p, *Gi = G->i;
    const double *Gx = G->x;
    cs_long_t *pstack = xi + n, top = n;
    for (cs_long_t b = 0; b < bn; b++) {
        if (mark[bi[b]] == stamp) continue;
        cs_long_t head = 0;   /* cs_dfs from bi[b] */
        xi[0] = bi[b];
        while (head >= 0) {
            cs_long_t j = xi[head];
            if (mark[j] != stamp) {
                mark[j] = stamp;
                pstack[head] = Gp[j];
            }
            int done = 1;
            cs_long_t p2 = Gp[j + 1];
            for (cs_long_t p = pstack[head]; p < p2; p++) {
                cs_long_t i = Gi[p];
                if (mark[i] == stamp) continue;
                pstack[head] = p;
                xi[++head] = i;
                done = 0;
                break;
            }
            if (done) {
                head--;
                xi[--top] = j;
            }
        }
    }
    for (cs_long_t p = top; p < n; p++) x[xi[p]] = 0;
    for (cs_long_t b = 0; b < bn; b++) x[bi[b]] = bx[b];
    for (cs_long_t px = top; px < n; px++) {
        cs_long_t j = xi[px];
        x[j] /= Gx[lo ? Gp[j] : Gp[j + 1] - 1];
        cs_long_t p = lo ? Gp[j] + 1 : Gp[j], q = lo ? Gp[j + 1] : Gp[j + 1] - 1;
        for (; p < q; p++) x[Gi[p]] -= Gx[p] * x[j];
    }
    return top;
}

static cs_dl *identity(cs_long_t n)
{
    cs_dl *E = cs_dl_spalloc(n, n, n, 1, 0);   /* not "I": complex.h via cs.h */
    if (!E) return NULL;
    for (cs_long_t k = 0; k < n; k++) {
        E->p[k] = k;
        E->i[k] = k;
        E->x[k] = 1;
    }
    E->p[n] = n;
    return E;
}

jg_status_t jg_lft(const cs_dl *P11, const cs_dl *P12, const cs_dl *P21, const cs_dl *P22,
                   const cs_dl *M, cs_dl **F, jg_lft_info_t *info, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    cs_long_t no = P11->m, ni = P11->n, ny = P21->m;
    cs_dl *PM = NULL, *DM = NULL, *Id = NULL, *K = NULL, *R = NULL, *Y = NULL;
    cs_dls *S = NULL;
    cs_dln *N = NULL;
    double *x = NULL, *z = NULL, *acc = NULL;
    cs_long_t *xi = NULL, *mark = NULL, *touched = NULL;
    uint32_t *vis = NULL, stamp = 0;   /* spsolve's marks: visited when == stamp */
    *F = NULL;
    if (info) *info = (jg_lft_info_t){.n = ny, .nnz_lu = 0, .rcond = 1, .cond = 1, .cond_row = -1};
    cs_long_t nu = M ? M->m : ny;
    if (P12->m != no || P12->n != nu || P21->n != ni || P22->m != ny || P22->n != nu ||
        (M && M->n != ny))
        return jg_error_set(err, JG_ARG, "lft: inconsistent operand sizes");
    if (M) {
        PM = cs_dl_multiply(P12, M);
        DM = cs_dl_multiply(P22, M);
        if (!PM || !DM) goto nomem;
    }
    const cs_dl *pm = M ? PM : P12, *dm = M ? DM : P22;
    if (ny > 0) {
        /* I - P22 M is block triangular up to the algebraic loops; AMD on A+A'
         * keeps the fill of its LU at the loops */
        Id = identity(ny);
        if (!Id) goto nomem;
        K = cs_dl_add(Id, dm, 1.0, -1.0);
        if (!K) goto nomem;
        S = cs_dl_sqr(1, K, 0);
        if (!S) goto nomem;
        N = cs_dl_lu(K, S, 1.0);   /* partial pivoting; NULL on a zero pivot */
        if (!N) {
            /* CSparse says NULL for a zero pivot and for a failed allocation
             * alike: a singular verdict only when it repeats and the factors'
             * memory can be had, else out of memory */
            N = cs_dl_lu(K, S, 1.0);
            if (!N) {
                size_t need = sizeof(double) * (size_t)(S->lnz + S->unz + 4 * ny + 4);
                void *probe = malloc(need);
                free(probe);
                st = probe ? jg_error_set(err, JG_SINGULAR_LOOP, "I - D*M is singular")
                           : jg_error_set(err, JG_NOMEM, "out of memory in the LU factorization of I - D*M");
                goto done;
            }
        }
        /* an overflow in the factors (gains of 1e200 in series) is not a
         * singularity: say so */
        for (cs_long_t q = 0; q < N->U->p[ny]; q++)
            if (!isfinite(N->U->x[q])) {
                st = jg_error_set(err, JG_NUMERIC,
                                  "the LU factors of I - D*M overflowed (NaN or Inf): the "
                                  "products of the gains along the signal paths exceed the "
                                  "double range");
                goto done;
            }
        /* U keeps its diagonal last in each column.  Each pivot is compared
         * with the largest entry of its own column of K: a ratio of pivots
         * across columns would call a well-conditioned but badly scaled
         * system singular (a gain of 3e7 between two algebraic blocks gives
         * pivots 3e7 and 3e-8 with det 1). */
        double rcond = INFINITY;
        for (cs_long_t k = 0; k < ny; k++) {
            cs_long_t j = S->q ? S->q[k] : k;
            double cmax = 0;
            for (cs_long_t q = K->p[j]; q < K->p[j + 1]; q++) cmax = fmax(cmax, fabs(K->x[q]));
            double d = fabs(N->U->x[N->U->p[k + 1] - 1]);
            rcond = fmin(rcond, cmax > 0 ? d / cmax : 0);
        }
        if (ny == 0) rcond = 1;
        if (info) {
            info->rcond = rcond;
            info->nnz_lu = N->L->p[ny] + N->U->p[ny];
            info->lu_fma = jg__lft_lu_fma(N);
        }
        if (!(rcond > 1e-14)) {
            st = jg_error_set(err, JG_SINGULAR_LOOP,
                              "I - D*M is singular to working precision (smallest pivot %.3g of its column)", rcond);
            goto done;
        }
        if (info) info->cond = jg__lft_condest(K, &info->cond_row);
    }
    x = malloc(sizeof(double) * (size_t)(ny + 1));
    z = malloc(sizeof(double) * (size_t)(ny + 1));
    xi = malloc(sizeof(cs_long_t) * (size_t)(2 * ny + 1));
    vis = calloc((size_t)ny + 1, sizeof *vis);
    Y = cs_dl_spalloc(ny, 1, ny + 1, 1, 0);
    acc = calloc((size_t)no + 1, sizeof(double));
    mark = malloc(sizeof(cs_long_t) * (size_t)(no + 1));
    touched = malloc(sizeof(cs_long_t) * (size_t)(2 * no + 1));   /* and sort_rows' room */
    R = cs_dl_spalloc(no, ni, P11->nzmax + ni + 1, 1, 0);
    if (!x || !z || !xi || !vis || !Y || !acc || !mark || !touched || !R) goto nomem;
    for (cs_long_t i = 0; i < no; i++) mark[i] = -1;
    int passes = 1;   /* bytes of the largest row index */
    while (passes < 8 && (no - 1) >> (8 * passes)) passes++;
    cs_long_t nz = 0;
    /* column j of F: scatter into acc, remembering the rows touched so the
     * gather costs the column's nonzeros, not the row count */
#define ACC(row, v)                          \
    do {                                     \
        cs_long_t r_ = (row);                \
        if (mark[r_] != j) {                 \
            mark[r_] = j;                    \
            touched[nt++] = r_;              \
        }                                    \
        acc[r_] += (v);                      \
    } while (0)
    for (cs_long_t j = 0; j < ni; j++) {
        cs_long_t nt = 0;
        for (cs_long_t k = P11->p[j]; k < P11->p[j + 1]; k++) ACC(P11->i[k], P11->x[k]);
        if (ny > 0 && P21->p[j + 1] > P21->p[j]) {
            /* sparse right-hand side: each triangular solve costs the reach of
             * P21(:,j) (the signals it influences), not the order of K */
            /* L U = K(pinv, q): solve L y = b(pinv), U w = y, x(q) = w.  (After
             * cs_lu, L's rows are already permuted: permute b, pass no pinv.) */
            Y->p[0] = 0;
            cs_long_t blen = 0;
            for (cs_long_t k = P21->p[j]; k < P21->p[j + 1]; k++) {
                Y->i[blen] = N->pinv[P21->i[k]];
                Y->x[blen++] = P21->x[k];
            }
            Y->p[1] = blen;
            if (stamp >= UINT32_MAX - 2) {   /* the stamps wrap: clear the marks */
                memset(vis, 0, sizeof *vis * (size_t)ny);
                stamp = 0;
            }
            cs_long_t top = spsolve(N->L, Y->i, Y->x, blen, xi, x, vis, ++stamp, 1);
            cs_long_t ylen = 0;
            for (cs_long_t q = top; q < ny; q++) {
                Y->i[ylen] = xi[q];
                Y->x[ylen++] = x[xi[q]];
            }
            Y->p[1] = ylen;
            cs_long_t top2 = spsolve(N->U, Y->i, Y->x, ylen, xi, z, vis, ++stamp, 0);
            for (cs_long_t q = top2; q < ny; q++) {
                cs_long_t k = xi[q];
                double v = z[k];
                if (v == 0) continue;
                cs_long_t c = S->q ? S->q[k] : k;
                for (cs_long_t t = pm->p[c]; t < pm->p[c + 1]; t++) ACC(pm->i[t], pm->x[t] * v);
            }
        }
#undef ACC
        sort_rows(touched, nt, touched + no, passes);
        R->p[j] = nz;
        if (nz + nt > R->nzmax && !cs_dl_sprealloc(R, 2 * R->nzmax + nt)) goto nomem;
        for (cs_long_t t = 0; t < nt; t++) {
            cs_long_t i = touched[t];
            if (acc[i] != 0) {
                R->i[nz] = i;
                R->x[nz++] = acc[i];
            }
            acc[i] = 0;
        }
    }
    R->p[ni] = nz;
    *F = R;
    R = NULL;
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory in the LFT");
done:
    cs_dl_nfree(N);
    cs_dl_sfree(S);
    cs_dl_spfree(PM);
    cs_dl_spfree(DM);
    cs_dl_spfree(Id);
    cs_dl_spfree(K);
    cs_dl_spfree(R);
    cs_dl_spfree(Y);
    free(x);
    free(z);
    free(xi);
    free(vis);
    free(acc);
    free(mark);
    free(touched);
    return st;
}
