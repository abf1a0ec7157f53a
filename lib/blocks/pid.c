/* PIDController (the library block simulink/Continuous/PID Controller,
 * continuous time): u = P e + I/s e + D N s/(s + N) e (parallel form), with
 * optional output saturation and anti-windup, and an analytic Jacobian.
 *
 * Realization, as Simulink's block diagram (and generated code) has it, per
 * element of the error input e:
 *     v   = kp e + xi + N (kd e - xf)        (the unsaturated output)
 *     xi' = ki e   (+ anti-windup)           integrator state
 *     xf' = N (kd e - xf)                    filter state: N (kd e - xf) is
 *                                            kd N s/(s + N) e
 *     u   = clamp(v, LowerSaturationLimit, UpperSaturationLimit)
 * Parallel form: kp = P, ki = I, kd = D.  Ideal form (u = P (1 + I/s +
 * D N s/(s + N)) e): the error is scaled by P first, so kp = P, ki = P I,
 * kd = P D.  Controller (literal) "PID" (default), "PI", "PD", "P" or "I"
 * drops the terms it lacks, and their states: xi only with an I, xf only with
 * a D; "I" alone has no P path (kp = 0, ki = I in either form).
 * InitialConditionForIntegrator and InitialConditionForFilter (0) start xi
 * and xf; the states are xi (one per element), then xf.
 *
 * LimitOutput "on" clamps u.  AntiWindupMode (literal, with LimitOutput):
 *   "none" (default);
 *   "back-calculation": xi' = ki e + Kb (u - v), Kb (1);
 *   "clamping": xi' = 0 while v is beyond a limit and ki e pushes it further
 *     (v > upper and ki e > 0, or v < lower and ki e < 0), ki e otherwise.
 * Zero crossings v - upper and v - lower (either direction; one per element
 * and finite limit) place a major step where the output saturates, as the
 * Saturation block's do; the output stays a continuous function of e and
 * the states (no held mode), so linearization and simulation agree.
 *
 * Jacobian (sigma = 1 where lower <= v <= upper or without limits, else 0;
 * g = dv/de = kp + N kd):  c: du/dxi = sigma, du/dxf = -N sigma;
 * d: du/de = sigma g (declared when kp or kd is nonzero: an "I" controller
 * has no feedthrough);  a: dxf'/dxf = -N, and with back-calculation
 * dxi'/dxi = Kb (sigma - 1), dxi'/dxf = -N Kb (sigma - 1);  b: dxf'/de =
 * N kd, dxi'/de = ki (+ Kb (sigma - 1) g back-calculating; 0 while clamped).
 *
 * Parameters are scalars or one value per element.  Only "Continuous-time",
 * "internal" initial conditions and the filtered derivative are supported:
 * TimeDomain "Discrete-time", InitialConditionSource "external" and
 * UseFilter "off" are errors. */
#include <math.h>
#include <string.h>
#include "block_impl.h"

enum { AW_NONE, AW_BACKCALC, AW_CLAMP };
enum { PP, PI_, PD, PN, PIC, PICF, PUP, PLO, PKB, NPAR };   /* P I D N ICs limits Kb */

static const char *const pid_names[NPAR] = {
    "P", "I", "D", "N", "InitialConditionForIntegrator", "InitialConditionForFilter",
    "UpperSaturationLimit", "LowerSaturationLimit", "Kb"};

typedef struct {
    jg_value_t p[NPAR];
    int64_t n;           /* common numel of the non-scalar parameters (1: all scalar) */
    int which;
    int has_p, has_i, has_d;
    int ideal, limited, aw, zc;
    int64_t w, nzc;      /* width; zero crossings per limit side: w or 0 */
    int zc_hi, zc_lo;    /* some element has that finite limit */
    int ka, kb, kc, kd;  /* part indices, -1: none */
} pidc_t;

static int pid_setup(jg_block_t *b, jg_setup_t *s)
{
    static const char *const ctrl[] = {"PID", "PI", "PD", "P", "I"};
    static const char *const form[] = {"Parallel", "Ideal"};
    static const char *const dom[] = {"Continuous-time", "Discrete-time"};
    static const char *const icsrc[] = {"internal", "external"};
    static const char *const aw[] = {"none", "back-calculation", "clamping"};
    static const double defs[NPAR] = {1, 1, 0, 100, 0, 0, INFINITY, -INFINITY, 1};
    pidc_t *d = jg__setup_data(b, s, sizeof *d);
    if (!d) return JG_BLOCK_FAIL;
    d->ka = d->kb = d->kc = d->kd = -1;
    int c = jg__param_choice(b, s, "Controller", ctrl, 5, "\"PID\", \"PI\", \"PD\", \"P\" or \"I\"");
    int f = jg__param_choice(b, s, "Form", form, 2, "\"Parallel\" or \"Ideal\"");
    int t = jg__param_choice(b, s, "TimeDomain", dom, 2, "\"Continuous-time\" or \"Discrete-time\"");
    int ic = jg__param_choice(b, s, "InitialConditionSource", icsrc, 2, "\"internal\" or \"external\"");
    int a = jg__param_choice(b, s, "AntiWindupMode", aw, 3, "\"none\", \"back-calculation\" or \"clamping\"");
    if (c < 0 || f < 0 || t < 0 || ic < 0 || a < 0) return JG_BLOCK_FAIL;
    if (t == 1)
        return jg_setup_error(b, s, JG_PARAM, "TimeDomain",
                              "\"Discrete-time\" is not supported: only the continuous-time PID "
                              "controller is");
    if (ic == 1)
        return jg_setup_error(b, s, JG_PARAM, "InitialConditionSource",
                              "\"external\" is not supported: give the initial conditions as "
                              "parameters");
    int use_filter = 1;
    if (jg__param_onoff(b, s, "UseFilter", 1, &use_filter) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    d->has_p = c != 4;
    d->has_i = c == 0 || c == 1 || c == 4;
    d->has_d = c == 0 || c == 2;
    if (!use_filter && d->has_d)
        return jg_setup_error(b, s, JG_PARAM, "UseFilter",
                              "\"off\" (an unfiltered derivative) is not supported: the "
                              "derivative needs the filter N s/(s + N)");
    d->ideal = f == 1;
    if (jg__param_onoff(b, s, "LimitOutput", 0, &d->limited) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    if (jg__param_onoff(b, s, "ZeroCross", 1, &d->zc) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
    d->aw = d->limited && d->has_i ? a : AW_NONE;
    d->n = 1;
    for (int k = 0; k < NPAR; k++) {
        /* only what the controller uses is read (and checked) */
        if ((k == PI_ && !d->has_i) || (k == PD && !d->has_d) || (k == PN && !d->has_d) ||
            (k == PIC && !d->has_i) || (k == PICF && !d->has_d) || (k == PP && !d->has_p) ||
            ((k == PUP || k == PLO) && !d->limited) || (k == PKB && d->aw != AW_BACKCALC)) {
            d->p[k].rows = d->p[k].cols = 1;
            if (!(d->p[k].x = jg_setup_alloc(s, sizeof(double))))
                return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
            d->p[k].x[0] = k == PN ? 1 : defs[k];
            /* the library block's dialog keeps them (a PI has a D field): known, unused */
            jg__param_ignore(b, s, pid_names[k]);
            continue;
        }
        if (jg__param_limit(b, s, pid_names[k], defs[k], &d->p[k]) != JG_BLOCK_DONE) return JG_BLOCK_FAIL;
        int64_t m = jg_value_numel(&d->p[k]);
        for (int64_t i = 0; k != PUP && k != PLO && i < m; i++)
            if (!isfinite(d->p[k].x[i]))
                return jg_setup_error(b, s, JG_PARAM, pid_names[k], "element %lld is not a finite number",
                                      (long long)i + 1);
        if (m == 1) continue;
        if (d->n > 1 && m != d->n)
            return jg_setup_error(b, s, JG_PARAM, pid_names[k],
                                  "has %lld elements but %s has %lld (only scalars expand)",
                                  (long long)m, pid_names[d->which], (long long)d->n);
        d->n = m;
        d->which = k;
    }
    for (int64_t i = 0; i < d->n; i++) {
        if (d->has_d && !(jg__param_at(&d->p[PN], i) > 0))
            return jg_setup_error(b, s, JG_PARAM, "N",
                                  "element %lld is %g: expected a filter coefficient N > 0",
                                  (long long)i + 1, jg__param_at(&d->p[PN], i));
        if (d->limited && !(jg__param_at(&d->p[PLO], i) < jg__param_at(&d->p[PUP], i)))
            return jg_setup_error(b, s, JG_PARAM, "LowerSaturationLimit",
                                  "element %lld is %g, not below UpperSaturationLimit %g",
                                  (long long)i + 1, jg__param_at(&d->p[PLO], i), jg__param_at(&d->p[PUP], i));
        if (d->limited) {
            d->zc_hi |= isfinite(jg__param_at(&d->p[PUP], i));
            d->zc_lo |= isfinite(jg__param_at(&d->p[PLO], i));
        }
    }
    if (!d->zc) d->zc_hi = d->zc_lo = 0;
    return jg_setup_ports(b, s, 1, 1);
}

/* Gains of element i (see the top of this file). */
static void gains(const pidc_t *d, int64_t i, double *kp, double *ki, double *kd, double *N)
{
    double P = jg__param_at(&d->p[PP], i), scale = d->ideal && d->has_p ? P : 1;
    *kp = d->has_p ? P : 0;
    *ki = d->has_i ? scale * jg__param_at(&d->p[PI_], i) : 0;
    *kd = d->has_d ? scale * jg__param_at(&d->p[PD], i) : 0;
    *N = d->has_d ? jg__param_at(&d->p[PN], i) : 0;
}

static int pid_widths(jg_block_t *b, jg_setup_t *s)
{
    pidc_t *d = b->data;
    if (b->in_w[0] < 0) {
        if (d->n > 1) b->in_w[0] = d->n;
        else if (!s->force) return JG_BLOCK_AGAIN;
        else b->in_w[0] = 1;
    }
    int64_t w = b->in_w[0];
    if (d->n != 1 && d->n != w)
        return jg_setup_error(b, s, JG_WIDTH, pid_names[d->which],
                              "has %lld elements but the input has width %lld", (long long)d->n,
                              (long long)w);
    d->w = w;
    b->out_w[0] = w;
    if (jg_setup_states(b, s, (d->has_i + d->has_d) * w) < 0) return JG_BLOCK_FAIL;
    d->nzc = (d->zc_hi + d->zc_lo) * w;
    return jg_setup_zc(b, s, d->nzc, NULL) < 0 ? JG_BLOCK_FAIL : JG_BLOCK_DONE;
}

/* State indices of element i (-1 when absent). */
static int64_t xi_of(const pidc_t *d, int64_t i) { return d->has_i ? i : -1; }
static int64_t xf_of(const pidc_t *d, int64_t i) { return d->has_d ? d->has_i * d->w + i : -1; }

static int pid_pattern(jg_block_t *b, jg_setup_t *s)
{
    pidc_t *d = b->data;
    int64_t w = d->w;
    int64_t *ri = jg_setup_alloc(s, sizeof(int64_t) * (size_t)(3 * w + 1));
    int64_t *ci = jg_setup_alloc(s, sizeof(int64_t) * (size_t)(3 * w + 1));
    if (!ri || !ci) return jg_setup_error(b, s, JG_NOMEM, NULL, "out of memory");
    int64_t k = 0;
    /* a: the filter's -N, and the back-calculation's dependence of xi' on v */
    for (int64_t i = 0; i < w; i++) {
        if (d->has_d) ri[k] = ci[k] = xf_of(d, i), k++;
        if (d->aw == AW_BACKCALC) {
            ri[k] = ci[k] = xi_of(d, i), k++;
            if (d->has_d) ri[k] = xi_of(d, i), ci[k] = xf_of(d, i), k++;
        }
    }
    if (k && (d->ka = jg_jac_pattern(b, s, JG_JAC_A, -1, -1, k, ri, ci)) < 0) return -1;
    k = 0;
    for (int64_t i = 0; i < w; i++) {
        if (d->has_i) ri[k] = xi_of(d, i), ci[k] = i, k++;
        if (d->has_d) ri[k] = xf_of(d, i), ci[k] = i, k++;
    }
    if (k && (d->kb = jg_jac_pattern(b, s, JG_JAC_B, -1, 0, k, ri, ci)) < 0) return -1;
    k = 0;
    for (int64_t i = 0; i < w; i++) {
        if (d->has_i) ri[k] = i, ci[k] = xi_of(d, i), k++;
        if (d->has_d) ri[k] = i, ci[k] = xf_of(d, i), k++;
    }
    if (k && (d->kc = jg_jac_pattern(b, s, JG_JAC_C, 0, -1, k, ri, ci)) < 0) return -1;
    int feed = 0;
    for (int64_t i = 0; i < w; i++) {
        double kp, ki, kd, N;
        gains(d, i, &kp, &ki, &kd, &N);
        feed |= kp != 0 || kd != 0;
    }
    if (feed && (d->kd = jg_jac_diag(b, s, JG_JAC_D, 0, 0)) < 0) return -1;
    return 0;
}

static int pid_init(const jg_block_t *b, double *x0)
{
    const pidc_t *d = b->data;
    for (int64_t i = 0; i < d->w; i++) {
        if (d->has_i) x0[xi_of(d, i)] = jg__param_at(&d->p[PIC], i);
        if (d->has_d) x0[xf_of(d, i)] = jg__param_at(&d->p[PICF], i);
    }
    return 0;
}

/* v, the unsaturated output of element i. */
static double pid_v(const pidc_t *d, const jg_eval_t *e, int64_t i)
{
    double kp, ki, kd, N, ei = e->u[0][i];
    gains(d, i, &kp, &ki, &kd, &N);
    double v = kp * ei;
    if (d->has_i) v += e->x[xi_of(d, i)];
    if (d->has_d) v += N * (kd * ei - e->x[xf_of(d, i)]);
    return v;
}

static double sat(const pidc_t *d, int64_t i, double v)
{
    if (!d->limited) return v;
    double lo = jg__param_at(&d->p[PLO], i), hi = jg__param_at(&d->p[PUP], i);
    return v > hi ? hi : v < lo ? lo : v;
}

static int pid_outputs(const jg_block_t *b, jg_eval_t *e)
{
    const pidc_t *d = b->data;
    for (int64_t i = 0; i < d->w; i++) e->y[0][i] = sat(d, i, pid_v(d, e, i));
    return 0;
}

/* Clamping anti-windup: is the integration of element i stopped? */
static int clamped(const pidc_t *d, int64_t i, double v, double kie)
{
    return d->aw == AW_CLAMP && ((v > jg__param_at(&d->p[PUP], i) && kie > 0) || (v < jg__param_at(&d->p[PLO], i) && kie < 0));
}

static int pid_derivatives(const jg_block_t *b, jg_eval_t *e)
{
    const pidc_t *d = b->data;
    for (int64_t i = 0; i < d->w; i++) {
        double kp, ki, kd, N, ei = e->u[0][i], v = pid_v(d, e, i);
        gains(d, i, &kp, &ki, &kd, &N);
        if (d->has_i) {
            double dxi = ki * ei;
            if (d->aw == AW_BACKCALC) dxi += jg__param_at(&d->p[PKB], i) * (sat(d, i, v) - v);
            else if (clamped(d, i, v, ki * ei)) dxi = 0;
            e->dx[xi_of(d, i)] = dxi;
        }
        if (d->has_d) e->dx[xf_of(d, i)] = N * (kd * ei - e->x[xf_of(d, i)]);
    }
    return 0;
}

/* Entry (r, c) of a declared pattern. */
static void put(cs_dl *M, int64_t r, int64_t c, double v)
{
    for (int64_t q = M->p[c]; q < M->p[c + 1]; q++)
        if (M->i[q] == r) {
            M->x[q] = v;
            return;
        }
}

static int pid_jacobian(const jg_block_t *b, jg_eval_t *e)
{
    const pidc_t *d = b->data;
    cs_dl *A = d->ka >= 0 ? e->jac[d->ka] : NULL, *B = d->kb >= 0 ? e->jac[d->kb] : NULL;
    cs_dl *C = d->kc >= 0 ? e->jac[d->kc] : NULL, *D = d->kd >= 0 ? e->jac[d->kd] : NULL;
    for (int64_t i = 0; i < d->w; i++) {
        double kp, ki, kd, N, ei = e->u[0][i], v = pid_v(d, e, i);
        gains(d, i, &kp, &ki, &kd, &N);
        double sigma = !d->limited || (v >= jg__param_at(&d->p[PLO], i) && v <= jg__param_at(&d->p[PUP], i)) ? 1 : 0;
        double g = kp + N * kd, kb = d->aw == AW_BACKCALC ? jg__param_at(&d->p[PKB], i) * (sigma - 1) : 0;
        int64_t xi = xi_of(d, i), xf = xf_of(d, i);
        if (d->has_d) {
            put(A, xf, xf, -N);
            put(B, xf, i, N * kd);
            put(C, i, xf, -N * sigma);
        }
        if (d->has_i) {
            double bi = clamped(d, i, v, ki * ei) ? 0 : ki + kb * g;
            put(B, xi, i, bi);
            put(C, i, xi, sigma);
            if (d->aw == AW_BACKCALC) {
                put(A, xi, xi, kb);
                if (d->has_d) put(A, xi, xf, -N * kb);
            }
        }
        if (D) put(D, i, i, sigma * g);
    }
    return 0;
}

/* v - upper, then v - lower, per element; a side without a finite limit
 * gets a constant of the sign that never fires. */
static int pid_zc(const jg_block_t *b, jg_eval_t *e)
{
    const pidc_t *d = b->data;
    int64_t k = 0;
    for (int64_t i = 0; d->zc_hi && i < d->w; i++) {
        double hi = jg__param_at(&d->p[PUP], i);
        e->zcv[k++] = isfinite(hi) ? pid_v(d, e, i) - hi : -1.0;
    }
    for (int64_t i = 0; d->zc_lo && i < d->w; i++) {
        double lo = jg__param_at(&d->p[PLO], i);
        e->zcv[k++] = isfinite(lo) ? pid_v(d, e, i) - lo : 1.0;
    }
    return 0;
}

const jg_block_type_t jg_block_pidcontroller = {
    .name = "PIDController", .flags = 0,
    .setup = pid_setup, .widths = pid_widths, .pattern = pid_pattern,
    .init = pid_init, .outputs = pid_outputs, .derivatives = pid_derivatives,
    .jacobian = pid_jacobian, .zc = pid_zc,
};
