/* F = P11 + P12 M (I - P22 M)^-1 P21 with CXSparse products and a KLU solve. */
#include <stdlib.h>
#include <string.h>
#include <klu.h>
#include "jacgraph/lft.h"

size_t jg_csc_bytes(const cs_dl *A)
{
    if (!A) return 0;
    return sizeof(cs_dl) + sizeof(cs_long_t) * (size_t)(A->n + 1) +
           (sizeof(cs_long_t) + sizeof(double)) * (size_t)A->nzmax;
}

/* Sorted row indices (KLU wants no duplicates; sorting by double transpose
 * also sums nothing, cs_add already merged duplicates). */
static cs_dl *sorted(const cs_dl *A)
{
    cs_dl *T = cs_dl_transpose(A, 1);
    if (!T) return NULL;
    cs_dl *B = cs_dl_transpose(T, 1);
    cs_dl_spfree(T);
    return B;
}

static int cmp_long(const void *a, const void *b)
{
    cs_long_t x = *(const cs_long_t *)a, y = *(const cs_long_t *)b;
    return (x > y) - (x < y);
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
    cs_dl *PM = NULL, *DM = NULL, *Id = NULL, *K0 = NULL, *K = NULL, *R = NULL;
    klu_l_symbolic *sym = NULL;
    klu_l_numeric *num = NULL;
    klu_l_common kc;
    double *b = NULL, *acc = NULL;
    cs_long_t *mark = NULL, *touched = NULL;
    *F = NULL;
    if (info) *info = (jg_lft_info_t){.n = ny, .nnz_lu = 0, .rcond = 1};
    cs_long_t nu = M ? M->m : ny;
    if (P12->m != no || P12->n != nu || P21->n != ni || P22->m != ny || P22->n != nu ||
        (M && M->n != ny))
        return jg_error_set(err, JG_ARG, "lft: inconsistent operand sizes");
    klu_l_defaults(&kc);
    if (M) {
        PM = cs_dl_multiply(P12, M);
        DM = cs_dl_multiply(P22, M);
        if (!PM || !DM) goto nomem;
    }
    const cs_dl *pm = M ? PM : P12, *dm = M ? DM : P22;
    if (ny > 0) {
        Id = identity(ny);
        if (!Id) goto nomem;
        K0 = cs_dl_add(Id, dm, 1.0, -1.0);
        if (!K0) goto nomem;
        K = sorted(K0);
        if (!K) goto nomem;
        sym = klu_l_analyze(ny, K->p, K->i, &kc);
        if (!sym) goto klu_fail;
        num = klu_l_factor(K->p, K->i, K->x, sym, &kc);
        if (!num || kc.status == KLU_SINGULAR) {
            st = jg_error_set(err, JG_SINGULAR_LOOP, "I - D*M is singular");
            goto done;
        }
        if (!klu_l_rcond(sym, num, &kc)) goto klu_fail;
        if (info) {
            info->rcond = kc.rcond;
            info->nnz_lu = num->lnz + num->unz;
        }
        if (!(kc.rcond > 1e-14)) {
            st = jg_error_set(err, JG_SINGULAR_LOOP,
                              "I - D*M is singular to working precision (rcond %.3g)", kc.rcond);
            goto done;
        }
    }
    b = calloc((size_t)ny + 1, sizeof(double));
    acc = calloc((size_t)no + 1, sizeof(double));
    mark = malloc(sizeof(cs_long_t) * (size_t)(no + 1));
    touched = malloc(sizeof(cs_long_t) * (size_t)(no + 1));
    R = cs_dl_spalloc(no, ni, P11->nzmax + ni + 1, 1, 0);
    if (!b || !acc || !mark || !touched || !R) goto nomem;
    for (cs_long_t i = 0; i < no; i++) mark[i] = -1;
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
            memset(b, 0, sizeof(double) * (size_t)ny);
            for (cs_long_t k = P21->p[j]; k < P21->p[j + 1]; k++) b[P21->i[k]] += P21->x[k];
            if (!klu_l_solve(sym, num, ny, 1, b, &kc)) goto klu_fail;
            for (cs_long_t c = 0; c < ny; c++) {
                if (b[c] == 0) continue;
                for (cs_long_t k = pm->p[c]; k < pm->p[c + 1]; k++) ACC(pm->i[k], pm->x[k] * b[c]);
            }
        }
#undef ACC
        qsort(touched, (size_t)nt, sizeof *touched, cmp_long);
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
klu_fail:
    st = jg_error_set(err, kc.status == KLU_OUT_OF_MEMORY ? JG_NOMEM : JG_NUMERIC,
                      "KLU failed (status %d)", (int)kc.status);
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory in the LFT");
done:
    if (num) klu_l_free_numeric(&num, &kc);
    if (sym) klu_l_free_symbolic(&sym, &kc);
    cs_dl_spfree(PM);
    cs_dl_spfree(DM);
    cs_dl_spfree(Id);
    cs_dl_spfree(K0);
    cs_dl_spfree(K);
    cs_dl_spfree(R);
    free(b);
    free(acc);
    free(mark);
    free(touched);
    return st;
}
