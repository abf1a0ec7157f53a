/* The sparsing measures of a Jacobian sparsing for the linearly implicit
 * Euler step: d1, d2, dS, dr, dr2, C1, C2 and the checks of "Sparsing of
 * Jacobians" (jacgraph/sparsing.h; definitions and equation numbers in
 * docs/sparsing.md).
 *
 * Everything is dense on purpose: the measures are traces of products of
 * inverses and the true changes need every eigenvalue, so nothing sparse
 * would survive the first inverse; the analysis runs offline.  The eigenvalues
 * of M0 are taken from J's (l_i = 1/(1 - h mu_i), the same matrix function)
 * so that each l_i is tied to its mode mu_i for the slow-mode rule. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "core/dense.h"
#include "hungarian.h"
#include "sparsing_impl.h"

/* |lt| below this: the mode is gone after one step, its phase is round-off */
#define PHASE_FLOOR 1e-8
#define HALF_PI 1.57079632679489661923

void jg__sparsing_matmul(int64_t n, const double *A, const double *B, double *C)
{
    memset(C, 0, sizeof(double) * (size_t)(n * n));
    for (int64_t j = 0; j < n; j++)
        for (int64_t k = 0; k < n; k++) {
            double b = B[j * n + k];
            if (b == 0) continue;
            const double *a = A + k * n;
            double *c = C + j * n;
            for (int64_t i = 0; i < n; i++) c[i] += a[i] * b;
        }
}

void jg__sparsing_dense_a(const cs_dl *J, const unsigned char *keep, double *Ad)
{
    int64_t n = J->n;
    memset(Ad, 0, sizeof(double) * (size_t)(n * n));
    for (int64_t j = 0; j < n; j++)
        for (int64_t q = J->p[j]; q < J->p[j + 1]; q++)
            if (!keep || keep[q]) Ad[j * n + J->i[q]] += J->x[q];
}

/* eigenvalues of the dense n x n M (overwritten) into ev (2n: re, im) */
static jg_status_t eig(int64_t n, double *M, double *ev, const char *what, jg_error_t *err)
{
    if (n == 0) return JG_OK;
    jg_status_t st = JG_OK;
    double *wr = malloc(sizeof(double) * (size_t)n), *wi = malloc(sizeof(double) * (size_t)n);
    if (!wr || !wi) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    lapack_int info = LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'N', (lapack_int)n, M, (lapack_int)n, wr,
                                    wi, NULL, 1, NULL, 1);
    if (info != 0) {
        st = jg_error_set(err, JG_NUMERIC, "sparsing: the eigenvalues of %s failed (dgeev %d)", what,
                          (int)info);
        goto done;
    }
    for (int64_t k = 0; k < n; k++) {
        ev[2 * k] = wr[k];
        ev[2 * k + 1] = wi[k];
    }
done:
    free(wr);
    free(wi);
    return st;
}

/* phase statistics of the eigenvalues ev (2n) */
static void phases(int64_t n, const double *ev, double *phi_max, int64_t *nosc, double *rho)
{
    *phi_max = 0;
    *nosc = 0;
    *rho = 0;
    for (int64_t k = 0; k < n; k++) {
        double complex z = ev[2 * k] + I * ev[2 * k + 1];
        double a = cabs(z);
        *rho = fmax(*rho, a);
        if (!(a >= PHASE_FLOOR)) continue;
        double phi = fabs(carg(z));
        *phi_max = fmax(*phi_max, phi);
        if (phi > HALF_PI) (*nosc)++;
    }
}

static int is_csc(const cs_dl *J)
{
    if (!J || J->nz != -1 || J->m != J->n || J->n < 0 || !J->p || J->p[0] != 0) return 0;
    for (int64_t j = 0; j < J->n; j++)
        if (J->p[j + 1] < J->p[j]) return 0;
    for (int64_t q = 0; q < J->p[J->n]; q++)
        if (J->i[q] < 0 || J->i[q] >= J->n) return 0;
    return 1;
}

jg_status_t jg__sparsing_base_init(jg__sparsing_base_t *b, const cs_dl *J, double h, double S,
                                   jg_error_t *err)
{
    memset(b, 0, sizeof *b);
    if (!is_csc(J))
        return jg_error_set(err, JG_ARG, "sparsing: J must be a square compressed-column matrix");
    if (!(h > 0) || !isfinite(h))
        return jg_error_set(err, JG_ARG, "sparsing: the step h must be positive and finite (got %g)", h);
    if (!(S >= 0))
        return jg_error_set(err, JG_ARG, "sparsing: the slow-mode threshold must be >= 0 (got %g)", S);
    int64_t n = J->n;
    if (n > JG_SPARSING_MAX_STATES)
        return jg_error_set(err, JG_ARG,
                            "sparsing: %lld states is more than %d (the analysis is dense, O(n^3))",
                            (long long)n, JG_SPARSING_MAX_STATES);
    b->n = n;
    b->h = h;
    jg_status_t st = JG_OK;
    size_t nn = (size_t)(n * n) + 1;
    double *W = malloc(sizeof(double) * nn), *mu = malloc(sizeof(double) * (2 * (size_t)n + 1));
    double *r = malloc(sizeof(double) * ((size_t)n + 1));
    unsigned char *slow = malloc((size_t)n + 1);
    b->Jd = malloc(sizeof(double) * nn);
    b->B0i = malloc(sizeof(double) * nn);
    b->GB = malloc(sizeof(double) * nn);
    b->lam = malloc(sizeof(double) * (2 * (size_t)n + 1));
    if (!W || !mu || !r || !slow || !b->Jd || !b->B0i || !b->GB || !b->lam) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    jg__sparsing_dense_a(J, NULL, b->Jd);
    for (int64_t k = 0; k < n * n; k++) b->B0i[k] = -h * b->Jd[k];
    for (int64_t k = 0; k < n; k++) b->B0i[k * n + k] += 1;
    if (jg__dense_inverse(n, b->B0i)) {
        st = jg_error_set(err, JG_NUMERIC, "sparsing: I - hJ is singular for h = %g", h);
        goto done;
    }
    /* G = I - (I-hJ)^-1 (I+hJ), then GB = G (I-hJ)^-1 */
    for (int64_t k = 0; k < n * n; k++) W[k] = h * b->Jd[k];
    for (int64_t k = 0; k < n; k++) W[k * n + k] += 1;
    jg__sparsing_matmul(n, b->B0i, W, b->GB);
    for (int64_t k = 0; k < n * n; k++) W[k] = -b->GB[k];
    for (int64_t k = 0; k < n; k++) W[k * n + k] += 1;
    jg__sparsing_matmul(n, W, b->B0i, b->GB);
    memcpy(W, b->Jd, sizeof(double) * (size_t)(n * n));
    if ((st = eig(n, W, mu, "J", err))) goto done;
    int64_t nfast = 0;
    for (int64_t k = 0; k < n; k++) {
        double complex m = mu[2 * k] + I * mu[2 * k + 1];
        double complex d = 1 - h * m;
        if (cabs(d) == 0) {
            st = jg_error_set(err, JG_NUMERIC, "sparsing: I - hJ is singular for h = %g", h);
            goto done;
        }
        double complex l = 1 / d;
        b->lam[2 * k] = creal(l);
        b->lam[2 * k + 1] = cimag(l);
        r[k] = fabs(1 - cabs(l));
        slow[k] = h * cabs(m) < S;
        nfast += !slow[k];
    }
    /* every mode slow: bounding by nothing would accept any sparsing, so the
     * bounds fall back to all modes (documented) */
    b->nslow = nfast ? n - nfast : 0;
    b->C1 = INFINITY;
    for (int64_t k = 0; k < n; k++)
        if (!nfast || !slow[k]) b->C1 = fmin(b->C1, r[k]);
    b->C2 = b->C1 * b->C1;
    phases(n, b->lam, &b->phi0_max, &b->nosc0, &b->rho0);
done:
    free(W);
    free(mu);
    free(r);
    free(slow);
    return st;
}

void jg__sparsing_base_free(jg__sparsing_base_t *b)
{
    free(b->Jd);
    free(b->B0i);
    free(b->GB);
    free(b->lam);
    memset(b, 0, sizeof *b);
}

jg_status_t jg__sparsing_traces(const jg__sparsing_base_t *b, const double *Ad, double *Bi,
                                double *W, double *trE, double *trE2, jg_error_t *err)
{
    int64_t n = b->n;
    double h = b->h;
    for (int64_t k = 0; k < n * n; k++) Bi[k] = -h * Ad[k];
    for (int64_t k = 0; k < n; k++) Bi[k * n + k] += 1;
    if (jg__dense_inverse(n, Bi))
        return jg_error_set(err, JG_NUMERIC, "sparsing: I - hA is singular for h = %g", h);
    /* D = h (Bi - B0i) in W, E = D J in a temporary: tr(E^2) = sum_ij E_ij
     * E_ji needs E whole, and Bi stays the caller's for M1 */
    for (int64_t k = 0; k < n * n; k++) W[k] = h * (Bi[k] - b->B0i[k]);
    double t1 = 0, t2 = 0;
    double *E = malloc(sizeof(double) * ((size_t)(n * n) + 1));
    if (!E) return jg_error_set(err, JG_NOMEM, "out of memory");
    jg__sparsing_matmul(n, W, b->Jd, E);
    for (int64_t i = 0; i < n; i++) {
        t1 += E[i * n + i];
        for (int64_t j = 0; j < n; j++) t2 += E[j * n + i] * E[i * n + j];
    }
    free(E);
    *trE = t1;
    *trE2 = t2;
    return JG_OK;
}

jg_status_t jg__sparsing_eig_m1(const jg__sparsing_base_t *b, const double *Bi, double *W,
                                double *lamt, jg_error_t *err)
{
    int64_t n = b->n;
    jg__sparsing_matmul(n, Bi, b->Jd, W);
    for (int64_t k = 0; k < n * n; k++) W[k] *= b->h;
    for (int64_t k = 0; k < n; k++) W[k * n + k] += 1;
    return eig(n, W, lamt, "M1 = I + h (I - hA)^-1 J", err);
}

jg_status_t jg_sparsing_measure(const cs_dl *J, const unsigned char *keep, double h,
                                double slow_threshold, jg_sparsing_result_t *out, double *lam,
                                double *lamt, jg_error_t *err)
{
    jg__sparsing_base_t b;
    memset(out, 0, sizeof *out);
    jg_status_t st = jg__sparsing_base_init(&b, J, h, slow_threshold, err);
    double *Ad = NULL, *Bi = NULL, *W = NULL, *lt = NULL, *cost = NULL;
    int64_t *match = NULL;
    if (st) goto done;
    int64_t n = b.n, nz = J->p[n];
    size_t nn = (size_t)(n * n) + 1;
    Ad = malloc(sizeof(double) * nn);
    Bi = malloc(sizeof(double) * nn);
    W = malloc(sizeof(double) * nn);
    lt = malloc(sizeof(double) * (2 * (size_t)n + 1));
    cost = malloc(sizeof(double) * nn);
    match = malloc(sizeof(int64_t) * ((size_t)n + 1));
    if (!Ad || !Bi || !W || !lt || !cost || !match) {
        st = jg_error_set(err, JG_NOMEM, "out of memory");
        goto done;
    }
    out->n = n;
    out->nnz = nz;
    out->h = h;
    out->slow_threshold = slow_threshold;
    /* eq. (2): tr((I-hJ)^-1 h dJ G) = h sum_ij dJ_ij (G (I-hJ)^-1)_ji, dJ =
     * A - J nonzero only at the dropped entries */
    double trS = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t q = J->p[j]; q < J->p[j + 1]; q++)
            if (keep && !keep[q]) {
                out->ndropped++;
                trS += -J->x[q] * b.GB[J->i[q] * n + j];
            }
    out->trS = h * trS;
    out->dS = fabs(out->trS);
    jg__sparsing_dense_a(J, keep, Ad);
    if ((st = jg__sparsing_traces(&b, Ad, Bi, W, &out->trE, &out->trE2, err))) goto done;
    out->d1 = fabs(out->trE);
    out->d2 = sqrt(fabs(out->trE2));
    if ((st = jg__sparsing_eig_m1(&b, Bi, W, lt, err))) goto done;
    /* pair lt with l: least sum |lt_j - l_i| (the eigenvalue solvers return
     * them in unrelated orders) */
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            cost[i * n + j] = cabs((lt[2 * j] - b.lam[2 * i]) + I * (lt[2 * j + 1] - b.lam[2 * i + 1]));
    if (jg__assignment_min(n, cost, match, &out->dr)) {
        st = jg_error_set(err, JG_NUMERIC, "sparsing: eigenvalue pairing failed (non-finite eigenvalues)");
        goto done;
    }
    double s2 = 0;
    for (int64_t i = 0; i < n; i++) {
        double c = cost[i * n + match[i]];
        s2 += c * c;
        out->dmax = fmax(out->dmax, c);
    }
    out->dr2 = sqrt(s2);
    out->C1 = b.C1;
    out->C2 = b.C2;
    out->nslow = b.nslow;
    out->check1 = out->d1 < out->C1;
    out->check2 = out->d2 < out->C2;
    out->check2_sq = out->d2 * out->d2 < out->C2;
    out->rho0 = b.rho0;
    out->phi0_max = b.phi0_max;
    out->nosc0 = b.nosc0;
    phases(n, lt, &out->phi_max, &out->nosc, &out->rho1);
    if (lam) memcpy(lam, b.lam, sizeof(double) * 2 * (size_t)n);
    if (lamt)
        for (int64_t i = 0; i < n; i++) {
            lamt[2 * i] = lt[2 * match[i]];
            lamt[2 * i + 1] = lt[2 * match[i] + 1];
        }
done:
    jg__sparsing_base_free(&b);
    free(Ad);
    free(Bi);
    free(W);
    free(lt);
    free(cost);
    free(match);
    return st;
}
