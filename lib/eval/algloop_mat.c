/* LU factors of an algebraic loop's Newton matrix K = I - dG/dY: row-equilibrated
 * dense LAPACK for small or dense loops, KLU for large sparse ones (a vector
 * loop of width w has O(w) entries, not (2w)^2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <klu.h>
#include <lapacke.h>
#include "algloop_mat.h"

struct jg__loopmat {
    int64_t n;
    int kind;                 /* 0: not chosen yet, 1: dense, 2: sparse */
    /* dense */
    double *A, *rs;           /* LU factors (column-major), row scales */
    lapack_int *ipiv;
    /* sparse: KLU's own row scaling (max of each row) and pivot test */
    klu_l_symbolic *sym;
    klu_l_numeric *num;
    klu_l_common kc;
};

jg__loopmat_t *jg__loopmat_new(int64_t n)
{
    jg__loopmat_t *m = calloc(1, sizeof *m);
    if (m) m->n = n;
    return m;
}

void jg__loopmat_free(jg__loopmat_t *m)
{
    if (!m) return;
    if (m->num) klu_l_free_numeric(&m->num, &m->kc);
    if (m->sym) klu_l_free_symbolic(&m->sym, &m->kc);
    free(m->A);
    free(m->rs);
    free(m->ipiv);
    free(m);
}

int jg__loopmat_is_sparse(const jg__loopmat_t *m) { return m && m->kind == 2; }

/* Dense: scale row i by the power of two nearest 1/max|K(i,:)| (exact), LU
 * with partial pivoting, and call a pivot singular when it is below 1e-14 of
 * the largest entry of its own column (after the row scaling): a ratio to the
 * whole matrix would call a badly scaled but benign K singular (a triangular
 * [1 3e20; 0 1] from a loop whose terms are 1e20). */
static int factor_dense(jg__loopmat_t *m, const cs_dl *K)
{
    int64_t n = m->n;
    if (!m->A) {
        m->A = malloc(sizeof(double) * (size_t)(n * n));
        m->rs = malloc(sizeof(double) * (size_t)(2 * n));   /* row scales, column maxima */
        m->ipiv = malloc(sizeof(lapack_int) * (size_t)n);
        if (!m->A || !m->rs || !m->ipiv) return -1;
    }
    double *A = m->A;
    memset(A, 0, sizeof(double) * (size_t)(n * n));
    for (int64_t i = 0; i < n; i++) m->rs[i] = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t q = K->p[j]; q < K->p[j + 1]; q++) {
            A[j * n + K->i[q]] += K->x[q];
            m->rs[K->i[q]] = fmax(m->rs[K->i[q]], fabs(K->x[q]));
        }
    for (int64_t i = 0; i < n; i++) {
        if (!(m->rs[i] > 0) || !isfinite(m->rs[i])) return 1;   /* an empty row, or inf/NaN */
        int e;
        frexp(m->rs[i], &e);
        m->rs[i] = ldexp(1.0, -e);
    }
    double *cmax = m->rs + n;
    for (int64_t j = 0; j < n; j++) {
        cmax[j] = 0;
        for (int64_t i = 0; i < n; i++) {
            A[j * n + i] *= m->rs[i];
            cmax[j] = fmax(cmax[j], fabs(A[j * n + i]));
        }
    }
    lapack_int info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, A,
                                     (lapack_int)n, m->ipiv);
    if (info < 0) return -1;
    if (info > 0) return 1;
    for (int64_t k = 0; k < n; k++)
        if (!(fabs(A[k * n + k]) > 1e-14 * cmax[k])) return 1;
    return 0;
}

/* Sparse: analyse the pattern once, factor afresh each time (the pivot order of
 * an earlier point may have gone bad), and call the factors singular when a
 * pivot is below 1e-14 of the largest entry of its column (after KLU's row
 * scaling by the row maxima), as the dense test. */
static int factor_sparse(jg__loopmat_t *m, const cs_dl *K)
{
    int64_t n = m->n;
    for (int64_t k = 0; k < K->p[n]; k++)
        if (!isfinite(K->x[k])) return 1;
    if (!m->sym) {
        klu_l_defaults(&m->kc);
        m->sym = klu_l_analyze(n, K->p, K->i, &m->kc);
        if (!m->sym) return m->kc.status == KLU_OUT_OF_MEMORY ? -1 : 1;
    }
    if (m->num) klu_l_free_numeric(&m->num, &m->kc);
    m->num = klu_l_factor(K->p, K->i, K->x, m->sym, &m->kc);
    if (!m->num || m->kc.status != KLU_OK) {
        int oom = m->kc.status == KLU_OUT_OF_MEMORY;
        if (m->num) klu_l_free_numeric(&m->num, &m->kc);
        return oom ? -1 : 1;
    }
    const double *Ud = m->num->Udiag, *Rs = m->num->Rs;
    for (int64_t k = 0; k < n; k++) {
        int64_t j = m->sym->Q[k];
        double cmax = 0;
        for (int64_t q = K->p[j]; q < K->p[j + 1]; q++)
            cmax = fmax(cmax, fabs(K->x[q]) / (Rs ? Rs[K->i[q]] : 1.0));
        if (!(fabs(Ud[k]) > 1e-14 * cmax)) return 1;
    }
    return 0;
}

int jg__loopmat_factor(jg__loopmat_t *m, const cs_dl *K)
{
    int64_t n = m->n;
    if (n == 0) return 0;
    if (!m->kind) {
        double nnz = (double)K->p[n], full = (double)n * (double)n;
        m->kind = n <= JG__LOOPMAT_DENSE_N || (n <= JG__LOOPMAT_DENSE_MAX && nnz >= 0.25 * full) ? 1 : 2;
    }
    return m->kind == 1 ? factor_dense(m, K) : factor_sparse(m, K);
}

void jg__loopmat_solve(jg__loopmat_t *m, double *b)
{
    int64_t n = m->n;
    if (n == 0) return;
    if (m->kind == 1) {
        for (int64_t i = 0; i < n; i++) b[i] *= m->rs[i];
        LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', (lapack_int)n, 1, m->A, (lapack_int)n, m->ipiv, b,
                       (lapack_int)n);
    } else {
        klu_l_solve(m->sym, m->num, n, 1, b, &m->kc);
    }
}
