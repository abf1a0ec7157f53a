/* Transfer functions of SISO channels: zeros, poles and gain of the
 * channel's minimal realization, and the polynomials expanded from them. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lti_impl.h"

void jg_analysis_tf_free(jg_analysis_tf_t *tf)
{
    if (!tf) return;
    free(tf->pre), free(tf->pim), free(tf->zre), free(tf->zim), free(tf->num), free(tf->den);
    free(tf);
}

/* prod (x - r_k) in descending powers: n + 1 real coefficients (the
 * imaginary parts cancel for conjugate roots and are dropped) */
static void poly(int64_t n, const double *re, const double *im, double *c, double complex *w)
{
    w[0] = 1;
    for (int64_t k = 0; k < n; k++) {
        double complex r = re[k] + I * im[k];
        w[k + 1] = 0;
        for (int64_t j = k + 1; j > 0; j--) w[j] -= r * w[j - 1];
    }
    for (int64_t k = 0; k <= n; k++) c[k] = creal(w[k]);
}

jg_status_t jg_analysis_tf(const jg_analysis_ss_t *s, int64_t j, int64_t i, double tol, jg_analysis_tf_t **out,
                           jg_error_t *err)
{
    if (!s || !out) return jg_error_set(err, JG_ARG, "jg_analysis_tf: NULL argument");
    *out = NULL;
    jg_analysis_ss_t *c = NULL, *r = NULL;
    jg__lti_hess_t *h = NULL;
    double complex *w = NULL;
    jg_analysis_tf_t *tf = NULL;
    jg_status_t st = jg_analysis_ss_channel(s, j, i, &c, err);
    if (st || (st = jg_analysis_minreal(c, tol, &r, err))) goto done;
    int64_t n = r->nx;
    tf = calloc(1, sizeof *tf);
    if (!tf) goto nomem;
    tf->Ts = s->Ts;
    tf->np = n;
    tf->pre = malloc(sizeof(double) * (size_t)(n + 1));
    tf->pim = malloc(sizeof(double) * (size_t)(n + 1));
    tf->zre = malloc(sizeof(double) * (size_t)(n + 1));
    tf->zim = malloc(sizeof(double) * (size_t)(n + 1));
    tf->num = calloc((size_t)(n + 1), sizeof(double));
    tf->den = malloc(sizeof(double) * (size_t)(n + 1));
    w = malloc(sizeof(double complex) * (size_t)(n + 1));
    if (!tf->pre || !tf->pim || !tf->zre || !tf->zim || !tf->num || !tf->den || !w) goto nomem;
    if ((st = jg_analysis_poles(r, tf->pre, tf->pim, err)) ||
        (st = jg_analysis_zeros(r, &tf->nz, tf->zre, tf->zim, NULL, err)))
        goto done;
    /* k from G(s0) at a point beyond every root: there the products are
     * far from 0 and G is well conditioned */
    double R = 1;
    for (int64_t k = 0; k < n; k++) R = fmax(R, hypot(tf->pre[k], tf->pim[k]));
    for (int64_t k = 0; k < tf->nz; k++) R = fmax(R, hypot(tf->zre[k], tf->zim[k]));
    double complex s0 = 2 * R * (0.6 + 0.8 * I), G;
    if (!(h = jg__lti_hess_create(r))) goto nomem;
    if (n == 0 || jg__lti_hess_eval(h, s0, &G)) G = r->D[0];
    double complex q = G;
    for (int64_t k = 0; k < n; k++) q *= s0 - (tf->pre[k] + I * tf->pim[k]);
    for (int64_t k = 0; k < tf->nz; k++) q /= s0 - (tf->zre[k] + I * tf->zim[k]);
    tf->k = n == 0 ? r->D[0] : creal(q);
    poly(n, tf->pre, tf->pim, tf->den, w);
    poly(tf->nz, tf->zre, tf->zim, tf->num + (n - tf->nz), w);
    for (int64_t k = n - tf->nz; k <= n; k++) tf->num[k] *= tf->k;
    *out = tf;
    tf = NULL;
    goto done;
nomem:
    st = jg_error_set(err, JG_NOMEM, "out of memory");
done:
    jg_analysis_tf_free(tf);
    jg_analysis_ss_free(c);
    jg_analysis_ss_free(r);
    jg__lti_hess_free(h);
    free(w);
    return st;
}
