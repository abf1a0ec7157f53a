/* The predicted saving of a Jacobian sparsing: entries, colors of the colored
 * Jacobian (Curtis, Powell & Reid) and the fill of a sparse LU of the
 * linearly implicit Euler matrix, with and without the sparsing
 * (jacgraph/sparsing.h). */
#include <math.h>
#include <stdlib.h>
#include "jacgraph/solverjac.h"
#include "jacgraph/sparsing.h"

/* A's pattern and values: the entries of J with keep[q] (NULL: all) */
static cs_dl *kept(const cs_dl *J, const unsigned char *keep)
{
    int64_t n = J->n, nz = J->p[n], m = 0;
    for (int64_t q = 0; q < nz; q++) m += !keep || keep[q];
    cs_dl *A = cs_dl_spalloc(n, n, m ? m : 1, 1, 0);
    if (!A) return NULL;
    m = 0;
    for (int64_t j = 0; j < n; j++) {
        A->p[j] = m;
        for (int64_t q = J->p[j]; q < J->p[j + 1]; q++)
            if (!keep || keep[q]) {
                A->i[m] = J->i[q];
                A->x[m++] = J->x[q];
            }
    }
    A->p[n] = m;
    return A;
}

/* nnz(L) + nnz(U) of I - hA, or -1 when the LU fails (*nomem: for want of memory) */
static int64_t lu_fill(const cs_dl *A, double h, int *nomem)
{
    int64_t n = A->n, r = -1;
    cs_dl *Id = cs_dl_spalloc(n, n, n ? n : 1, 1, 0), *M = NULL;
    cs_dls *S = NULL;
    cs_dln *N = NULL;
    *nomem = 0;
    if (!Id) goto oom;
    for (int64_t k = 0; k < n; k++) {
        Id->p[k] = k;
        Id->i[k] = k;
        Id->x[k] = 1;
    }
    Id->p[n] = n;
    if (!(M = cs_dl_add(Id, A, 1, -h))) goto oom;
    if (n == 0) {
        r = 0;
        goto done;
    }
    if (!(S = cs_dl_sqr(1, M, 0))) goto oom;
    /* tol 0.001: take the diagonal unless it is 1000 times smaller than the
     * column's largest entry, as a sparse solver on I - hA would */
    if ((N = cs_dl_lu(M, S, 0.001))) r = N->L->p[n] + N->U->p[n];
    goto done;
oom:
    *nomem = 1;
done:
    cs_dl_spfree(Id);
    cs_dl_spfree(M);
    cs_dl_sfree(S);
    cs_dl_nfree(N);
    return r;
}

jg_status_t jg_sparsing_saving(const cs_dl *J, const unsigned char *keep, double h,
                               jg_sparsing_saving_t *out, jg_error_t *err)
{
    jg_status_t st = JG_OK;
    cs_dl *A = NULL;
    int64_t *color = NULL;
    *out = (jg_sparsing_saving_t){0};
    if (!J || J->nz != -1 || J->m != J->n)
        return jg_error_set(err, JG_ARG, "sparsing: J must be a square compressed-column matrix");
    if (!(h > 0) || !isfinite(h))
        return jg_error_set(err, JG_ARG, "sparsing: the step h must be positive and finite (got %g)", h);
    int64_t n = J->n;
    if (!(A = kept(J, keep)) || !(color = malloc(sizeof(int64_t) * ((size_t)n + 1)))) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    out->nnz = J->p[n];
    out->nkept = A->p[n];
    out->ndropped = out->nnz - out->nkept;
    if ((st = jg_solverjac_color_columns(J, color, &out->ncolors_full, err))) goto done;
    /* the groups perturbation can use with the sparsing: a kept entry's row
     * must see no other column of its group in J's full pattern (the dropped
     * entries still leak into f), so the kept-entry coloring of J, not the
     * coloring of A's pattern alone (which would be fewer, and wrong) */
    if ((st = jg_solverjac_color_columns_kept(J, keep, color, &out->ncolors_sparse, err))) goto done;
    int nomem;
    const cs_dl *mats[2] = {J, A};
    int64_t *fill[2] = {&out->lu_full, &out->lu_sparse};
    for (int k = 0; k < 2; k++) {
        *fill[k] = lu_fill(mats[k], h, &nomem);
        if (nomem) {
            st = jg_error_set(err, JG_NOMEM, "out of memory");
            goto done;
        }
        if (*fill[k] < 0) {
            st = jg_error_set(err, JG_NUMERIC, "sparsing: the sparse LU of I - h%s failed (singular)",
                              k ? "A" : "J");
            goto done;
        }
    }
done:
    cs_dl_spfree(A);
    free(color);
    return st;
}
