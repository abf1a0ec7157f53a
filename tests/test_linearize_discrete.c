/* test_linearize_discrete.c -- discrete and multirate linearization
 * (jg_analysis_lin_discrete) and the continuous/discrete conversions
 * (jg_analysis_c2d, d2c, d2d, logm) against hand results: the sampled-data
 * PI loop of graphs/sampled_pi.json, c2d zoh / foh / tustin / prewarp
 * against closed forms on first- and second-order systems, d2d and d2c
 * round trips, a two-rate model (tests/data/multirate.json), refusals (a
 * sample-time offset, several rates without a target, a discrete block
 * without an update Jacobian), and the discrete PID of the external corpus
 * (model01, Ts = 0.05) when present. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>
#include "jacgraph/jacgraph.h"
#include "testlib.h"

/* Load a model file (JSON) into the fixture. */
static jg_status_t load_file(fx_t *f, const char *path)
{
    char *text = tl_slurp(path, NULL);
    if (!text) {
        memset(f, 0, sizeof *f);
        return jg_error_set(&f->err, JG_IO, "%s: cannot read", path);
    }
    jg_status_t st = fx_load(f, text, NULL);
    free(text);
    return st;
}

/* Dense copy (row-major, n x n) of a square CSC matrix. */
static void dense_rm(const cs_dl *A, double *d)
{
    for (int64_t i = 0; i < A->m; i++)
        for (int64_t j = 0; j < A->n; j++) d[i * A->n + j] = fx_entry(A, i, j);
}

/* ---------------------------------------------------------- sampled_pi
 *
 * The hand ZOH computation.  Plant 1/(s+1): x' = -x + u, its input the held
 * output of the Unit Delay xD.  Over one sample T = 0.1 with u held:
 *     x[k+1] = a x[k] + b xD[k],  a = e^-0.1,  b = 1 - a.
 * At the hit, e = r - y = -x (the Step is zero at t = 0 and has no Jacobian);
 * the sampler passes e; the PI output is Kp e + xI (forward Euler: the
 * integrator's output is its state, no feedthrough):
 *     xI[k+1] = xI[k] + Ki T e = xI - 0.3 x
 *     xD[k+1] = PI = 2 e + xI = -2 x + xI
 * so A = [a 0 b; -0.3 1 0; -2 1 0] over (Plant, Integral, Delay) and
 *     det(zI - A) = z (z - 1)(z - a) + b (2 z - 1.7)
 *                 = z^3 - (1 + a) z^2 + (a + 2b) z - 1.7 b. */
static void test_sampled_pi(void)
{
    fx_t f;
    jg_lin_sys_t *s = NULL;
    jg_status_t st = load_file(&f, "graphs/sampled_pi.json");
    tap_ok(!st && jg_analysis_has_discrete(f.p), "sampled_pi has discrete states");
    if (!st) st = jg_analysis_lin_discrete(f.l, NULL, &s, &f.err);
    if (!tap_ok(!st, "sampled_pi linearizes to discrete time")) {
        printf("#   %s\n", f.err.msg);
        goto done;
    }
    tap_near(s->Ts, 0.1, 0, "Ts = 0.1, the model's one rate");
    tap_ok(s->nx == 3 && !strcmp(s->state_names[0], "Plant") && !strcmp(s->state_names[1], "Integral") &&
               !strcmp(s->state_names[2], "Delay"),
           "states: Plant, Integral, Delay");
    double a = exp(-0.1), b = 1 - a, A[9];
    const double want[9] = {a, 0, b, -0.3, 1, 0, -2, 1, 0};
    dense_rm(s->A, A);
    double worst = 0;
    for (int k = 0; k < 9; k++) worst = fmax(worst, fabs(A[k] - want[k]));
    tap_ok(worst < 1e-14, "A is the hand ZOH computation (largest difference %g)", worst);
    /* the characteristic polynomial: coordinate-free closed-loop poles */
    double tr = A[0] + A[4] + A[8];
    double m2 = A[0] * A[4] - A[1] * A[3] + A[0] * A[8] - A[2] * A[6] + A[4] * A[8] - A[5] * A[7];
    double det = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
                 A[2] * (A[3] * A[7] - A[4] * A[6]);
    tap_near(-tr, -(1 + a), 1e-14, "closed loop: z^2 coefficient -(1 + a)");
    tap_near(m2, a + 2 * b, 1e-14, "closed loop: z coefficient a + 2b");
    tap_near(-det, -1.7 * b, 1e-14, "closed loop: constant -1.7 b");
    /* and the poles themselves are roots of it */
    jg_analysis_ss_t *ss = NULL;
    double re[3], im[3], res = 0;
    if (!jg_analysis_ss_from_lin(s, s->Ts, &ss, &f.err) && !jg_analysis_poles(ss, re, im, &f.err))
        for (int k = 0; k < 3; k++) {
            double complex z = re[k] + I * im[k];
            res = fmax(res, cabs(z * (z - 1) * (z - a) + b * (2 * z - 1.7)));
        }
    else
        res = INFINITY;
    tap_ok(res < 1e-13, "the discrete poles are the roots of the hand polynomial (residual %g)", res);
    jg_analysis_ss_free(ss);
    tap_ok(s->ny == 2 && fx_entry(s->C, 0, 0) == 1 && fx_entry(s->C, 1, 2) == 1,
           "C: y samples the plant state, u the delay");
    jg_lin_sys_free(s);
    s = NULL;
    /* the same at --rate 0.3 (an integer multiple): d2d zoh is A^3 */
    jg_analysis_rate_opts_t o = {.rate = 0.3};
    st = jg_analysis_lin_discrete(f.l, &o, &s, &f.err);
    if (tap_ok(!st && s->Ts == 0.3, "resampled to 0.3 s")) {
        double A3[9], T[9];
        dense_rm(s->A, A3);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double acc = 0;
                for (int k = 0; k < 3; k++) acc += want[i * 3 + k] * want[k * 3 + j];
                T[i * 3 + j] = acc;
            }
        worst = 0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double acc = 0;
                for (int k = 0; k < 3; k++) acc += T[i * 3 + k] * want[k * 3 + j];
                worst = fmax(worst, fabs(A3[i * 3 + j] - acc));
            }
        tap_ok(worst < 1e-14, "A at 0.3 s is A^3 (difference %g)", worst);
    }
done:
    jg_lin_sys_free(s);
    fx_unload(&f);
}

/* ------------------------------------------------------ c2d closed forms */

static double complex tf1(const jg_analysis_ss_t *s, double complex z)
{
    /* a SISO first-order model: C (z - A)^-1 B + D */
    return s->C[0] * s->B[0] / (z - s->A[0]) + s->D[0];
}

static void test_c2d_first_order(void)
{
    jg_error_t err;
    jg_error_clear(&err);
    const double a = 2, T = 0.1, A = -a, B = 1, C = 1, D = 0;
    jg_analysis_ss_t *s = NULL, *d = NULL;
    jg_analysis_ss_create(1, 1, 1, &A, &B, &C, &D, 0, &s, &err);
    /* zoh: e^(-aT), (1 - e^(-aT))/a */
    if (tap_ok(!jg_analysis_c2d(s, T, JG_ANALYSIS_ZOH, 0, &d, &err), "c2d zoh")) {
        tap_near(d->A[0], exp(-a * T), 1e-15, "zoh: A_d = e^(-aT)");
        tap_near(d->B[0] * d->C[0], (1 - exp(-a * T)) / a, 1e-15, "zoh: C_d B_d = (1 - e^(-aT))/a");
        tap_near(d->Ts, T, 0, "zoh: Ts");
    }
    jg_analysis_ss_free(d);
    d = NULL;
    /* tustin: H(z) = k (z + 1) / ((1 + k a) z - (1 - k a)), k = T/2 */
    if (tap_ok(!jg_analysis_c2d(s, T, JG_ANALYSIS_TUSTIN, 0, &d, &err), "c2d tustin")) {
        double k = T / 2, worst = 0;
        const double complex zs[3] = {2, -0.5, 0.3 + 0.8 * I};
        for (int i = 0; i < 3; i++) {
            double complex z = zs[i], h = k * (z + 1) / ((1 + k * a) * z - (1 - k * a));
            worst = fmax(worst, cabs(tf1(d, z) - h));
        }
        tap_ok(worst < 1e-14, "tustin: H(z) = k(z+1)/((1+ka)z - (1-ka)) (difference %g)", worst);
    }
    jg_analysis_ss_free(d);
    d = NULL;
    /* prewarp at w: the discrete response at e^(jwT) equals G(jw) */
    double w = 20;
    if (tap_ok(!jg_analysis_c2d(s, T, JG_ANALYSIS_TUSTIN, w, &d, &err), "c2d tustin prewarped")) {
        double complex g = 1 / (I * w + a), h = tf1(d, cexp(I * w * T));
        tap_ok(cabs(h - g) < 1e-14, "prewarp: H(e^(jwT)) = G(jw) at w = 20 rad/s (difference %g)", cabs(h - g));
    }
    jg_analysis_ss_free(d);
    d = NULL;
    tap_ok(jg_analysis_c2d(s, T, JG_ANALYSIS_TUSTIN, 40, &d, &err) == JG_ARG && !d,
           "prewarp at or above the Nyquist frequency is refused");
    /* foh: H(z) = (z - 1)^2/(T z) Z{G(s)/s^2}, G/s^2 = 1/(a s^2) - 1/(a^2 s) + 1/(a^2 (s + a)) */
    if (tap_ok(!jg_analysis_c2d(s, T, JG_ANALYSIS_FOH, 0, &d, &err), "c2d foh")) {
        double worst = 0, p = exp(-a * T);
        const double complex zs[2] = {2, 0.4 + 0.7 * I};
        for (int i = 0; i < 2; i++) {
            double complex z = zs[i];
            double complex Z = T * z / (a * (z - 1) * (z - 1)) - z / (a * a * (z - 1)) + z / (a * a * (z - p));
            worst = fmax(worst, cabs(tf1(d, z) - (z - 1) * (z - 1) / (T * z) * Z));
        }
        tap_ok(worst < 1e-13, "foh: the triangle-hold closed form (difference %g)", worst);
    }
    jg_analysis_ss_free(d);
    d = NULL;
    tap_ok(jg_analysis_c2d(s, -1, JG_ANALYSIS_ZOH, 0, &d, &err) == JG_ARG, "c2d: Ts <= 0 refused");
    jg_analysis_ss_free(s);
}

/* x'' + 3x' + 2x = u: A = [0 1; -2 -3] (poles -1, -2), B = [0; 1].
 * e^(At) = [2e1 - e2, e1 - e2; -2e1 + 2e2, -e1 + 2e2] (e1 = e^-t, e2 = e^-2t),
 * int_0^T e^(As) B ds = [(1 - e1) - (1 - e2)/2; -(1 - e1) + (1 - e2)]. */
static void test_c2d_second_order(void)
{
    jg_error_t err;
    jg_error_clear(&err);
    const double A[4] = {0, -2, 1, -3}, B[2] = {0, 1}, C[2] = {1, 0}, D = 0, T = 0.25;   /* column-major */
    jg_analysis_ss_t *s = NULL, *d = NULL, *c = NULL, *d2 = NULL, *d3 = NULL;
    jg_analysis_ss_create(2, 1, 1, A, B, C, &D, 0, &s, &err);
    double e1 = exp(-T), e2 = exp(-2 * T);
    const double Ad[4] = {2 * e1 - e2, -2 * e1 + 2 * e2, e1 - e2, -e1 + 2 * e2};
    const double Bd[2] = {(1 - e1) - (1 - e2) / 2, -(1 - e1) + (1 - e2)};
    if (tap_ok(!jg_analysis_c2d(s, T, JG_ANALYSIS_ZOH, 0, &d, &err), "second order: c2d zoh")) {
        double worst = 0;
        for (int k = 0; k < 4; k++) worst = fmax(worst, fabs(d->A[k] - Ad[k]));
        for (int k = 0; k < 2; k++) worst = fmax(worst, fabs(d->B[k] - Bd[k]));
        tap_ok(worst < 1e-15, "second order: A_d, B_d are the closed form (difference %g)", worst);
    }
    /* d2c zoh (matrix logarithm) gives A, B back */
    if (tap_ok(d && !jg_analysis_d2c(d, JG_ANALYSIS_ZOH, 0, &c, &err), "second order: d2c zoh")) {
        double worst = 0;
        for (int k = 0; k < 4; k++) worst = fmax(worst, fabs(c->A[k] - A[k]));
        for (int k = 0; k < 2; k++) worst = fmax(worst, fabs(c->B[k] - B[k]));
        tap_ok(worst < 1e-12 && c->Ts == 0, "d2c(c2d(sys)) = sys (difference %g)", worst);
    }
    jg_analysis_ss_free(c);
    c = NULL;
    /* d2d zoh: 0.25 -> 0.75 (integer, powers) and 0.25 -> 0.1 (through logm)
     * equal c2d at the new rate */
    const double Tn[2] = {0.75, 0.1};
    for (int i = 0; i < 2 && d; i++) {
        if (jg_analysis_d2d(d, Tn[i], JG_ANALYSIS_ZOH, 0, &d2, &err) ||
            jg_analysis_c2d(s, Tn[i], JG_ANALYSIS_ZOH, 0, &d3, &err)) {
            tap_ok(0, "d2d zoh to %g: %s", Tn[i], err.msg);
            continue;
        }
        double worst = 0;
        for (int k = 0; k < 4; k++) worst = fmax(worst, fabs(d2->A[k] - d3->A[k]));
        for (int k = 0; k < 2; k++) worst = fmax(worst, fabs(d2->B[k] - d3->B[k]));
        tap_ok(worst < 1e-12 && d2->Ts == Tn[i], "d2d zoh 0.25 -> %g equals c2d at %g (difference %g)", Tn[i],
               Tn[i], worst);
        jg_analysis_ss_free(d2);
        jg_analysis_ss_free(d3);
        d2 = d3 = NULL;
    }
    jg_analysis_ss_free(d);
    d = NULL;
    /* tustin round trip */
    if (!jg_analysis_c2d(s, T, JG_ANALYSIS_TUSTIN, 0, &d, &err) && !jg_analysis_d2c(d, JG_ANALYSIS_TUSTIN, 0, &c, &err)) {
        /* same transfer function: compare G(s) at two points */
        double worst = 0;
        const double complex pts[2] = {I, 0.5 + 2 * I};
        for (int i = 0; i < 2; i++) {
            double complex sp = pts[i], den = sp * sp + 3 * sp + 2;
            /* c: C (sI - A)^-1 B + D, 2 x 2 by hand */
            double complex m00 = sp - c->A[0], m01 = -c->A[2], m10 = -c->A[1], m11 = sp - c->A[3];
            double complex dt = m00 * m11 - m01 * m10;
            double complex x0 = (m11 * c->B[0] - m01 * c->B[1]) / dt, x1 = (-m10 * c->B[0] + m00 * c->B[1]) / dt;
            double complex g = c->C[0] * x0 + c->C[1] * x1 + c->D[0];
            worst = fmax(worst, cabs(g - 1 / den));
        }
        tap_ok(worst < 1e-13, "d2c(c2d(sys, tustin), tustin) has the transfer function of sys (difference %g)",
               worst);
    } else
        tap_ok(0, "tustin round trip: %s", err.msg);
    jg_analysis_ss_free(c);
    jg_analysis_ss_free(d);
    c = d = NULL;
    /* a pole at z = 0 has no logarithm: d2c zoh refused */
    const double Z = 0, one = 1;
    jg_analysis_ss_t *dz = NULL;
    jg_analysis_ss_create(1, 1, 1, &Z, &one, &one, &Z, 0.1, &dz, &err);
    tap_ok(jg_analysis_d2c(dz, JG_ANALYSIS_ZOH, 0, &c, &err) == JG_NUMERIC && !c,
           "d2c zoh of a pole at z = 0 is refused (%s)", err.msg);
    jg_analysis_ss_free(dz);
    jg_analysis_ss_free(s);
}

static void test_logm(void)
{
    jg_error_t err;
    jg_error_clear(&err);
    /* a rotation-and-growth generator: logm(expm(M)) = M when the
     * eigenvalues' imaginary parts lie in (-pi, pi) */
    const double M[9] = {-1, 2, 0.5, -2, -0.3, 1, 0.2, 0, 3};
    double E[9], L[9], worst = 0;
    if (jg_analysis_expm(3, M, E, &err) || jg_analysis_logm(3, E, L, &err))
        worst = INFINITY;
    else
        for (int k = 0; k < 9; k++) worst = fmax(worst, fabs(L[k] - M[k]));
    tap_ok(worst < 1e-12, "logm(expm(M)) = M (difference %g)", worst);
    const double N[4] = {-1, 0, 0, 2};
    tap_ok(jg_analysis_logm(2, N, L, &err) == JG_NUMERIC, "logm of a negative eigenvalue is refused");
}

/* ------------------------------------------------------------ multirate
 *
 * tests/data/multirate.json at 0.2 s with zoh.  Continuous -> 0.1: the plant
 * with the held slow delay output v: x+ = a x + b v (a = e^-0.1, b = 1 - a).
 * Closed with the 0.1 s blocks (sampler, gain -1, forward-Euler integrator):
 * Acc+ = Acc - 0.1 x, so A1 = [a 0; -0.1 1], B1 = [b; 0] on v.  To 0.2 (two
 * fast samples, v held): A1^2 = [a^2 0; -0.1(1 + a) 1], (I + A1) B1 =
 * [(1 + a) b; -0.1 b].  Closed with the slow unit delay (Slow+ = Acc, v =
 * Slow): A = [a^2 0 (1+a)b; -0.1(1+a) 1 -0.1b; 0 1 0]. */
static void test_multirate(void)
{
    fx_t f;
    jg_lin_sys_t *s = NULL;
    jg_status_t st = load_file(&f, "tests/data/multirate.json");
    if (!st) {
        st = jg_analysis_lin_discrete(f.l, NULL, &s, &f.err);
        tap_ok(st == JG_ARG && strstr(f.err.msg, "several sample times (0.1, 0.2)"),
               "several rates and no target: refused naming the rates (%s)", f.err.msg);
    }
    jg_analysis_rate_opts_t o = {.rate = 0.2, .method = JG_ANALYSIS_ZOH};
    if (!st || st == JG_ARG) st = jg_analysis_lin_discrete(f.l, &o, &s, &f.err);
    if (!tap_ok(!st, "multirate model at 0.2 s")) {
        printf("#   %s\n", f.err.msg);
        goto done;
    }
    double a = exp(-0.1), b = 1 - a, A[9];
    const double want[9] = {a * a, 0, (1 + a) * b, -0.1 * (1 + a), 1, -0.1 * b, 0, 1, 0};
    dense_rm(s->A, A);
    double worst = 0;
    for (int k = 0; k < 9; k++) worst = fmax(worst, fabs(A[k] - want[k]));
    tap_ok(s->nx == 3 && s->Ts == 0.2 && worst < 1e-14,
           "multirate: A is the hand rate conversion (difference %g)", worst);
    jg_lin_sys_free(s);
    s = NULL;
    /* tustin: another (approximate) model, same size, still discrete at 0.2 */
    o.method = JG_ANALYSIS_TUSTIN;
    st = jg_analysis_lin_discrete(f.l, &o, &s, &f.err);
    tap_ok(!st && s->nx == 3 && s->Ts == 0.2, "multirate with tustin conversion");
    jg_lin_sys_free(s);
    s = NULL;
    o.method = JG_ANALYSIS_FOH;
    tap_ok(jg_analysis_lin_discrete(f.l, &o, &s, &f.err) == JG_ARG, "foh is not a rate conversion method");
done:
    jg_lin_sys_free(s);
    fx_unload(&f);
}

/* The one-input, one-output model in-BLOCK-out (block a JSON object with
 * single quotes, named by its 'name') loaded into f and linearized in
 * discrete time into *s; the status, the message in f->err. */
static jg_status_t discrete_of(fx_t *f, const char *block, jg_lin_sys_t **s)
{
    char json[1024], name[64] = "";
    const char *n = strstr(block, "'name':'");
    if (n) sscanf(n + 8, "%63[^']", name);
    snprintf(json, sizeof json,
             "{'name':'m','blocks':[{'name':'In1','type':'Inport','Port':1},%s,"
             "{'name':'Out1','type':'Outport','Port':1}],"
             "'lines':[{'src':'In1:1','dst':'%s:1'},{'src':'%s:1','dst':'Out1:1'}]}",
             block, name, name);
    *s = NULL;
    jg_status_t st = fx_load(f, q(json), NULL);
    if (!st) st = jg_analysis_lin_discrete(f->l, NULL, s, &f->err);
    return st;
}

/* One TAP line: discrete_of(block) fails with want, the message naming the
 * block ('NAME') and holding fragment. */
static void discrete_refused(const char *block, const char *name, jg_status_t want, const char *fragment,
                             const char *what)
{
    fx_t f;
    jg_lin_sys_t *s = NULL;
    jg_status_t st = discrete_of(&f, block, &s);
    tap_ok(st == want && strstr(f.err.msg, name) && strstr(f.err.msg, fragment), "%s (%s)", what, f.err.msg);
    jg_lin_sys_free(s);
    fx_unload(&f);
}

static void test_refusals(void)
{
    discrete_refused("{'name':'D','type':'UnitDelay','SampleTime':[0.1, 0.05]}", "'D'", JG_ARG, "offset",
                     "a sample time offset is refused naming the block");
    discrete_refused("{'name':'R','type':'Relay','SampleTime':0.1}", "'R'", JG_MODEL, "update Jacobian",
                     "a discrete block without an update Jacobian is refused naming it");
    fx_t f;
    jg_lin_sys_t *s = NULL;
    /* an input through a unit delay: B = 1 into the delay, C = 1 (times the gain 3) */
    jg_status_t st = fx_load(&f, q("{'name':'ud','blocks':[{'name':'In1','type':'Inport','Port':1},"
                       "{'name':'D','type':'UnitDelay','SampleTime':0.5},"
                       "{'name':'G','type':'Gain','Gain':3},"
                       "{'name':'Out1','type':'Outport','Port':1}],"
                       "'lines':[{'src':'In1:1','dst':'D:1'},{'src':'D:1','dst':'G:1'},{'src':'G:1','dst':'Out1:1'}]}"),
                 NULL);
    if (!st) st = jg_analysis_lin_discrete(f.l, NULL, &s, &f.err);
    tap_ok(!st && s->Ts == 0.5 && s->nx == 1 && fx_entry(s->A, 0, 0) == 0 && fx_entry(s->B, 0, 0) == 1 &&
               fx_entry(s->C, 0, 0) == 3 && fx_entry(s->D, 0, 0) == 0,
           "input -> unit delay -> gain 3: A = 0, B = 1, C = 3, D = 0 at Ts = 0.5");
    jg_lin_sys_free(s);
    fx_unload(&f);
    /* a discrete state space with a feedthrough: its own A, B, C, D */
    st = discrete_of(&f,
                     "{'name':'S','type':'DiscreteStateSpace','A':[[0.5,0.1],[0,0.2]],'B':[[1],[2]],"
                     "'C':[[1,-1]],'D':[[0.7]],'SampleTime':0.2}",
                     &s);
    tap_ok(!st && s->nx == 2 && fx_entry(s->A, 0, 0) == 0.5 && fx_entry(s->A, 0, 1) == 0.1 &&
               fx_entry(s->A, 1, 1) == 0.2 && fx_entry(s->B, 1, 0) == 2 && fx_entry(s->C, 0, 1) == -1 &&
               fx_entry(s->D, 0, 0) == 0.7,
           "DiscreteStateSpace: its matrices (%s)", st ? f.err.msg : "");
    jg_lin_sys_free(s);
    fx_unload(&f);
    s = NULL;
    /* a continuous model at --rate: c2d of the continuous result */
    st = fx_load(&f, q("{'name':'c','blocks':[{'name':'In1','type':'Inport','Port':1},"
                       "{'name':'P','type':'TransferFcn','Numerator':[1],'Denominator':[1,1]},"
                       "{'name':'Out1','type':'Outport','Port':1}],"
                       "'lines':[{'src':'In1:1','dst':'P:1'},{'src':'P:1','dst':'Out1:1'}]}"),
                 NULL);
    jg_analysis_rate_opts_t o = {.rate = 0.1};
    tap_ok(!st && !jg_analysis_has_discrete(f.p), "a continuous model has no discrete states");
    if (!st) st = jg_analysis_lin_discrete(f.l, &o, &s, &f.err);
    tap_ok(!st && s->Ts == 0.1 && fabs(fx_entry(s->A, 0, 0) - exp(-0.1)) < 1e-15 &&
               fabs(fx_entry(s->B, 0, 0) * fx_entry(s->C, 0, 0) - (1 - exp(-0.1))) < 1e-15,
           "a continuous model at --rate 0.1: its ZOH equivalent");
    jg_lin_sys_free(s);
    s = NULL;
    st = jg_analysis_lin_discrete(f.l, NULL, &s, &f.err);
    tap_ok(st == JG_ARG && !s, "a continuous model without a target rate is refused");
    fx_unload(&f);
}

/* ------------------------------------------------- the external corpus
 *
 * model01's discrete PID at Ts = 0.05 around the plant 1/(s+1) (its
 * simulation is checked in test_import_simulink.c).  With r = 0 the
 * sampled-data loop is, per sample (e = -y, I the integral, cp the
 * controller output of the last sample, ep the last error):
 *     y+ = a y + (1 - a) cp,  I+ = I + 0.2 e,  cp+ = 2e + I + 0.2e + 0.5(e - ep),
 *     ep+ = e,  a = e^-0.05
 * whose 4 x 4 matrix has the closed-loop poles to compare with. */
static void test_model01(void)
{
    if (!tl_corpus_present()) return;
    const char *file = tl_corpus("EmbSys-WWU__Simulink2dL__model01.mdl");
    if (tl_corpus_absent(file, "model01 not in the corpus")) return;
    jg_model_t *m = NULL;
    jg_program_t *p = NULL;
    jg_lin_t *l = NULL;
    jg_lin_sys_t *s = NULL;
    jg_analysis_ss_t *ss = NULL, *hs = NULL;
    jg_error_t err;
    jg_error_clear(&err);
    jg_import_opts_t io = {0};
    jg_status_t st = jg_import_load(file, &io, &m, &err);
    if (!st) st = jg_program_compile(m, &p, &err);
    if (!st) st = jg_lin_create(p, NULL, &l, &err);
    if (!st) st = jg_analysis_lin_discrete(l, NULL, &s, &err);
    if (!tap_ok(!st && s->Ts == 0.05, "model01 linearizes to discrete time at Ts = 0.05")) {
        printf("#   %s\n", err.msg);
        goto done;
    }
    double a = exp(-0.05);
    /* columns (y, I, cp, ep), column-major */
    const double H[16] = {a, -0.2, -2.7, -1, 0, 1, 1, 0, 1 - a, 0, 0, 0, 0, 0, -0.5, 0};
    double re[8], im[8], hre[4], him[4];
    st = jg_analysis_ss_from_lin(s, s->Ts, &ss, &err);
    if (!st) st = jg_analysis_ss_create(4, 0, 0, H, NULL, NULL, NULL, 0.05, &hs, &err);
    if (!st && s->nx <= 8) st = jg_analysis_poles(ss, re, im, &err);
    if (!st) st = jg_analysis_poles(hs, hre, him, &err);
    /* every nonzero pole of either is one of the other (extra states of a
     * realization may only add poles at 0) */
    double worst = 0;
    for (int pass = 0; !st && pass < 2; pass++) {
        int64_t na = pass ? 4 : s->nx, nb = pass ? s->nx : 4;
        const double *ar = pass ? hre : re, *ai = pass ? him : im, *br = pass ? re : hre, *bi = pass ? im : him;
        for (int64_t i = 0; i < na; i++) {
            if (hypot(ar[i], ai[i]) < 1e-9) continue;
            double best = INFINITY;
            for (int64_t j = 0; j < nb; j++) best = fmin(best, hypot(ar[i] - br[j], ai[i] - bi[j]));
            worst = fmax(worst, best);
        }
    }
    tap_ok(!st && worst < 1e-10, "model01: the closed-loop discrete poles of the hand recursion (difference %g)",
           worst);
done:
    jg_analysis_ss_free(ss);
    jg_analysis_ss_free(hs);
    jg_lin_sys_free(s);
    jg_lin_free(l);
    jg_program_free(p);
    jg_model_free(m);
}

int main(void)
{
    test_sampled_pi();
    test_c2d_first_order();
    test_c2d_second_order();
    test_logm();
    test_multirate();
    test_refusals();
    test_model01();
    return tap_done();
}
