/* test_linearize_delays.c -- TransportDelays in linearization
 * (jg_lin_opts_t.delays): exact delays (the delay-free H and its internal
 * delays) against a hand derivation and the closed delayed loop's frequency
 * response against its closed form; Pade orders 0, 1, 2 against the Pade
 * transfer function's coefficients, and equal to the blocks' own PadeOrder;
 * chained delays (a delay feeding a delay), vector delays in a SubSystem, a
 * singular loop among delays, refusals (discrete linearization, openings and
 * input points on a cut signal, bad orders) and the writers' handling. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

/* In1 -> Err (+-) -> Plant 1/(s+1) -> Out1, Plant -> Delay (tau) -> Err:2. */
static const char *loop_model(double tau, int order)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"name\": \"loop\", \"blocks\": ["
             "{\"name\": \"In1\", \"type\": \"Inport\", \"Port\": 1},"
             "{\"name\": \"Err\", \"type\": \"Sum\", \"Inputs\": \"+-\"},"
             "{\"name\": \"Plant\", \"type\": \"TransferFcn\", \"Numerator\": [1], "
             "\"Denominator\": [1, 1]},"
             "{\"name\": \"Delay\", \"type\": \"TransportDelay\", \"DelayTime\": %.17g, "
             "\"PadeOrder\": %d},"
             "{\"name\": \"Out1\", \"type\": \"Outport\", \"Port\": 1}],"
             "\"lines\": [{\"src\": \"In1:1\", \"dst\": \"Err:1\"},"
             "{\"src\": \"Err:1\", \"dst\": \"Plant:1\"},"
             "{\"src\": \"Plant:1\", \"dst\": [\"Out1:1\", \"Delay:1\"]},"
             "{\"src\": \"Delay:1\", \"dst\": \"Err:2\"}]}",
             tau, order);
    return buf;
}

/* In1 -> D1 (t1) -> D2 (t2) -> Out1: a delay that feeds a delay (D22 != 0). */
static const char *chain_model(double t1, double t2, int order)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"name\": \"chain\", \"blocks\": ["
             "{\"name\": \"In1\", \"type\": \"Inport\", \"Port\": 1},"
             "{\"name\": \"D1\", \"type\": \"TransportDelay\", \"DelayTime\": %.17g, \"PadeOrder\": %d},"
             "{\"name\": \"D2\", \"type\": \"TransportDelay\", \"DelayTime\": %.17g, \"PadeOrder\": %d},"
             "{\"name\": \"Out1\", \"type\": \"Outport\", \"Port\": 1}],"
             "\"lines\": [{\"src\": \"In1:1\", \"dst\": \"D1:1\"}, {\"src\": \"D1:1\", \"dst\": \"D2:1\"},"
             "{\"src\": \"D2:1\", \"dst\": \"Out1:1\"}]}",
             t1, order, t2, order);
    return buf;
}

/* A SubSystem with an Integrator, a vector delay (two elements, two delay
 * times) in its feedback and a scalar delay to the output:
 *   x' = u - 2 w,  w = x(t - [0.2; 0.7]) (elementwise), y = x(t - 0.4). */
static const char *vector_model(int order)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"name\": \"vec\", \"blocks\": ["
             "{\"name\": \"In1\", \"type\": \"Inport\", \"Port\": 1},"
             "{\"name\": \"Sys\", \"type\": \"SubSystem\", \"blocks\": ["
             " {\"name\": \"u\", \"type\": \"Inport\", \"Port\": 1},"
             " {\"name\": \"Err\", \"type\": \"Sum\", \"Inputs\": \"+-\"},"
             " {\"name\": \"K\", \"type\": \"Gain\", \"Gain\": 2},"
             " {\"name\": \"X\", \"type\": \"Integrator\", \"InitialCondition\": [0, 0]},"
             " {\"name\": \"Vd\", \"type\": \"TransportDelay\", \"DelayTime\": [0.2, 0.7], "
             "\"PadeOrder\": %d},"
             " {\"name\": \"Od\", \"type\": \"TransportDelay\", \"DelayTime\": 0.4, \"PadeOrder\": %d},"
             " {\"name\": \"y\", \"type\": \"Outport\", \"Port\": 1}],"
             " \"lines\": [{\"src\": \"u:1\", \"dst\": \"Err:1\"}, {\"src\": \"Err:1\", \"dst\": \"X:1\"},"
             " {\"src\": \"X:1\", \"dst\": [\"Vd:1\", \"Od:1\"]}, {\"src\": \"Vd:1\", \"dst\": \"K:1\"},"
             " {\"src\": \"K:1\", \"dst\": \"Err:2\"}, {\"src\": \"Od:1\", \"dst\": \"y:1\"}]},"
             "{\"name\": \"Out1\", \"type\": \"Outport\", \"Port\": 1}],"
             "\"lines\": [{\"src\": \"In1:1\", \"dst\": \"Sys:1\"}, {\"src\": \"Sys:1\", \"dst\": \"Out1:1\"}]}",
             order, order);
    return buf;
}

/* Solve the small complex system M v = b (n x n, row-major) in place by
 * Gaussian elimination with partial pivoting; 0 ok, -1 singular. */
static int csolve(int n, double complex *M, double complex *b, int nrhs)
{
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (cabs(M[i * n + k]) > cabs(M[p * n + k])) p = i;
        if (cabs(M[p * n + k]) == 0) return -1;
        for (int j = 0; j < n; j++) {
            double complex t = M[k * n + j];
            M[k * n + j] = M[p * n + j], M[p * n + j] = t;
        }
        for (int j = 0; j < nrhs; j++) {
            double complex t = b[k * nrhs + j];
            b[k * nrhs + j] = b[p * nrhs + j], b[p * nrhs + j] = t;
        }
        for (int i = k + 1; i < n; i++) {
            double complex f = M[i * n + k] / M[k * n + k];
            for (int j = k; j < n; j++) M[i * n + j] -= f * M[k * n + j];
            for (int j = 0; j < nrhs; j++) b[i * nrhs + j] -= f * b[k * nrhs + j];
        }
    }
    for (int k = n - 1; k >= 0; k--)
        for (int j = 0; j < nrhs; j++) {
            double complex s = b[k * nrhs + j];
            for (int i = k + 1; i < n; i++) s -= M[k * n + i] * b[i * nrhs + j];
            b[k * nrhs + j] = s / M[k * n + k];
        }
    return 0;
}

#define NMAX 24

/* The full frequency response H(jw) = C (jw I - A)^-1 B + D (ny x nu,
 * row-major) of a small system. */
static int freqresp(const jg_lin_sys_t *s, double w, double complex *H)
{
    int n = (int)s->nx, nu = (int)s->nu, ny = (int)s->ny;
    if (n > NMAX || nu > NMAX || ny > NMAX) return -1;
    double complex M[NMAX * NMAX], V[NMAX * NMAX];
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) M[i * n + j] = (i == j ? I * w : 0) - fx_entry(s->A, i, j);
        for (int j = 0; j < nu; j++) V[i * nu + j] = fx_entry(s->B, i, j);
    }
    if (n && csolve(n, M, V, nu)) return -1;
    for (int i = 0; i < ny; i++)
        for (int j = 0; j < nu; j++) {
            double complex h = fx_entry(s->D, i, j);
            for (int k = 0; k < n; k++) h += fx_entry(s->C, i, k) * V[k * nu + j];
            H[i * nu + j] = h;
        }
    return 0;
}

/* The closed delayed system's response from input `in` to output `out` (of
 * the user channels): G = H11 + H12 Δ (I - H22 Δ)^-1 H21, Δ = diag(e^-jwτ). */
static int delayed_resp(const jg_lin_sys_t *s, double w, int out, int in, double complex *g)
{
    double complex H[NMAX * NMAX], M[NMAX * NMAX], v[NMAX];
    int nu = (int)s->nu, ny = (int)s->ny, nd = (int)s->ndelays, u1 = nu - nd, y1 = ny - nd;
    if (freqresp(s, w, H)) return -1;
    /* (I - H22 Δ) v = H21(:, in); G = H11 + H12 Δ v */
    for (int i = 0; i < nd; i++) {
        for (int j = 0; j < nd; j++)
            M[i * nd + j] = (i == j) - H[(y1 + i) * nu + u1 + j] * cexp(-I * w * s->delays[j]);
        v[i] = H[(y1 + i) * nu + in];
    }
    if (nd && csolve(nd, M, v, 1)) return -1;
    double complex G = H[out * nu + in];
    for (int j = 0; j < nd; j++) G += H[out * nu + u1 + j] * cexp(-I * w * s->delays[j]) * v[j];
    *g = G;
    return 0;
}

/* The (n, n) Pade approximant of e^(-sτ) at s, from its coefficients
 * c_k = (2n-k)! n! / ((2n)! k! (n-k)!), written out for n = 0, 1, 2. */
static double complex pade_tf(int n, double tau, double complex s)
{
    double complex x = s * tau;
    if (n == 0) return 1;
    if (n == 1) return (1 - x / 2) / (1 + x / 2);
    return (1 - x / 2 + x * x / 12) / (1 + x / 2 + x * x / 12);
}

static jg_status_t run(const char *json, jg_lin_delays_t mode, int order, jg_lin_method_t m,
                       jg_lin_sys_t **s, fx_t *f)
{
    jg_lin_opts_t o = {.delays = mode, .pade_order = order};
    *s = NULL;
    jg_status_t st = fx_load(f, json, &o);
    if (!st) st = jg_lin_run(f->l, m, JG_GRAPH_REDUCE_MARKOWITZ, s, NULL, &f->err);
    if (st) printf("#   %s\n", f->err.msg);
    return st;
}

static const double freqs[] = {0.05, 0.3, 1, 2.5, 7, 20};
#define NFREQ (int)(sizeof freqs / sizeof freqs[0])

/* Exact: x' = -x + u - w, y = x, z = x (the delay reads the plant), the
 * Delay's own Pade states (PadeOrder 3) dropped. */
static void test_loop_exact(void)
{
    static const jg_lin_method_t ms[3] = {JG_LIN_GRAPH, JG_LIN_MATRIX, JG_LIN_PERTURB};
    for (int k = 0; k < 3; k++) {
        fx_t f;
        jg_lin_sys_t *s;
        const char *mn = jg_lin_method_name(ms[k]);
        jg_status_t st = run(loop_model(0.5, 3), JG_LIN_DELAYS_EXACT, 0, ms[k], &s, &f);
        if (!tap_ok(!st && s, "loop, exact, %s: linearizes", mn)) {
            fx_unload(&f);
            continue;
        }
        double tol = ms[k] == JG_LIN_PERTURB ? 1e-7 : 1e-14;
        tap_ok(s->nx == 1 && s->nu == 2 && s->ny == 2 && s->ndelays == 1,
               "loop, exact, %s: 1 state (the Delay's 3 Pade states dropped), 2 inputs, 2 outputs, "
               "1 delay (got %lld, %lld, %lld, %lld)", mn, (long long)s->nx, (long long)s->nu,
               (long long)s->ny, (long long)s->ndelays);
        if (s->nx == 1 && s->nu == 2 && s->ny == 2 && s->ndelays == 1) {
            const double want[4][4] = {{-1}, {1, -1}, {1, 1}, {0, 0, 0, 0}};
            double err = fabs(fx_entry(s->A, 0, 0) - want[0][0]);
            for (int j = 0; j < 2; j++) err = fmax(err, fabs(fx_entry(s->B, 0, j) - want[1][j]));
            for (int i = 0; i < 2; i++) err = fmax(err, fabs(fx_entry(s->C, i, 0) - want[2][i]));
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++) err = fmax(err, fabs(fx_entry(s->D, i, j)));
            tap_ok(err <= tol, "loop, exact, %s: H = [-1 | 1 -1; 1 | 0 0; 1 | 0 0] (error %.2g)", mn,
                   err);
            tap_near(s->delays[0], 0.5, 0, "loop, exact: InternalDelay = 0.5");
            tap_ok(!strcmp(s->state_names[0], "Plant") && !strcmp(s->input_names[1], "Delay") &&
                       !strcmp(s->output_names[1], "Delay") && !strcmp(s->input_names[0], "In1") &&
                       !strcmp(s->output_names[0], "Out1"),
                   "loop, exact, %s: names Plant; In1, Delay; Out1, Delay", mn);
            /* the closed delayed loop: 1 / (jw + 1 + e^-jwτ) */
            double worst = 0;
            for (int q = 0; q < NFREQ; q++) {
                double w = freqs[q];
                double complex g, want_g = 1 / (I * w + 1 + cexp(-I * w * 0.5));
                if (delayed_resp(s, w, 0, 0, &g)) worst = INFINITY;
                else worst = fmax(worst, cabs(g - want_g) / cabs(want_g));
            }
            tap_ok(worst <= 1e2 * tol, "loop, exact, %s: the delayed loop's response is "
                   "1/(jw + 1 + e^-jw0.5) at %d frequencies (relative error %.2g)", mn, NFREQ, worst);
        }
        jg_lin_sys_free(s);
        fx_unload(&f);
    }
}

/* Pade order N: the loop 1 / (s + 1 + P_N(s)); the same system as the model
 * with PadeOrder N on the Delay (states, names and values). */
static void test_loop_pade(void)
{
    for (int n = 0; n <= 4; n++) {
        fx_t f, g;
        jg_lin_sys_t *s, *r;
        jg_status_t st = run(loop_model(0.5, 3), JG_LIN_DELAYS_PADE, n, JG_LIN_GRAPH, &s, &f);
        jg_status_t sr = run(loop_model(0.5, n), JG_LIN_DELAYS_BLOCK, 0, JG_LIN_GRAPH, &r, &g);
        if (tap_ok(!st && !sr, "loop, pade:%d: linearizes (and with PadeOrder %d)", n, n)) {
            tap_ok(s->nx == 1 + n && s->nu == 1 && s->ny == 1 && s->ndelays == 0 && !s->delays,
                   "loop, pade:%d: %d states, 1 input, 1 output, no delays", n, 1 + n);
            int same = s->nx == r->nx;
            for (int64_t k = 0; same && k < s->nx; k++) same = !strcmp(s->state_names[k], r->state_names[k]);
            double d = same ? jg_lin_sys_diff(s, r, NULL) : INFINITY;
            tap_ok(same && d <= 1e-15, "loop, pade:%d: equals the model with PadeOrder %d (names; "
                   "difference %.2g)", n, n, d);
            if (n <= 2) {
                double worst = 0;
                for (int q = 0; q < NFREQ; q++) {
                    double w = freqs[q];
                    double complex H, want = 1 / (I * w + 1 + pade_tf(n, 0.5, I * w));
                    if (freqresp(s, w, &H)) worst = INFINITY;
                    else worst = fmax(worst, cabs(H - want) / cabs(want));
                }
                tap_ok(worst <= 1e-12, "loop, pade:%d: response 1/(jw + 1 + P_%d(jw)) (relative "
                       "error %.2g)", n, n, worst);
            }
        }
        jg_lin_sys_free(s);
        jg_lin_sys_free(r);
        fx_unload(&f);
        fx_unload(&g);
    }
}

/* The delay alone (In1 -> D -> Out1): the Pade approximant's coefficients.
 * P_1 = (1 - sτ/2)/(1 + sτ/2) = -1 + (4/τ)/(s + 2/τ): pole -2/τ, D = -1,
 * C B = 4/τ; P_2: denominator s^2 + 6/τ s + 12/τ^2 (trace and determinant
 * of A), D = 1; both also through the response. */
static void test_pade_coefficients(void)
{
    const double tau = 0.8;
    static const char single[] =
        "{\"name\": \"one\", \"blocks\": [{\"name\": \"In1\", \"type\": \"Inport\", \"Port\": 1},"
        "{\"name\": \"D\", \"type\": \"TransportDelay\", \"DelayTime\": 0.8},"
        "{\"name\": \"Out1\", \"type\": \"Outport\", \"Port\": 1}],"
        "\"lines\": [{\"src\": \"In1:1\", \"dst\": \"D:1\"}, {\"src\": \"D:1\", \"dst\": \"Out1:1\"}]}";
    for (int n = 0; n <= 2; n++) {
        fx_t f;
        jg_lin_sys_t *s;
        if (!tap_ok(!run(single, JG_LIN_DELAYS_PADE, n, JG_LIN_MATRIX, &s, &f) && s->nx == n,
                    "delay alone, pade:%d: %d states", n, n)) {
            jg_lin_sys_free(s);
            fx_unload(&f);
            continue;
        }
        double d = fx_entry(s->D, 0, 0);
        tap_near(d, n % 2 ? -1 : 1, 0, n == 0 ? "pade:0: D = 1 (y = u)" : n == 1 ? "pade:1: D = -1"
                                                                                 : "pade:2: D = 1");
        if (n == 1) {
            tap_near(fx_entry(s->A, 0, 0), -2 / tau, 1e-15, "pade:1: the pole -2/tau");
            /* numerator s - 2/τ times -1: C B = H(s)(s + 2/τ) - D (s + 2/τ) at s = 0 */
            double cb = fx_entry(s->C, 0, 0) * fx_entry(s->B, 0, 0);
            tap_near(cb, 4 / tau, 1e-14, "pade:1: C B = 4/tau (numerator -(s - 2/tau))");
        }
        if (n == 2) {
            double a11 = fx_entry(s->A, 0, 0), a12 = fx_entry(s->A, 0, 1), a21 = fx_entry(s->A, 1, 0),
                   a22 = fx_entry(s->A, 1, 1);
            tap_near(-(a11 + a22), 6 / tau, 1e-14, "pade:2: denominator s^2 + 6/tau s + ...");
            tap_near(a11 * a22 - a12 * a21, 12 / (tau * tau), 1e-13,
                     "pade:2: denominator ... + 12/tau^2");
        }
        double worst = 0;
        for (int q = 0; q < NFREQ; q++) {
            double complex H;
            if (freqresp(s, freqs[q], &H)) worst = INFINITY;
            else worst = fmax(worst, cabs(H - pade_tf(n, tau, I * freqs[q])));
        }
        tap_ok(worst <= 1e-13, "delay alone, pade:%d: response P_%d(jw) (error %.2g)", n, n, worst);
        jg_lin_sys_free(s);
        fx_unload(&f);
    }
}

/* Chained delays: exact H has D = [0 0 1; 1 0 0; 0 1 0] over (In1, D1, D2)
 * -> (Out1, D1, D2); closing D22 = [0 0; 1 0] is the Pade path's algebraic
 * loop among delays.  Pade results equal the model's PadeOrder on both. */
static void test_chain(void)
{
    fx_t f;
    jg_lin_sys_t *s;
    if (tap_ok(!run(chain_model(0.3, 0.9, 0), JG_LIN_DELAYS_EXACT, 0, JG_LIN_GRAPH, &s, &f),
               "chain, exact: linearizes")) {
        int ok = s->nx == 0 && s->nu == 3 && s->ny == 3 && s->ndelays == 2;
        const double want[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
        for (int i = 0; ok && i < 3; i++)
            for (int j = 0; j < 3; j++) ok &= fx_entry(s->D, i, j) == want[i][j];
        tap_ok(ok, "chain, exact: no states, D = [0 0 1; 1 0 0; 0 1 0]");
        tap_ok(s->ndelays == 2 && s->delays[0] == 0.3 && s->delays[1] == 0.9,
               "chain, exact: InternalDelay = [0.3, 0.9]");
        double worst = 0;
        for (int q = 0; ok && q < NFREQ; q++) {
            double complex g;
            if (delayed_resp(s, freqs[q], 0, 0, &g)) worst = INFINITY;
            else worst = fmax(worst, cabs(g - cexp(-I * freqs[q] * 1.2)));
        }
        tap_ok(ok && worst <= 1e-14, "chain, exact: response e^(-jw 1.2) (error %.2g)", worst);
    }
    jg_lin_sys_free(s);
    fx_unload(&f);
    for (int n = 0; n <= 3; n++) {
        fx_t g;
        jg_lin_sys_t *r;
        jg_status_t st = run(chain_model(0.3, 0.9, 2), JG_LIN_DELAYS_PADE, n, JG_LIN_GRAPH, &s, &f);
        jg_status_t sr = run(chain_model(0.3, 0.9, n), JG_LIN_DELAYS_BLOCK, 0, JG_LIN_GRAPH, &r, &g);
        double d = !st && !sr && s->nx == r->nx ? jg_lin_sys_diff(s, r, NULL) : INFINITY;
        tap_ok(d <= 1e-14, "chain, pade:%d: equals the model with PadeOrder %d (%.2g)", n, n, d);
        if (!st && n <= 2) {
            double worst = 0;
            for (int q = 0; q < NFREQ; q++) {
                double complex H, w = I * freqs[q];
                if (freqresp(s, freqs[q], &H)) worst = INFINITY;
                else worst = fmax(worst, cabs(H - pade_tf(n, 0.3, w) * pade_tf(n, 0.9, w)));
            }
            tap_ok(worst <= 1e-13, "chain, pade:%d: response P(0.3) P(0.9) (error %.2g)", n, worst);
        }
        jg_lin_sys_free(s);
        jg_lin_sys_free(r);
        fx_unload(&f);
        fx_unload(&g);
    }
}

/* Vector delays in a SubSystem: exact channels per element, named PATH(i);
 * each element of the width-2 Integrator is its own loop, so by hand
 *   X_k(s) = U / (s + 2 e^{-s τ_k}),  Y_k = e^{-0.4 s} X_k. */
static void test_vector(void)
{
    fx_t f;
    jg_lin_sys_t *s;
    if (tap_ok(!run(vector_model(1), JG_LIN_DELAYS_EXACT, 0, JG_LIN_MATRIX, &s, &f),
               "vector, exact: linearizes")) {
        tap_ok(s->nx == 2 && s->ndelays == 4 && s->nu == 1 + 4 && s->ny == 2 + 4,
               "vector, exact: 2 states, 4 delay channels (got %lld states, %lld delays)",
               (long long)s->nx, (long long)s->ndelays);
        if (s->ndelays == 4) {
            static const char *const names[4] = {"Sys/Vd(1)", "Sys/Vd(2)", "Sys/Od(1)", "Sys/Od(2)"};
            static const double taus[4] = {0.2, 0.7, 0.4, 0.4};
            int ok = 1;
            for (int k = 0; k < 4; k++)
                ok &= !strcmp(s->input_names[1 + k], names[k]) &&
                      !strcmp(s->output_names[2 + k], names[k]) && s->delays[k] == taus[k];
            tap_ok(ok, "vector, exact: channels Sys/Vd(1..2), Sys/Od(1..2), delays 0.2 0.7 0.4 0.4");
            double worst = 0;
            for (int q = 0; q < NFREQ; q++) {
                double w = freqs[q];
                for (int e = 0; e < 2; e++) {
                    double complex g, want = cexp(-I * w * 0.4) / (I * w + 2 * cexp(-I * w * taus[e]));
                    if (delayed_resp(s, w, e, 0, &g)) worst = INFINITY;
                    else worst = fmax(worst, cabs(g - want) / cabs(want));
                }
            }
            tap_ok(worst <= 1e-12, "vector, exact: responses e^-0.4jw / (jw + 2 e^-jwτ_k) "
                   "(relative error %.2g)", worst);
        }
    }
    jg_lin_sys_free(s);
    fx_unload(&f);
    for (int n = 0; n <= 2; n++) {
        fx_t g;
        jg_lin_sys_t *r;
        jg_status_t st = run(vector_model(3), JG_LIN_DELAYS_PADE, n, JG_LIN_GRAPH, &s, &f);
        jg_status_t sr = run(vector_model(n), JG_LIN_DELAYS_BLOCK, 0, JG_LIN_GRAPH, &r, &g);
        int same = !st && !sr && s->nx == r->nx;
        for (int64_t k = 0; same && k < s->nx; k++) same = !strcmp(s->state_names[k], r->state_names[k]);
        double d = same ? jg_lin_sys_diff(s, r, NULL) : INFINITY;
        tap_ok(d <= 1e-14, "vector, pade:%d: equals the model with PadeOrder %d (%lld states, "
               "names in the blocks' order; %.2g)", n, n, (long long)(st ? -1 : s->nx), d);
        jg_lin_sys_free(s);
        jg_lin_sys_free(r);
        fx_unload(&f);
        fx_unload(&g);
    }
}

/* A delay whose output drives its own input (through a unit Gain): z = w,
 * so order 0 (w = z) is a singular loop; order 1 (D = -1) is not; exact is
 * fine.  An output point on the cut signal measures w. */
static void test_self_loop_and_points(void)
{
    static const char self[] =
        "{\"name\": \"self\", \"blocks\": [{\"name\": \"In1\", \"type\": \"Inport\", \"Port\": 1},"
        "{\"name\": \"Add\", \"type\": \"Sum\", \"Inputs\": \"++\"},"
        "{\"name\": \"D\", \"type\": \"TransportDelay\", \"DelayTime\": 1},"
        "{\"name\": \"Out1\", \"type\": \"Outport\", \"Port\": 1}],"
        "\"lines\": [{\"src\": \"In1:1\", \"dst\": \"Add:1\"}, {\"src\": \"D:1\", \"dst\": [\"Add:2\", \"Out1:1\"]},"
        "{\"src\": \"Add:1\", \"dst\": \"D:1\"}]}";
    fx_t f;
    jg_lin_sys_t *s;
    jg_lin_opts_t o = {.delays = JG_LIN_DELAYS_PADE, .pade_order = 0};
    jg_status_t st = fx_load(&f, self, &o);
    if (!st) st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &f.err);
    tap_ok(st == JG_SINGULAR_LOOP && strstr(f.err.msg, "singular"),
           "self loop, pade:0: JG_SINGULAR_LOOP (%s)", f.err.msg);
    if (!st) jg_lin_sys_free(s);
    fx_unload(&f);
    /* order 1, τ = 1: x' = -2 x + z, w = 4 x - z, z = u + w, so w = 2 x - u/2,
     * z = 2 x + u/2, x' = u/2 and y = w */
    st = run(self, JG_LIN_DELAYS_PADE, 1, JG_LIN_GRAPH, &s, &f);
    tap_ok(!st && s->nx == 1, "self loop, pade:1: linearizes, 1 state");
    if (!st)
        tap_ok(fabs(fx_entry(s->A, 0, 0)) < 1e-14 && fabs(fx_entry(s->B, 0, 0) - 0.5) < 1e-14 &&
                   fabs(fx_entry(s->C, 0, 0) - 2) < 1e-14 && fabs(fx_entry(s->D, 0, 0) + 0.5) < 1e-14,
               "self loop, pade:1: A = 0, B = 1/2, C = 2, D = -1/2 (by hand)");
    jg_lin_sys_free(s);
    fx_unload(&f);
    /* exact with an output point on the cut signal: it reads w like Out1 does */
    const char *outs[1] = {"D:1"};
    jg_lin_opts_t oe = {.delays = JG_LIN_DELAYS_EXACT, .nout = 1, .out = outs};
    st = fx_load(&f, self, &oe);
    s = NULL;
    if (!st) st = jg_lin_run(f.l, JG_LIN_MATRIX, JG_GRAPH_REDUCE_NONE, &s, NULL, &f.err);
    if (tap_ok(!st && s->nu == 2 && s->ny == 3, "self loop, exact, --output D:1: inputs In1, D; "
               "outputs Out1, D:1, D")) {
        tap_ok(fx_entry(s->D, 0, 1) == 1 && fx_entry(s->D, 1, 1) == 1 && fx_entry(s->D, 1, 0) == 0 &&
                   fx_entry(s->D, 2, 0) == 1 && fx_entry(s->D, 2, 1) == 1,
               "self loop, exact: Out1 = D:1 = w, z = u + w");
    }
    jg_lin_sys_free(s);
    fx_unload(&f);
    /* refusals on the cut signal */
    const char *pts[1] = {"D:1"};
    jg_lin_opts_t oo = {.delays = JG_LIN_DELAYS_EXACT, .nopen = 1, .open = pts};
    st = fx_load(&f, self, &oo);
    tap_ok(st == JG_ARG && strstr(f.err.msg, "'D'"), "exact, --open D:1: JG_ARG (%s)", f.err.msg);
    fx_unload(&f);
    jg_lin_opts_t oi = {.delays = JG_LIN_DELAYS_PADE, .pade_order = 1, .nin = 1, .in = pts};
    st = fx_load(&f, self, &oi);
    tap_ok(st == JG_ARG && strstr(f.err.msg, "delay channel"), "pade:1, --input D:1: JG_ARG (%s)",
           f.err.msg);
    fx_unload(&f);
    jg_lin_opts_t ob = {.delays = JG_LIN_DELAYS_PADE, .pade_order = 11};
    st = fx_load(&f, self, &ob);
    tap_ok(st == JG_ARG, "pade order 11: JG_ARG (%s)", f.err.msg);
    fx_unload(&f);
}

/* Discrete linearization refuses the cut delays; a model without delays
 * takes the option as a no-op. */
static void test_discrete_refused(void)
{
    static const char mixed[] =
        "{\"name\": \"mixed\", \"blocks\": [{\"name\": \"In1\", \"type\": \"Inport\", \"Port\": 1},"
        "{\"name\": \"Z\", \"type\": \"UnitDelay\", \"SampleTime\": 0.1},"
        "{\"name\": \"D\", \"type\": \"TransportDelay\", \"DelayTime\": 1},"
        "{\"name\": \"Out1\", \"type\": \"Outport\", \"Port\": 1}],"
        "\"lines\": [{\"src\": \"In1:1\", \"dst\": \"Z:1\"}, {\"src\": \"Z:1\", \"dst\": \"D:1\"},"
        "{\"src\": \"D:1\", \"dst\": \"Out1:1\"}]}";
    fx_t f;
    jg_lin_sys_t *s = NULL;
    jg_lin_opts_t o = {.delays = JG_LIN_DELAYS_EXACT};
    jg_status_t st = fx_load(&f, mixed, &o);
    if (!st) st = jg_analysis_lin_discrete(f.l, NULL, &s, &f.err);
    tap_ok(st == JG_ARG && strstr(f.err.msg, "'D'"), "discrete + exact delays: JG_ARG naming the "
           "delay (%s)", f.err.msg);
    jg_lin_sys_free(s);
    fx_unload(&f);
    s = NULL;
    st = fx_load(&f, tl_vdp, &o);
    if (!st) st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &f.err);
    tap_ok(!st && s->ndelays == 0 && s->nx == 2, "a model without delays: exact is a no-op");
    jg_lin_sys_free(s);
    fx_unload(&f);
}

/* A delay whose reciprocal overflows at the asked order: JG_NUMERIC naming
 * it, never Inf in A (exact delays keep it as it is). */
static void test_tiny_delay(void)
{
    static const char tiny[] =
        "{\"name\": \"tiny\", \"blocks\": [{\"name\": \"In1\", \"type\": \"Inport\", \"Port\": 1},"
        "{\"name\": \"D\", \"type\": \"TransportDelay\", \"DelayTime\": 1e-307},"
        "{\"name\": \"Out1\", \"type\": \"Outport\", \"Port\": 1}],"
        "\"lines\": [{\"src\": \"In1:1\", \"dst\": \"D:1\"}, {\"src\": \"D:1\", \"dst\": \"Out1:1\"}]}";
    fx_t f;
    jg_lin_sys_t *s = NULL;
    jg_lin_opts_t o = {.delays = JG_LIN_DELAYS_PADE, .pade_order = 3};
    jg_status_t st = fx_load(&f, tiny, &o);
    if (!st) st = jg_lin_run(f.l, JG_LIN_GRAPH, JG_GRAPH_REDUCE_MARKOWITZ, &s, NULL, &f.err);
    tap_ok(st == JG_NUMERIC && strstr(f.err.msg, "'D'"), "delay 1e-307 at pade:3: JG_NUMERIC (%s)",
           f.err.msg);
    jg_lin_sys_free(s);
    fx_unload(&f);
    st = run(tiny, JG_LIN_DELAYS_EXACT, 0, JG_LIN_GRAPH, &s, &f);
    tap_ok(!st && s->ndelays == 1 && s->delays[0] == 1e-307, "delay 1e-307, exact: kept as it is");
    jg_lin_sys_free(s);
    fx_unload(&f);
}

static void test_parse_and_writers(void)
{
    jg_lin_delays_t m = JG_LIN_DELAYS_BLOCK;
    int n = -1;
    tap_ok(!jg_lin_delays_parse("exact", &m, &n) && m == JG_LIN_DELAYS_EXACT && n == 0, "parse exact");
    tap_ok(!jg_lin_delays_parse("pade:7", &m, &n) && m == JG_LIN_DELAYS_PADE && n == 7, "parse pade:7");
    static const char *const bad[] = {"pade:", "pade:11", "pade:-1", "pade:1x", "Exact", "pade", "",
                                      "pade: 2"};
    int rejected = 1;
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) rejected &= jg_lin_delays_parse(bad[k], &m, &n) == -1;
    tap_ok(rejected && jg_lin_delays_parse(NULL, &m, &n) == -1, "parse rejects malformed values");

    fx_t f;
    jg_lin_sys_t *s;
    if (!tap_ok(!run(loop_model(0.5, 0), JG_LIN_DELAYS_EXACT, 0, JG_LIN_GRAPH, &s, &f), "writers: linearized")) {
        fx_unload(&f);
        return;
    }
    char dir[256], path[300];
    tl_tmpdir(dir, sizeof dir, "jg-delays");
    snprintf(path, sizeof path, "%s/out.json", dir);
    FILE *fp = fopen(path, "w");
    jg_status_t st = jg_io_write_linsys_json(fp, s, &f.err);
    fclose(fp);
    char *text = tl_slurp(path, NULL);
    tap_ok(!st && text && strstr(text, "\"InternalDelay\": [0.5]"), "json: \"InternalDelay\": [0.5]");
    free(text);
    snprintf(path, sizeof path, "%s/mm", dir);
    st = jg_io_write_linsys_mm(path, s, &f.err);
    tap_ok(st == JG_ARG && strstr(f.err.msg, "delays"), "mm: refused (%s)", f.err.msg);
    /* inconsistent delay counts are refused, never read out of bounds */
    s->ndelays = 5;
    snprintf(path, sizeof path, "%s/bad.txt", dir);
    fp = fopen(path, "w");
    st = jg_io_write_linsys_text(fp, s, 6, &f.err);
    jg_status_t sj = jg_io_write_linsys_json(fp, s, &f.err);
    jg_status_t sm = jg_io_write_linsys_m(fp, s, NULL, &f.err);
    fclose(fp);
    tap_ok(st == JG_ARG && sj == JG_ARG && sm == JG_ARG, "text, json, m: 5 delays for 2 inputs refused");
    s->ndelays = 1;
    tl_rmtree(dir);
    jg_lin_sys_free(s);
    fx_unload(&f);
}

int main(void)
{
    test_loop_exact();
    test_loop_pade();
    test_pade_coefficients();
    test_chain();
    test_vector();
    test_self_loop_and_points();
    test_discrete_refused();
    test_tiny_delay();
    test_parse_and_writers();
    return tap_done();
}
