/* A minimal realization by two orthogonal staircases (Kalman decomposition):
 * keep the controllable part, then the observable part of that. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lti_impl.h"

jg_status_t jg_analysis_minreal(const jg_analysis_ss_t *s, double tol, jg_analysis_ss_t **out, jg_error_t *err)
{
    if (!s || !out) return jg_error_set(err, JG_ARG, "jg_analysis_minreal: NULL argument");
    *out = NULL;
    if (!(tol > 0)) tol = sqrt(DBL_EPSILON);
    int64_t n = s->nx, m = s->nu, p = s->ny;
    jg_status_t st = JG_OK;
    size_t big = (size_t)(n * (n > m ? (n > p ? n : p) : (m > p ? m : p)) + 1);
    double *A = malloc(sizeof(double) * (size_t)(n * n + 1)), *B = malloc(sizeof(double) * big),
           *C = malloc(sizeof(double) * big), *At = malloc(sizeof(double) * (size_t)(n * n + 1)),
           *Bt = malloc(sizeof(double) * big), *Ct = malloc(sizeof(double) * big);
    if (!A || !B || !C || !At || !Bt || !Ct) goto nomem;
    memcpy(A, s->A, sizeof(double) * (size_t)(n * n));
    memcpy(B, s->B, sizeof(double) * (size_t)(n * m));
    memcpy(C, s->C, sizeof(double) * (size_t)(p * n));
    int64_t nc = jg__lti_staircase(n, m, p, A, B, C, tol);
    if (nc < 0) goto fail;
    /* the dual of the controllable part: (Ac', Cc', Bc') */
    for (int64_t j = 0; j < nc; j++)
        for (int64_t i = 0; i < nc; i++) At[j + i * nc] = A[i + j * n];
    for (int64_t j = 0; j < nc; j++)
        for (int64_t i = 0; i < p; i++) Bt[j + i * nc] = C[i + j * p];   /* Cc' : nc x p */
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < nc; i++) Ct[j + i * m] = B[i + j * n];   /* Bc' : m x nc */
    int64_t no = jg__lti_staircase(nc, p, m, At, Bt, Ct, tol);
    if (no < 0) goto fail;
    st = jg_analysis_ss_create(no, m, p, NULL, NULL, NULL, s->D, s->Ts, out, err);
    if (st) goto done;
    jg_analysis_ss_t *r = *out;
    for (int64_t j = 0; j < no; j++)
        for (int64_t i = 0; i < no; i++) r->A[i + j * no] = At[j + i * nc];
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < no; i++) r->B[i + j * no] = Ct[j + i * m];
    for (int64_t j = 0; j < no; j++)
        for (int64_t i = 0; i < p; i++) r->C[i + j * p] = Bt[j + i * nc];
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory");
    goto done;
fail:
    st = jg_error_set(err, JG_NUMERIC, "minreal: the staircase's SVD failed");
done:
    free(A);
    free(B);
    free(C);
    free(At);
    free(Bt);
    free(Ct);
    return st;
}
