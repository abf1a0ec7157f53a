/* test_analysis.c -- the linear-model analyses of lib/analysis
 * (jacgraph/analysis.h) against hand results: a second-order system's poles,
 * damping and natural frequency; known SISO and MIMO invariant zeros (square
 * and not, checked also against eig(A - B D^-1 C) on random systems); DC
 * gains (an integrator cancelled or not); controllability, observability and
 * a minimal realization of a hidden non-minimal system with the same
 * frequency response; transfer functions; a frequency-response point against
 * the closed form; step and impulse responses of a first-order system
 * against 1 - e^(-t/tau); the matrix exponential; the discrete versions;
 * bad arguments; models with internal delays (refused, and their exact
 * frequency response against the closed form). */
#include <complex.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static jg_analysis_ss_t *mk(int64_t nx, int64_t nu, int64_t ny, const double *A, const double *B,
                            const double *C, const double *D, double Ts)
{
    jg_analysis_ss_t *s = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    if (jg_analysis_ss_create(nx, nu, ny, A, B, C, D, Ts, &s, &err)) tap_ok(0, "ss_create: %s", err.msg);
    return s;
}

/* the roots (re, im) contain each expected root within tol, and no more */
static int same_roots(int64_t n, const double *re, const double *im, int64_t ne, const double complex *e,
                      double tol, const char *name)
{
    int ok = n == ne;
    for (int64_t k = 0; ok && k < ne; k++) {
        int found = 0;
        for (int64_t l = 0; l < n; l++)
            if (cabs(re[l] + I * im[l] - e[k]) <= tol * fmax(1, cabs(e[k]))) found = 1;
        ok = found;
    }
    if (!tap_ok(ok, "%s", name)) {
        printf("#   got %lld:", (long long)n);
        for (int64_t l = 0; l < n; l++) printf(" %.10g%+.10gi", re[l], im[l]);
        printf("\n");
    }
    return ok;
}

static void second_order(void)
{
    /* wn = 2, zeta = 0.3: poles -0.6 +- 2 sqrt(0.91) i, H(s) = 4 / (s^2 + 1.2 s + 4) */
    const double A[] = {0, -4, 1, -1.2}, B[] = {0, 1}, C[] = {4, 0}, D[] = {0};
    jg_analysis_ss_t *s = mk(2, 1, 1, A, B, C, D, 0);
    jg_error_t err;
    double re[2], im[2], wn, z, G;
    tap_ok(!jg_analysis_poles(s, re, im, &err), "2nd order: poles");
    double wd = 2 * sqrt(0.91);
    tap_near(re[0], -0.6, 1e-12, "2nd order: Re p1 = -zeta wn");
    tap_near(im[0], wd, 1e-12, "2nd order: Im p1 = wn sqrt(1 - zeta^2) (positive first)");
    tap_near(im[1], -wd, 1e-12, "2nd order: p2 conjugate");
    jg_analysis_damp(re[0], im[0], 0, &wn, &z);
    tap_near(wn, 2, 1e-12, "2nd order: wn = 2");
    tap_near(z, 0.3, 1e-12, "2nd order: zeta = 0.3");
    tap_ok(!jg_analysis_dcgain(s, &G, &err) && fabs(G - 1) < 1e-12, "2nd order: DC gain 1");
    double w = 1, Hr, Hi;
    tap_ok(!jg_analysis_freqresp(s, 1, &w, &Hr, &Hi, &err), "2nd order: freqresp");
    double complex H = 4 / (3 + 1.2 * I);
    tap_near(Hr, creal(H), 1e-12, "2nd order: Re H(j1) = Re 4/(3 + 1.2j)");
    tap_near(Hi, cimag(H), 1e-12, "2nd order: Im H(j1)");
    double mdb, ph, ww[3] = {0.01, 2, 1000}, m3[3], p3[3];
    jg_analysis_bode(s, 1, &w, &mdb, &ph, &err);
    tap_near(mdb, 20 * log10(cabs(H)), 1e-12, "2nd order: |H(j1)| in dB");
    tap_near(ph, carg(H) * 180 / M_PI, 1e-12, "2nd order: phase in degrees");
    jg_analysis_bode(s, 3, ww, m3, p3, &err);
    tap_near(p3[1], -90, 1e-9, "2nd order: phase -90 at wn");
    tap_near(m3[1], 20 * log10(1 / (2 * 0.3)), 1e-9, "2nd order: peak 1/(2 zeta) at wn");
    tap_ok(p3[2] < -179 && p3[2] > -181, "2nd order: phase unwrapped to -180 at high frequency (%g)", p3[2]);
    jg_analysis_tf_t *tf = NULL;
    tap_ok(!jg_analysis_tf(s, 0, 0, 0, &tf, &err), "2nd order: tf");
    if (tf) {
        tap_ok(tf->np == 2 && tf->nz == 0, "2nd order: tf has 2 poles, no zeros");
        tap_near(tf->den[1], 1.2, 1e-12, "2nd order: den = s^2 + 1.2 s + 4 (s)");
        tap_near(tf->den[2], 4, 1e-12, "2nd order: den (1)");
        tap_ok(tf->num[0] == 0 && tf->num[1] == 0 && fabs(tf->num[2] - 4) < 1e-12, "2nd order: num = 4");
        tap_near(tf->k, 4, 1e-12, "2nd order: zpk gain 4");
    }
    jg_analysis_tf_free(tf);
    /* the frequency grid covers a decade around wn */
    double g[50];
    jg_analysis_freqgrid(2, re, im, 0, NULL, NULL, 0, 50, g);
    tap_ok(fabs(g[0] - 0.1) < 1e-12 && fabs(g[49] - 100) < 1e-9, "freqgrid: 0.1 .. 100 around wn = 2 (%g .. %g)",
           g[0], g[49]);
    jg_analysis_ss_free(s);
}

static void zeros_siso(void)
{
    /* (s + 3) / ((s + 1)(s + 2)) in companion form */
    const double A[] = {0, -2, 1, -3}, B[] = {0, 1}, C[] = {3, 1};
    jg_analysis_ss_t *s = mk(2, 1, 1, A, B, C, NULL, 0);
    jg_error_t err;
    double re[2], im[2], G;
    int64_t nz = -1;
    int deg = -1;
    tap_ok(!jg_analysis_zeros(s, &nz, re, im, &deg, &err) && deg == 0, "siso zero: ok");
    same_roots(nz, re, im, 1, (double complex[]){-3}, 1e-12, "siso zero at -3");
    tap_ok(!jg_analysis_dcgain(s, &G, &err) && fabs(G - 1.5) < 1e-12, "siso: DC gain 3/2");
    jg_analysis_tf_t *tf = NULL;
    tap_ok(!jg_analysis_tf(s, 0, 0, 0, &tf, &err) && tf, "siso: tf");
    if (tf) {
        tap_ok(fabs(tf->num[0]) < 1e-14 && fabs(tf->num[1] - 1) < 1e-12 && fabs(tf->num[2] - 3) < 1e-12,
               "siso: num = s + 3 (%g %g %g)", tf->num[0], tf->num[1], tf->num[2]);
        tap_ok(fabs(tf->den[0] - 1) < 1e-15 && fabs(tf->den[1] - 3) < 1e-12 && fabs(tf->den[2] - 2) < 1e-12,
               "siso: den = s^2 + 3 s + 2");
    }
    jg_analysis_tf_free(tf);
    jg_analysis_ss_free(s);
    /* C = [1 1]: (s + 1)/((s + 1)(s + 2)); -1 is an invariant zero of the
     * (unobservable) realization and the minimal tf is 1/(s + 2) */
    const double C2[] = {1, 1};
    s = mk(2, 1, 1, A, B, C2, NULL, 0);
    jg_analysis_zeros(s, &nz, re, im, NULL, &err);
    same_roots(nz, re, im, 1, (double complex[]){-1}, 1e-10, "pole-zero cancellation: invariant zero -1");
    int64_t rc, ro;
    jg_analysis_ctrb(s, 0, &rc, NULL, NULL, &err);
    jg_analysis_obsv(s, 0, &ro, re, im, &err);
    tap_ok(rc == 2 && ro == 1, "cancellation: controllable (2), observable part 1 (%lld, %lld)", (long long)rc,
           (long long)ro);
    tap_near(re[0], -1, 1e-10, "cancellation: the unobservable mode is -1");
    tf = NULL;
    jg_analysis_tf(s, 0, 0, 0, &tf, &err);
    tap_ok(tf && tf->np == 1 && tf->nz == 0 && fabs(tf->den[1] - 2) < 1e-10 && fabs(tf->num[1] - 1) < 1e-10,
           "cancellation: tf = 1/(s + 2)");
    jg_analysis_tf_free(tf);
    /* zero transfer function: C = 0 */
    const double C0[] = {0, 0};
    jg_analysis_ss_free(s);
    s = mk(2, 1, 1, A, B, C0, NULL, 0);
    jg_status_t zst = jg_analysis_zeros(s, &nz, re, im, &deg, &err);
    tap_ok(!zst && nz == 0 && deg == 1,
           "zero tf: no zeros, degenerate (nz %lld, degenerate %d)", (long long)nz, deg);
    tf = NULL;
    jg_analysis_tf(s, 0, 0, 0, &tf, &err);
    tap_ok(tf && tf->np == 0 && tf->num[0] == 0 && tf->den[0] == 1, "zero tf: 0 / 1");
    jg_analysis_tf_free(tf);
    jg_analysis_ss_free(s);
}

static void zeros_mimo(void)
{
    jg_error_t err;
    double re[4], im[4];
    int64_t nz;
    /* diag(1/(s+1), (s+2)/(s+3)): zero -2 */
    const double A[] = {-1, 0, 0, -3}, B[] = {1, 0, 0, 1}, C[] = {1, 0, 0, -1}, D[] = {0, 0, 0, 1};
    jg_analysis_ss_t *s = mk(2, 2, 2, A, B, C, D, 0);
    jg_analysis_zeros(s, &nz, re, im, NULL, &err);
    same_roots(nz, re, im, 1, (double complex[]){-2}, 1e-12, "MIMO 2x2: zero at -2");
    jg_analysis_ss_free(s);
    /* 2 outputs, 1 input: [2(s+2); 2(s+2)] / ((s+1)(s+3)): zero at -2 */
    const double B2[] = {1, 1}, C2[] = {1, 1, 1, 1};
    s = mk(2, 1, 2, A, B2, C2, NULL, 0);
    jg_analysis_zeros(s, &nz, re, im, NULL, &err);
    same_roots(nz, re, im, 1, (double complex[]){-2}, 1e-10, "tall 2x1: zero at -2");
    jg_analysis_ss_free(s);
    /* [1/(s+1); 1/(s+3)]: no zero */
    const double C3[] = {1, 0, 0, 1};
    s = mk(2, 1, 2, A, B2, C3, NULL, 0);
    jg_analysis_zeros(s, &nz, re, im, NULL, &err);
    tap_ok(nz == 0, "tall 2x1 without common zero: none (%lld)", (long long)nz);
    jg_analysis_ss_free(s);
    /* 1 output, 2 inputs (the dual): [2(s+2), 2(s+2)] / ((s+1)(s+3)) */
    const double B4[] = {1, 1, 1, 1}, C4[] = {1, 1};
    s = mk(2, 2, 1, A, B4, C4, NULL, 0);
    jg_analysis_zeros(s, &nz, re, im, NULL, &err);
    same_roots(nz, re, im, 1, (double complex[]){-2}, 1e-10, "wide 1x2: zero at -2");
    jg_analysis_ss_free(s);
    /* random square systems with invertible D: zeros = eig(A - B D^-1 C) */
    srand(7);
    int agree = 1;
    for (int trial = 0; trial < 20; trial++) {
        enum { N = 4, M = 2 };
        double a[N * N], b[N * M], c[M * N], d[M * M], Z[N * N], zr[N], zi[N], er[N], ei[N];
        for (int k = 0; k < N * N; k++) a[k] = rand() / (double)RAND_MAX - 0.5;
        for (int k = 0; k < N * M; k++) b[k] = rand() / (double)RAND_MAX - 0.5, c[k] = rand() / (double)RAND_MAX - 0.5;
        d[0] = 1 + rand() / (double)RAND_MAX, d[1] = 0.2, d[2] = -0.3, d[3] = 1 + rand() / (double)RAND_MAX;
        double det = d[0] * d[3] - d[1] * d[2], di[4] = {d[3] / det, -d[1] / det, -d[2] / det, d[0] / det};
        for (int j = 0; j < N; j++)   /* Z = A - B Dinv C */
            for (int i = 0; i < N; i++) {
                double acc = a[i + j * N];
                for (int k = 0; k < M; k++)
                    for (int l = 0; l < M; l++) acc -= b[i + k * N] * di[k + l * M] * c[l + j * M];
                Z[i + j * N] = acc;
            }
        jg_analysis_ss_t *zs = mk(N, 0, 0, Z, NULL, NULL, NULL, 0);
        jg_analysis_poles(zs, er, ei, &err);
        jg_analysis_ss_free(zs);
        s = mk(N, M, M, a, b, c, d, 0);
        jg_analysis_zeros(s, &nz, zr, zi, NULL, &err);
        jg_analysis_ss_free(s);
        double complex e[N];
        for (int k = 0; k < N; k++) e[k] = er[k] + I * ei[k];
        int64_t n2 = nz;
        int ok = n2 == N;
        for (int k = 0; ok && k < N; k++) {
            int f = 0;
            for (int l = 0; l < N; l++) f |= cabs(zr[l] + I * zi[l] - e[k]) < 1e-9 * fmax(1, cabs(e[k]));
            ok = f;
        }
        agree &= ok;
    }
    tap_ok(agree, "20 random 4-state 2x2 systems: zeros = eig(A - B D^-1 C)");
}

/* an orthogonal change of coordinates hides the structure */
static void rotate3(double *A, double *B, double *C, int64_t m, int64_t p)
{
    const double c1 = cos(0.7), s1 = sin(0.7), c2 = cos(-1.1), s2 = sin(-1.1);
    double Q[9] = {c1, s1, 0, -s1, c1, 0, 0, 0, 1}, R[9] = {1, 0, 0, 0, c2, s2, 0, -s2, c2}, T[9], X[9];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            double acc = 0;
            for (int k = 0; k < 3; k++) acc += Q[i + k * 3] * R[k + j * 3];
            T[i + j * 3] = acc;
        }
    /* A <- T' A T, B <- T' B, C <- C T */
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            double acc = 0;
            for (int k = 0; k < 3; k++) acc += A[i + k * 3] * T[k + j * 3];
            X[i + j * 3] = acc;
        }
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            double acc = 0;
            for (int k = 0; k < 3; k++) acc += T[k + i * 3] * X[k + j * 3];
            A[i + j * 3] = acc;
        }
    for (int64_t j = 0; j < m; j++) {
        double y[3];
        for (int i = 0; i < 3; i++) {
            y[i] = 0;
            for (int k = 0; k < 3; k++) y[i] += T[k + i * 3] * B[k + j * 3];
        }
        memcpy(B + j * 3, y, sizeof y);
    }
    for (int64_t i = 0; i < p; i++) {
        double y[3];
        for (int j = 0; j < 3; j++) {
            y[j] = 0;
            for (int k = 0; k < 3; k++) y[j] += C[i + k * p] * T[k + j * 3];
        }
        for (int j = 0; j < 3; j++) C[i + j * p] = y[j];
    }
}

static void minimal(void)
{
    /* diag(-1, -2, -5), B = [1; 1; 0]: -5 uncontrollable; H = (2s + 3)/((s+1)(s+2)) */
    double A[9] = {-1, 0, 0, 0, -2, 0, 0, 0, -5}, B[3] = {1, 1, 0}, C[3] = {1, 1, 1};
    rotate3(A, B, C, 1, 1);
    jg_analysis_ss_t *s = mk(3, 1, 1, A, B, C, NULL, 0), *r = NULL;
    jg_error_t err;
    int64_t rc = -1, ro = -1;
    double re[3], im[3];
    tap_ok(!jg_analysis_ctrb(s, 0, &rc, re, im, &err) && rc == 2, "hidden uncontrollable mode: rank 2 (%lld)",
           (long long)rc);
    tap_near(re[0], -5, 1e-10, "the uncontrollable mode is -5");
    tap_ok(!jg_analysis_obsv(s, 0, &ro, NULL, NULL, &err) && ro == 3, "observable (3)");
    tap_ok(!jg_analysis_minreal(s, 0, &r, &err) && r && r->nx == 2, "minreal: order 2 (%lld)",
           r ? (long long)r->nx : -1LL);
    if (r) {
        double w[4] = {0.01, 0.7, 3, 50}, h1r[4], h1i[4], h2r[4], h2i[4], pr[2], pi2[2];
        jg_analysis_freqresp(s, 4, w, h1r, h1i, &err);
        jg_analysis_freqresp(r, 4, w, h2r, h2i, &err);
        double d = 0;
        for (int k = 0; k < 4; k++) d = fmax(d, cabs(h1r[k] + I * h1i[k] - h2r[k] - I * h2i[k]));
        tap_ok(d < 1e-12, "minreal: the same frequency response (%.3g)", d);
        jg_analysis_poles(r, pr, pi2, &err);
        same_roots(2, pr, pi2, 2, (double complex[]){-1, -2}, 1e-10, "minreal: poles -1, -2");
    }
    jg_analysis_tf_t *tf = NULL;
    jg_analysis_tf(s, 0, 0, 0, &tf, &err);
    tap_ok(tf && tf->np == 2 && fabs(tf->num[1] - 2) < 1e-10 && fabs(tf->num[2] - 3) < 1e-10 &&
               fabs(tf->den[1] - 3) < 1e-10 && fabs(tf->den[2] - 2) < 1e-10,
           "tf of the non-minimal system: (2s + 3)/(s^2 + 3s + 2)");
    jg_analysis_tf_free(tf);
    jg_analysis_ss_free(r);
    jg_analysis_ss_free(s);
}

static void dcgains(void)
{
    jg_error_t err;
    double G[2];
    /* an uncontrollable integrator beside 1/(s+1): gain 1, not inf */
    const double A[] = {0, 0, 0, -1}, B[] = {0, 1}, C[] = {1, 1};
    jg_analysis_ss_t *s = mk(2, 1, 1, A, B, C, NULL, 0);
    tap_ok(!jg_analysis_dcgain(s, G, &err) && fabs(G[0] - 1) < 1e-12, "DC gain beside a hidden integrator: 1 (%g)",
           G[0]);
    jg_analysis_ss_free(s);
    const double A1[] = {0}, B1[] = {1}, C1[] = {1};
    s = mk(1, 1, 1, A1, B1, C1, NULL, 0);
    tap_ok(!jg_analysis_dcgain(s, G, &err) && isinf(G[0]), "DC gain of an integrator: inf");
    jg_analysis_ss_free(s);
    /* static gain only */
    const double D[] = {2, -3};
    s = mk(0, 1, 2, NULL, NULL, NULL, D, 0);
    tap_ok(!jg_analysis_dcgain(s, G, &err) && G[0] == 2 && G[1] == -3, "DC gain of D alone");
    jg_analysis_ss_free(s);
}

static void time_responses(void)
{
    jg_error_t err;
    const double tau = 0.5, A[] = {-1 / tau}, B[] = {1 / tau}, C[] = {1};
    jg_analysis_ss_t *s = mk(1, 1, 1, A, B, C, NULL, 0);
    double p = -1 / tau, z = 0;
    double tf = jg_analysis_tfinal(1, &p, &z, 0);
    tap_near(tf, 8 * tau, 1e-12, "tfinal: 8 time constants");
    enum { NT = 101 };
    double t[NT], y[NT], d = 0, di = 0;
    tap_ok(!jg_analysis_timeresp(s, JG_ANALYSIS_STEP, tf, NT, t, y, &err), "step: ok");
    for (int k = 0; k < NT; k++) d = fmax(d, fabs(y[k] - (1 - exp(-t[k] / tau))));
    tap_ok(d < 1e-13 && t[NT - 1] == tf, "step of 1/(tau s + 1) = 1 - e^(-t/tau) (%.3g)", d);
    jg_analysis_timeresp(s, JG_ANALYSIS_IMPULSE, tf, NT, t, y, &err);
    for (int k = 0; k < NT; k++) di = fmax(di, fabs(y[k] - exp(-t[k] / tau) / tau));
    tap_ok(di < 1e-12, "impulse = e^(-t/tau)/tau (%.3g)", di);
    tap_ok(jg_analysis_timeresp(s, JG_ANALYSIS_STEP, 1, 1, t, y, &err) == JG_ARG, "timeresp: 1 sample: JG_ARG");
    tap_ok(jg_analysis_timeresp(s, JG_ANALYSIS_STEP, -1, 10, t, y, &err) == JG_ARG, "timeresp: tfinal < 0: JG_ARG");
    jg_analysis_ss_free(s);
    /* second order: step overshoot of zeta = 0.3 is e^(-pi zeta / sqrt(1 - zeta^2)) */
    const double A2[] = {0, -4, 1, -1.2}, B2[] = {0, 1}, C2[] = {4, 0};
    s = mk(2, 1, 1, A2, B2, C2, NULL, 0);
    enum { N2 = 4001 };
    double *t2 = malloc(sizeof(double) * N2), *y2 = malloc(sizeof(double) * N2), mx = 0;
    jg_analysis_timeresp(s, JG_ANALYSIS_STEP, 20, N2, t2, y2, &err);
    for (int k = 0; k < N2; k++) mx = fmax(mx, y2[k]);
    tap_near(mx - 1, exp(-M_PI * 0.3 / sqrt(0.91)), 1e-5, "2nd order step: overshoot e^(-pi zeta/sqrt(1-zeta^2))");
    tap_near(y2[N2 - 1], 1, 1e-4, "2nd order step: settles at the DC gain");
    free(t2);
    free(y2);
    jg_analysis_ss_free(s);
    /* expm of a rotation generator */
    double M[4] = {0, -1.3, 1.3, 0}, E[4];
    tap_ok(!jg_analysis_expm(2, M, E, &err) && fabs(E[0] - cos(1.3)) < 1e-14 && fabs(E[2] - sin(1.3)) < 1e-14,
           "expm([0 1.3; -1.3 0]) = rotation by 1.3");
    double big[4] = {-50, 0, 0, 3}, Eb[4];
    jg_analysis_expm(2, big, Eb, &err);
    tap_ok(fabs(Eb[0] - exp(-50)) < 1e-14 * exp(-50) * 1e3 && fabs(Eb[3] - exp(3)) < 1e-13 * exp(3),
           "expm(diag(-50, 3)) (scaling and squaring)");
}

static void discrete(void)
{
    jg_error_t err;
    const double Ts = 0.1;
    /* 1/(z - 0.5) */
    const double A[] = {0.5}, B[] = {1}, C[] = {1};
    jg_analysis_ss_t *s = mk(1, 1, 1, A, B, C, NULL, Ts);
    double re, im, wn, zeta, G;
    jg_analysis_poles(s, &re, &im, &err);
    jg_analysis_damp(re, im, Ts, &wn, &zeta);
    tap_near(wn, -log(0.5) / Ts, 1e-12, "discrete: wn = |ln 0.5| / Ts");
    tap_near(zeta, 1, 1e-12, "discrete: a positive real pole is critically damped");
    tap_ok(!jg_analysis_dcgain(s, &G, &err) && fabs(G - 2) < 1e-12, "discrete DC gain 1/(1 - 0.5) = 2");
    double w = 3, Hr, Hi;
    jg_analysis_freqresp(s, 1, &w, &Hr, &Hi, &err);
    double complex H = 1 / (cexp(I * w * Ts) - 0.5);
    tap_ok(cabs(Hr + I * Hi - H) < 1e-13, "discrete H(e^(jw Ts)) = 1/(e^(jw Ts) - 0.5)");
    double t[20], y[20], d = 0;
    jg_analysis_timeresp(s, JG_ANALYSIS_STEP, 19 * Ts, 20, t, y, &err);
    for (int k = 0; k < 20; k++) d = fmax(d, fabs(y[k] - 2 * (1 - pow(0.5, k))));
    tap_ok(d < 1e-14 && fabs(t[5] - 0.5) < 1e-15, "discrete step y[k] = 2 (1 - 0.5^k)");
    jg_analysis_timeresp(s, JG_ANALYSIS_IMPULSE, 19 * Ts, 20, t, y, &err);
    tap_ok(y[0] == 0 && fabs(y[1] - 10) < 1e-13 && fabs(y[2] - 5) < 1e-13, "discrete impulse: unit area pulse, y[1] = 1/Ts");
    double tf = jg_analysis_tfinal(1, &re, &im, Ts);
    tap_ok(fabs(tf / Ts - round(tf / Ts)) < 1e-9 && tf > 1, "discrete tfinal: whole samples (%g)", tf);
    jg_analysis_tf_t *f = NULL;
    jg_analysis_tf(s, 0, 0, 0, &f, &err);
    tap_ok(f && f->Ts == Ts && f->num[0] == 0 && fabs(f->num[1] - 1) < 1e-12 && fabs(f->den[1] + 0.5) < 1e-12,
           "discrete tf: 1/(z - 0.5)");
    jg_analysis_tf_free(f);
    double g[100];
    jg_analysis_freqgrid(1, &re, &im, 0, NULL, NULL, Ts, 100, g);
    tap_ok(g[99] == M_PI / Ts && g[0] < 0.1 * wn, "discrete grid ends at Nyquist pi/Ts");
    jg_analysis_ss_free(s);
    /* complex pair z = 0.9 e^(+-0.3i) (Ts = 0.1): s = (ln 0.9 +- 0.3 i)/Ts */
    const double r = 0.9, th = 0.3;
    const double A2[] = {2 * r * cos(th), 1, -r * r, 0}, B2[] = {1, 0}, C2[] = {0, 1};
    s = mk(2, 1, 1, A2, B2, C2, NULL, Ts);
    double pr[2], pi2[2];
    jg_analysis_poles(s, pr, pi2, &err);
    same_roots(2, pr, pi2, 2, (double complex[]){r * cexp(I * th), r * cexp(-I * th)}, 1e-12, "discrete pair poles");
    jg_analysis_damp(pr[0], pi2[0], Ts, &wn, &zeta);
    double sr = log(r) / Ts, si = th / Ts;
    tap_near(wn, hypot(sr, si), 1e-12, "discrete pair: wn = |log z|/Ts");
    tap_near(zeta, -sr / hypot(sr, si), 1e-12, "discrete pair: zeta = -cos(angle(log z))");
    jg_analysis_dcgain(s, &G, &err);
    tap_near(G, 1 / (1 - 2 * r * cos(th) + r * r), 1e-12, "discrete pair: DC gain 1/den(1)");
    /* a hidden discrete mode: minreal drops it */
    double A3[9] = {0.5, 0, 0, 0, -0.2, 0, 0, 0, 0.9}, B3[3] = {1, 1, 0}, C3[3] = {1, 2, 3};
    rotate3(A3, B3, C3, 1, 1);
    jg_analysis_ss_t *s3 = mk(3, 1, 1, A3, B3, C3, NULL, Ts), *m3 = NULL;
    jg_analysis_minreal(s3, 0, &m3, &err);
    tap_ok(m3 && m3->nx == 2 && m3->Ts == Ts, "discrete minreal: order 2, Ts kept");
    jg_analysis_ss_free(m3);
    jg_analysis_ss_free(s3);
    jg_analysis_ss_free(s);
}

static void bad_args(void)
{
    jg_error_t err;
    jg_analysis_ss_t *s = NULL;
    double A[] = {NAN};
    tap_ok(jg_analysis_ss_create(1, 0, 0, A, NULL, NULL, NULL, 0, &s, &err) == JG_ARG && !s &&
               strstr(err.msg, "A(1,1)"),
           "NaN entry: JG_ARG naming A(1,1) (%s)", err.msg);
    tap_ok(jg_analysis_ss_create(-1, 0, 0, NULL, NULL, NULL, NULL, 0, &s, &err) == JG_ARG, "negative size: JG_ARG");
    tap_ok(jg_analysis_ss_create(0, 0, 0, NULL, NULL, NULL, NULL, -0.1, &s, &err) == JG_ARG, "Ts < 0: JG_ARG");
    tap_ok(jg_analysis_ss_create(0, 0, 0, NULL, NULL, NULL, NULL, INFINITY, &s, &err) == JG_ARG, "Ts = inf: JG_ARG");
    s = mk(0, 1, 1, NULL, NULL, NULL, (double[]){1}, 0);
    jg_analysis_ss_t *c = NULL;
    tap_ok(jg_analysis_ss_channel(s, 1, 0, &c, &err) == JG_ARG && !c, "channel out of range: JG_ARG");
    jg_analysis_tf_t *tf = NULL;
    tap_ok(jg_analysis_tf(s, 0, 3, 0, &tf, &err) == JG_ARG && !tf, "tf channel out of range: JG_ARG");
    int64_t nz = -1;
    tap_ok(!jg_analysis_zeros(s, &nz, NULL, NULL, NULL, &err) && nz == 0, "no states: no zeros");
    tap_ok(jg_analysis_expm(2, (double[]){INFINITY, 0, 0, 0}, (double[4]){0}, &err) == JG_ARG, "expm of inf: JG_ARG");
    jg_analysis_ss_free(s);
    jg_analysis_ss_free(NULL);
    jg_analysis_tf_free(NULL);
    /* a linearization result: a jg_lin_sys_t converted */
    jg_lin_sys_t ls = {0};
    ls.nx = 1, ls.nu = 1, ls.ny = 1;
    ls.A = cs_dl_spalloc(1, 1, 1, 1, 0);   /* compressed column */
    ls.A->p[0] = 0, ls.A->p[1] = 1, ls.A->i[0] = 0, ls.A->x[0] = -3;
    jg_analysis_ss_t *fl = NULL;
    tap_ok(!jg_analysis_ss_from_lin(&ls, 0, &fl, &err) && fl && fl->A[0] == -3 && fl->B[0] == 0,
           "from a jg_lin_sys_t (missing matrices are zero)");
    jg_analysis_ss_free(fl);
    cs_dl_spfree(ls.A);
}

/* a compressed-column copy of the dense r x c M (column-major) */
static cs_dl *csc(int64_t r, int64_t c, const double *M)
{
    cs_dl *A = cs_dl_spalloc(r, c, r * c + 1, 1, 0);
    int64_t nz = 0;
    for (int64_t j = 0; j < c; j++) {
        A->p[j] = nz;
        for (int64_t i = 0; i < r; i++)
            if (M[i + j * r] != 0) A->i[nz] = i, A->x[nz++] = M[i + j * r];
    }
    A->p[c] = nz;
    return A;
}

/* Internal delays: the plant 1/(s + 1) with its output fed back through
 * delays, x' = -x + u - sum g_k w_k, y = z_k = x, w_k(t) = z_k(t - tau_k):
 * G(s) = 1 / (s + 1 + sum g_k e^(-s tau_k)).  The analyses refuse it (the
 * delay-free part's answers are not the delayed system's); its frequency
 * response is exact against the closed form. */
static void delays(void)
{
    jg_error_t err;
    jg_error_clear(&err);
    static char *in[] = {"u", "Delay", "Delay2"}, *out[] = {"y", "Delay", "Delay2"}, *st[] = {"Plant"};
    double tau[2] = {0.5, 0.2}, g[2] = {1, 0.5};
    for (int nd = 1; nd <= 2; nd++) {
        double A[1] = {-1}, B[3] = {1, -g[0], -g[1]}, C[3] = {1, 1, 1}, D[9] = {0};
        jg_lin_sys_t ls = {.nx = 1, .nu = 1 + nd, .ny = 1 + nd, .state_names = st, .input_names = in,
                           .output_names = out, .ndelays = nd, .delays = tau};
        ls.A = csc(1, 1, A), ls.B = csc(1, 1 + nd, B), ls.C = csc(1 + nd, 1, C), ls.D = csc(1 + nd, 1 + nd, D);
        enum { NW = 7 };
        const double w[NW] = {0, 0.05, 0.7, 1, 3, 12.5, 80};
        double re[NW], im[NW], mag[NW], ph[NW], worst = 0;
        jg_status_t s1 = jg_analysis_lin_freqresp(&ls, NW, w, re, im, &err);
        for (int k = 0; k < NW && !s1; k++) {
            double complex sk = I * w[k], den = sk + 1;
            for (int q = 0; q < nd; q++) den += g[q] * cexp(-sk * tau[q]);
            worst = fmax(worst, cabs(re[k] + I * im[k] - 1 / den) / cabs(1 / den));
        }
        tap_ok(!s1 && worst < 1e-13, "%d delay%s: H(jw) closed through e^(-jw tau) = 1/(jw + 1 + sum g e^(-jw tau)) "
               "at 7 frequencies, 0..80 rad/s (relative error %.2g)", nd, nd == 1 ? "" : "s", worst);
        tap_ok(!jg_analysis_lin_bode(&ls, NW, w, mag, ph, &err) && fabs(mag[0] - 20 * log10(1 / (1 + g[0] + (nd > 1) * g[1]))) < 1e-12 &&
                   fabs(ph[0]) < 1e-12,
               "%d delay%s: Bode at w = 0 is the DC gain 1/(1 + sum g) with phase 0", nd, nd == 1 ? "" : "s");
        /* the grid: the unwrapped phase turns by under 180 degrees a step */
        double wg[500], mg[500], pg[500], jump = 0;
        jg_status_t s2 = jg_analysis_lin_freqgrid(&ls, 500, wg, &err);
        if (!s2) s2 = jg_analysis_lin_bode(&ls, 500, wg, mg, pg, &err);
        for (int k = 1; k < 500 && !s2; k++) jump = fmax(jump, fabs(pg[k] - pg[k - 1]));
        tap_ok(!s2 && jump < 90 && wg[0] <= 0.1 + 1e-12 && wg[499] >= 10 / tau[nd - 1] && wg[499] <= 1000,
               "%d delay%s: frequency grid %.3g..%.3g rad/s, largest phase step %.3g degrees", nd,
               nd == 1 ? "" : "s", wg[0], wg[499], jump);
        /* refused where the delay-free part would answer wrongly */
        jg_analysis_ss_t *ss = NULL;
        tap_ok(jg_analysis_ss_from_lin(&ls, 0, &ss, &err) == JG_ARG && !ss && strstr(err.msg, "internal delay") &&
                   strstr(err.msg, "Delay 0.5 s") && strstr(err.msg, "not those of the delay-free part"),
               "%d delay%s: jg_analysis_ss_from_lin refuses, naming the delays (%s)", nd, nd == 1 ? "" : "s", err.msg);
        jg_lin_sys_t *cv = NULL;
        tap_ok(jg_analysis_lin_convert(&ls, 0.1, JG_ANALYSIS_ZOH, 0, &cv, &err) == JG_ARG && !cv &&
                   strstr(err.msg, "internal delay"),
               "%d delay%s: jg_analysis_lin_convert (c2d) refuses instead of dropping the delays", nd,
               nd == 1 ? "" : "s");
        if (nd == 1) {
            ls.Ts = 0.1;
            tap_ok(jg_analysis_lin_freqresp(&ls, NW, w, re, im, &err) == JG_ARG, "delays in a discrete model: JG_ARG");
            ls.Ts = 0;
            ls.ndelays = 3;
            tap_ok(jg_analysis_lin_freqresp(&ls, NW, w, re, im, &err) == JG_ARG, "more delays than inputs: JG_ARG");
            ls.ndelays = 1;
            tau[0] = -1;
            tap_ok(jg_analysis_lin_freqgrid(&ls, 500, wg, &err) == JG_ARG, "a negative delay: JG_ARG");
            tau[0] = 0.5;
        }
        cs_dl_spfree(ls.A), cs_dl_spfree(ls.B), cs_dl_spfree(ls.C), cs_dl_spfree(ls.D);
    }
    /* a long input delay, e^(-20 s) / (s + 1) (x' = -x + w, z = u, y = x): a
     * grid to 10 rad/s would turn its phase by 200 degrees a step at the top;
     * the grid ends lower, and the unwrapped phase is -20 w - atan(w) */
    {
        double A[1] = {-1}, B[2] = {0, 1}, C[2] = {1, 0}, D[4] = {0, 1, 0, 0}, tl = 20;
        jg_lin_sys_t ls = {.nx = 1, .nu = 2, .ny = 2, .state_names = st, .input_names = in,
                           .output_names = out, .ndelays = 1, .delays = &tl};
        ls.A = csc(1, 1, A), ls.B = csc(1, 2, B), ls.C = csc(2, 1, C), ls.D = csc(2, 2, D);
        double wg[500], mg[500], pg[500], worst = 0;
        jg_status_t s2 = jg_analysis_lin_freqgrid(&ls, 500, wg, &err);
        if (!s2) s2 = jg_analysis_lin_bode(&ls, 500, wg, mg, pg, &err);
        for (int k = 0; k < 500 && !s2; k++)
            worst = fmax(worst, fabs(pg[k] - (-20 * wg[k] - atan(wg[k])) * 180 / M_PI) +
                                    fabs(mg[k] + 10 * log10(1 + wg[k] * wg[k])));
        tap_ok(!s2 && wg[499] < 10 && wg[499] >= 1 && wg[0] <= 0.005 && worst < 1e-9,
               "input delay 20 s: grid %.3g..%.3g rad/s (not to 10), magnitude and unwrapped phase "
               "-20 w - atan(w) exact (error %.2g)", wg[0], wg[499], worst);
        cs_dl_spfree(ls.A), cs_dl_spfree(ls.B), cs_dl_spfree(ls.C), cs_dl_spfree(ls.D);
    }
    /* without delays: jg_analysis_freqresp of the same model, continuous and
     * discrete */
    for (int d = 0; d < 2; d++) {
        double A[4] = {-0.3, -4, 1, -0.6}, B[2] = {0, 0.5}, C[2] = {1, 0}, D[1] = {0.1};
        if (d) A[0] = 0.9, A[1] = -0.2, A[2] = 0.1, A[3] = 0.7;
        jg_lin_sys_t ls = {.nx = 2, .nu = 1, .ny = 1, .Ts = d ? 0.1 : 0};
        ls.A = csc(2, 2, A), ls.B = csc(2, 1, B), ls.C = csc(1, 2, C), ls.D = csc(1, 1, D);
        jg_analysis_ss_t *ss = mk(2, 1, 1, A, B, C, D, ls.Ts);
        const double w[4] = {0.01, 1, 2, 30};
        double r1[4], i1[4], r2[4], i2[4], worst = 0;
        jg_status_t s1 = jg_analysis_lin_freqresp(&ls, 4, w, r1, i1, &err);
        jg_status_t s2 = jg_analysis_freqresp(ss, 4, w, r2, i2, &err);
        for (int k = 0; k < 4; k++) worst = fmax(worst, cabs(r1[k] + I * i1[k] - (r2[k] + I * i2[k])));
        tap_ok(!s1 && !s2 && worst < 1e-15, "no delays (%s): jg_analysis_lin_freqresp = jg_analysis_freqresp",
               d ? "discrete" : "continuous");
        jg_analysis_ss_free(ss);
        cs_dl_spfree(ls.A), cs_dl_spfree(ls.B), cs_dl_spfree(ls.C), cs_dl_spfree(ls.D);
    }
}

int main(void)
{
    second_order();
    zeros_siso();
    zeros_mimo();
    minimal();
    dcgains();
    time_responses();
    discrete();
    bad_args();
    delays();
    return tap_done();
}
