/* F = P11 + P12 M (I - P22 M)^-1 P21 with CXSparse products and LU; the sparse solves in columns.c. */
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include "jacgraph/lft.h"
#include "lft_internal.h"

size_t jg_lft_csc_bytes(const cs_dl *A)
{
    if (!A) return 0;
    return sizeof(cs_dl) + sizeof(cs_long_t) * (size_t)(A->n + 1) +
           (sizeof(cs_long_t) + sizeof(double)) * (size_t)A->nzmax;
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
    return jg__lft_threads(P11, P12, P21, P22, M, F, info, 1, 0, err);
}

jg_status_t jg__lft_threads(const cs_dl *P11, const cs_dl *P12, const cs_dl *P21, const cs_dl *P22,
                            const cs_dl *M, cs_dl **F, jg_lft_info_t *info, int threads,
                            int64_t min_work, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    cs_long_t no = P11->m, ni = P11->n, ny = P21->m;
    cs_dl *PM = NULL, *DM = NULL, *Id = NULL, *K = NULL;
    cs_dls *S = NULL;
    cs_dln *N = NULL;
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
    st = jg__lft_columns(P11, P21, pm, N, S, threads, min_work, F, err);
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
    return st;
}
