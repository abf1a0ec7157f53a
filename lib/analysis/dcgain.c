/* The steady-state (DC) gain of a linear model: D - C A^-1 B, or
 * D + C (I - A)^-1 B for a discrete one; channel by channel through the
 * minimal realization when A has a pole at 0 (at 1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/dense.h"
#include "lti_impl.h"

/* G = D + C X with M X = B, M = -A or I - A; 1 when M is singular */
static int gain(const jg_analysis_ss_t *s, double *G, int *nomem)
{
    int64_t n = s->nx, m = s->nu, p = s->ny;
    double *M = malloc(sizeof(double) * (size_t)(n * n + 1)), *X = malloc(sizeof(double) * (size_t)(n * m + 1));
    int singular = 0;
    *nomem = !M || !X;
    if (*nomem) goto done;
    for (int64_t k = 0; k < n * n; k++) M[k] = -s->A[k];
    if (s->Ts > 0)
        for (int64_t i = 0; i < n; i++) M[i + i * n] += 1;
    memcpy(X, s->B, sizeof(double) * (size_t)(n * m));
    if (n > 0 && m > 0 && jg__dense_solve(n, M, m, X)) {
        singular = 1;
        goto done;
    }
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < p; i++) {
            double acc = s->D[i + j * p];
            for (int64_t l = 0; l < n; l++) acc += s->C[i + l * p] * X[l + j * n];
            G[i + j * p] = acc;
        }
done:
    free(M);
    free(X);
    return singular;
}

jg_status_t jg_analysis_dcgain(const jg_analysis_ss_t *s, double *G, jg_error_t *err)
{
    if (!s || (s->nu > 0 && s->ny > 0 && !G)) return jg_error_set(err, JG_ARG, "jg_analysis_dcgain: NULL argument");
    int nomem;
    if (!gain(s, G, &nomem)) return nomem ? jg_error_set(err, JG_NOMEM, "out of memory") : JG_OK;
    /* a pole at 0 somewhere: per channel, without the modes it cannot see */
    for (int64_t j = 0; j < s->nu; j++)
        for (int64_t i = 0; i < s->ny; i++) {
            jg_analysis_ss_t *c = NULL, *r = NULL;
            jg_status_t st = jg_analysis_ss_channel(s, j, i, &c, err);
            if (!st) st = jg_analysis_minreal(c, 0, &r, err);
            jg_analysis_ss_free(c);
            if (st) return st;
            double g;
            if (gain(r, &g, &nomem)) g = INFINITY;
            jg_analysis_ss_free(r);
            if (nomem) return jg_error_set(err, JG_NOMEM, "out of memory");
            G[i + j * s->ny] = g;
        }
    return JG_OK;
}
