/* Dense state-space models for the linear analyses: creation from arrays or
 * a linearization result, SISO channels, and the small dense helpers
 * (norms, products, SVD, eigenvalues, root order) the analyses share. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lti_impl.h"

void jg_analysis_ss_free(jg_analysis_ss_t *s)
{
    if (!s) return;
    free(s->A);
    free(s->B);
    free(s->C);
    free(s->D);
    free(s);
}

/* Zeroed matrices (one spare element each: malloc(0) is not portable). */
static jg_analysis_ss_t *alloc_ss(int64_t nx, int64_t nu, int64_t ny)
{
    jg_analysis_ss_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->nx = nx, s->nu = nu, s->ny = ny;
    s->A = calloc((size_t)(nx * nx + 1), sizeof(double));
    s->B = calloc((size_t)(nx * nu + 1), sizeof(double));
    s->C = calloc((size_t)(ny * nx + 1), sizeof(double));
    s->D = calloc((size_t)(ny * nu + 1), sizeof(double));
    if (!s->A || !s->B || !s->C || !s->D) {
        jg_analysis_ss_free(s);
        return NULL;
    }
    return s;
}

static jg_status_t check_finite(const jg_analysis_ss_t *s, jg_error_t *err)
{
    const char *names = "ABCD";
    const double *M[4] = {s->A, s->B, s->C, s->D};
    const int64_t r[4] = {s->nx, s->nx, s->ny, s->ny}, c[4] = {s->nx, s->nu, s->nx, s->nu};
    for (int q = 0; q < 4; q++)
        for (int64_t j = 0; j < c[q]; j++)
            for (int64_t i = 0; i < r[q]; i++)
                if (!isfinite(M[q][i + j * r[q]]))
                    return jg_error_set(err, JG_ARG, "linear model: %c(%lld,%lld) is %g", names[q],
                                        (long long)i + 1, (long long)j + 1, M[q][i + j * r[q]]);
    return JG_OK;
}

static int sizes_ok(int64_t nx, int64_t nu, int64_t ny)
{
    const int64_t big = (int64_t)1 << 28;   /* lapack_int is 32-bit: n^2 must fit */
    return nx >= 0 && nu >= 0 && ny >= 0 && nx < 46000 && nu < big && ny < big &&
           (nx == 0 || (nu <= INT32_MAX / (nx + 1) && ny <= INT32_MAX / (nx + 1))) &&
           (nu == 0 || ny <= INT32_MAX / nu);
}

jg_status_t jg_analysis_ss_create(int64_t nx, int64_t nu, int64_t ny, const double *A, const double *B,
                                  const double *C, const double *D, double Ts, jg_analysis_ss_t **out,
                                  jg_error_t *err)
{
    if (!out) return jg_error_set(err, JG_ARG, "jg_analysis_ss_create: NULL argument");
    *out = NULL;
    if (!sizes_ok(nx, nu, ny))
        return jg_error_set(err, JG_ARG, "linear model: bad sizes %lld states, %lld inputs, %lld outputs",
                            (long long)nx, (long long)nu, (long long)ny);
    if (!(Ts >= 0) || !isfinite(Ts))
        return jg_error_set(err, JG_ARG, "linear model: sample time %g (0: continuous, > 0: discrete)", Ts);
    jg_analysis_ss_t *s = alloc_ss(nx, nu, ny);
    if (!s) return jg_error_set(err, JG_NOMEM, "out of memory");
    s->Ts = Ts;
    if (A) memcpy(s->A, A, sizeof(double) * (size_t)(nx * nx));
    if (B) memcpy(s->B, B, sizeof(double) * (size_t)(nx * nu));
    if (C) memcpy(s->C, C, sizeof(double) * (size_t)(ny * nx));
    if (D) memcpy(s->D, D, sizeof(double) * (size_t)(ny * nu));
    jg_status_t st = check_finite(s, err);
    if (st) {
        jg_analysis_ss_free(s);
        return st;
    }
    *out = s;
    return JG_OK;
}

static void scatter(const cs_dl *M, double *d, int64_t rows)
{
    if (!M) return;
    for (int64_t j = 0; j < M->n; j++)
        for (int64_t p = M->p[j]; p < M->p[j + 1]; p++) d[M->i[p] + j * rows] += M->x[p];
}

jg_status_t jg__lti_delays_refuse(const jg_lin_sys_t *ls, const char *what, jg_error_t *err)
{
    char list[256] = "";
    size_t len = 0;
    for (int64_t k = 0; k < ls->ndelays && len + 1 < sizeof list; k++) {
        int64_t q = ls->nu - ls->ndelays + k;
        const char *name = ls->input_names && q >= 0 ? ls->input_names[q] : NULL;
        int w = snprintf(list + len, sizeof list - len, "%s%s %g s", k ? ", " : "", name ? name : "?",
                         ls->delays ? ls->delays[k] : NAN);
        if (w < 0) break;
        len += (size_t)w < sizeof list - len ? (size_t)w : sizeof list - len - 1;
    }
    return jg_error_set(err, JG_ARG,
                        "the linear model has %lld internal delay%s (%s): %s", (long long)ls->ndelays,
                        ls->ndelays == 1 ? "" : "s", list, what);
}

jg_status_t jg__lti_from_lin(const jg_lin_sys_t *ls, double Ts, jg_analysis_ss_t **out, jg_error_t *err)
{
    jg_status_t st = jg_analysis_ss_create(ls->nx, ls->nu, ls->ny, NULL, NULL, NULL, NULL, Ts, out, err);
    if (st) return st;
    jg_analysis_ss_t *s = *out;
    scatter(ls->A, s->A, s->nx);
    scatter(ls->B, s->B, s->nx);
    scatter(ls->C, s->C, s->ny);
    scatter(ls->D, s->D, s->ny);
    if ((st = check_finite(s, err))) {
        jg_analysis_ss_free(s);
        *out = NULL;
    }
    return st;
}

jg_status_t jg_analysis_ss_from_lin(const jg_lin_sys_t *ls, double Ts, jg_analysis_ss_t **out,
                                    jg_error_t *err)
{
    if (!ls || !out) return jg_error_set(err, JG_ARG, "jg_analysis_ss_from_lin: NULL argument");
    *out = NULL;
    /* the delay-free part's poles, zeros and responses are not the delayed
     * system's: an answer from them would be silently wrong */
    if (ls->ndelays > 0)
        return jg__lti_delays_refuse(ls, "its poles, zeros, gains, realizations and time responses are not "
                                     "those of the delay-free part (only the frequency response is exact: "
                                     "jg_analysis_lin_freqresp; or approximate the delays by Pade)", err);
    return jg__lti_from_lin(ls, Ts, out, err);
}

jg_status_t jg_analysis_ss_channel(const jg_analysis_ss_t *s, int64_t j, int64_t i, jg_analysis_ss_t **out,
                                   jg_error_t *err)
{
    if (!s || !out) return jg_error_set(err, JG_ARG, "jg_analysis_ss_channel: NULL argument");
    *out = NULL;
    if (j < 0 || j >= s->nu || i < 0 || i >= s->ny)
        return jg_error_set(err, JG_ARG, "channel: input %lld, output %lld out of range (%lld inputs, %lld outputs)",
                            (long long)j + 1, (long long)i + 1, (long long)s->nu, (long long)s->ny);
    jg_analysis_ss_t *c = alloc_ss(s->nx, 1, 1);
    if (!c) return jg_error_set(err, JG_NOMEM, "out of memory");
    c->Ts = s->Ts;
    memcpy(c->A, s->A, sizeof(double) * (size_t)(s->nx * s->nx));
    memcpy(c->B, s->B + j * s->nx, sizeof(double) * (size_t)s->nx);
    for (int64_t k = 0; k < s->nx; k++) c->C[k] = s->C[i + k * s->ny];
    c->D[0] = s->D[i + j * s->ny];
    *out = c;
    return JG_OK;
}

/* ---- shared helpers */

double jg__lti_fnorm(int64_t r, int64_t c, const double *M)
{
    double s = 0;
    for (int64_t k = 0; k < r * c; k++) s += M[k] * M[k];
    return sqrt(s);
}

void jg__lti_gemm(int ta, int tb, int64_t r, int64_t c, int64_t k, const double *A, int64_t lda,
                  const double *B, int64_t ldb, double *C, int64_t ldc)
{
    for (int64_t j = 0; j < c; j++)
        for (int64_t i = 0; i < r; i++) {
            double acc = 0;
            for (int64_t l = 0; l < k; l++)
                acc += (ta ? A[l + i * lda] : A[i + l * lda]) * (tb ? B[j + l * ldb] : B[l + j * ldb]);
            C[i + j * ldc] = acc;
        }
}

double *jg__lti_transpose(int64_t r, int64_t c, const double *M)
{
    double *T = malloc(sizeof(double) * (size_t)(r * c + 1));
    if (!T) return NULL;
    for (int64_t j = 0; j < c; j++)
        for (int64_t i = 0; i < r; i++) T[j + i * c] = M[i + j * r];
    return T;
}

int jg__lti_eig(int64_t n, const double *A, double *re, double *im)
{
    if (n == 0) return 0;
    double *M = malloc(sizeof(double) * (size_t)(n * n));
    if (!M) return -1;
    memcpy(M, A, sizeof(double) * (size_t)(n * n));
    lapack_int info = LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'N', (lapack_int)n, M, (lapack_int)n, re, im,
                                    NULL, 1, NULL, 1);
    free(M);
    return info < 0 ? -1 : (int)info;
}

int jg__lti_svd(int64_t r, int64_t c, const double *M, double *s, double *U)
{
    int64_t k = r < c ? r : c;
    if (k == 0) {
        if (U)
            for (int64_t q = 0; q < r * r; q++) U[q] = q % (r + 1) == 0;
        return 0;
    }
    double *W = malloc(sizeof(double) * (size_t)(r * c));
    double *sup = malloc(sizeof(double) * (size_t)k);
    int rc = -1;
    if (!W || !sup) goto done;
    memcpy(W, M, sizeof(double) * (size_t)(r * c));
    rc = (int)LAPACKE_dgesvd(LAPACK_COL_MAJOR, U ? 'A' : 'N', 'N', (lapack_int)r, (lapack_int)c, W,
                             (lapack_int)r, s, U ? U : W, (lapack_int)r, W, 1, sup);
done:
    free(W);
    free(sup);
    return rc;
}

/* natural frequency of a root (the display order), as damp */
static double root_wn(double re, double im, double Ts)
{
    double wn, z;
    jg_analysis_damp(re, im, Ts, &wn, &z);
    return wn;
}

void jg__lti_sort_roots(int64_t n, double *re, double *im, double Ts)
{
    /* insertion sort: n is a few hundred at most */
    for (int64_t a = 1; a < n; a++) {
        double r = re[a], i = im[a], w = root_wn(r, i, Ts);
        int64_t b = a - 1;
        while (b >= 0) {
            double wb = root_wn(re[b], im[b], Ts);
            if (wb < w || (wb == w && (im[b] > i || (im[b] == i && re[b] <= r)))) break;
            re[b + 1] = re[b];
            im[b + 1] = im[b];
            b--;
        }
        re[b + 1] = r;
        im[b + 1] = i;
    }
    /* pairs: LAPACK returns exact conjugates; roots of a pencil need not be */
    for (int64_t a = 0; a + 1 < n; a++)
        if (im[a] > 0 && im[a + 1] < 0 &&
            fabs(re[a] - re[a + 1]) <= 1e-10 * fmax(1, fabs(re[a])) &&
            fabs(im[a] + im[a + 1]) <= 1e-10 * fmax(1, fabs(im[a]))) {
            double mr = 0.5 * (re[a] + re[a + 1]), mi = 0.5 * (im[a] - im[a + 1]);
            re[a] = re[a + 1] = mr;
            im[a] = mi;
            im[a + 1] = -mi;
            a++;
        }
}
