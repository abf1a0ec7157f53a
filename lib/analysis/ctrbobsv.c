/* Controllability and observability of a linear model: the order of the
 * controllable (observable) part by the orthogonal staircase and the modes
 * left out of it. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lti_impl.h"

/* The staircase of (A, B) (dual: of (A', C')): rank and the spectrum of
 * the uncontrollable block. */
static jg_status_t part(const jg_analysis_ss_t *s, int dual, double tol, int64_t *rank, double *re,
                        double *im, jg_error_t *err)
{
    if (!s || !rank) return jg_error_set(err, JG_ARG, "jg_analysis_%s: NULL argument", dual ? "obsv" : "ctrb");
    int64_t n = s->nx, m = dual ? s->ny : s->nu;
    if (!(tol > 0)) tol = sqrt(DBL_EPSILON);
    jg_status_t st = JG_OK;
    double *A = dual ? jg__lti_transpose(n, n, s->A) : malloc(sizeof(double) * (size_t)(n * n + 1));
    double *B = dual ? jg__lti_transpose(s->ny, n, s->C) : malloc(sizeof(double) * (size_t)(n * m + 1));
    double *Au = malloc(sizeof(double) * (size_t)(n * n + 1));
    if (!A || !B || !Au) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    if (!dual) {
        memcpy(A, s->A, sizeof(double) * (size_t)(n * n));
        memcpy(B, s->B, sizeof(double) * (size_t)(n * m));
    }
    int64_t r = jg__lti_staircase(n, m, 0, A, B, NULL, tol);
    if (r < 0) {
        st = jg_error_set(err, JG_NUMERIC, "staircase: the SVD failed");
        goto done;
    }
    *rank = r;
    if (re && im && r < n) {
        int64_t u = n - r;
        for (int64_t j = 0; j < u; j++)
            for (int64_t i = 0; i < u; i++) Au[i + j * u] = A[(r + i) + (r + j) * n];
        int rc = jg__lti_eig(u, Au, re, im);
        if (rc) {
            st = jg_error_set(err, rc < 0 ? JG_NOMEM : JG_NUMERIC, "%s modes: eigenvalues failed",
                              dual ? "unobservable" : "uncontrollable");
            goto done;
        }
        jg__lti_sort_roots(u, re, im, s->Ts);
    }
done:
    free(A);
    free(B);
    free(Au);
    return st;
}

jg_status_t jg_analysis_ctrb(const jg_analysis_ss_t *s, double tol, int64_t *rank, double *unc_re,
                             double *unc_im, jg_error_t *err)
{
    return part(s, 0, tol, rank, unc_re, unc_im, err);
}

jg_status_t jg_analysis_obsv(const jg_analysis_ss_t *s, double tol, int64_t *rank, double *uno_re,
                             double *uno_im, jg_error_t *err)
{
    return part(s, 1, tol, rank, uno_re, uno_im, err);
}
